"""A clip from the wizard to a visitor's phone (issue 35 §1, "done when").

A new advertiser on a 390 px phone, whose listing was filled through the wizard's services, opens its "Fotos y
video" step, adds an iPhone MOV that carries GPS (before the upload's script has arrived), sees the upload's
progress, goes on to the next step while it uploads (the progress follows), comes back to the ready poster, finds
the clip in the last step's summary, and sends the listing to review. A secretary approves it in the review queue. A visitor on a 390 px phone
finds the listing on the city's Video tab, opens it and plays the clip (keyboard); the MP4 served to them carries
no location or device tag (ffprobe, exiftool).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, Route, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import Listing, ProfileId, User
from app.routes import CLIP_UPLOAD_PREFIX, city_path, wizard_path
from app.seed import _ensure_catalogues
from app.services.listings import listing_path
from app.storage.local import LocalStorage
from tests.e2e.conftest import Site, accept_age
from tests.factories import make_account, open_session, wizard_draft
from tests.video_samples import iphone_mov

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
QUEUE = "/bbitamia/revisarPublicacion"
NAME, CITY = "Olivia Clip", "puerto-montt"  # a city no other e2e test counts
UPLINK_BYTES_PER_S = 60_000  # slow enough that the progress shows for a few events
# Tags that would say where or with what a clip was shot.
PLACE_OR_DEVICE = re.compile(r"gps|location|©xyz|xyz|iso6709|make|model|software|creation_time", re.IGNORECASE)
# Records each text the upload's progress label showed (assets/clips.js draws it).
WATCH_PROGRESS = """() => {
  window.clipProgress = [];
  new MutationObserver(() => {
    const label = document.querySelector('[data-clip-progress] label');
    if (label) window.clipProgress.push(label.textContent);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((900, 1200), 60).convert("RGB").save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _context(browser: Browser, site: Site, db: Session | None = None, user: User | None = None):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(30_000)
    if user is not None and db is not None:
        token = open_session(db, user.uid)
        context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": site.url, "httpOnly": True}])
    return context


def _no_place_or_device(path: Path) -> None:
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-show_format", "-show_streams", "-show_chapters", "-of", "json", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    found = json.loads(probe.stdout)
    tags = [found.get("format", {}).get("tags", {})] + [stream.get("tags", {}) for stream in found.get("streams", [])]
    leaked = [f"{key}={value}" for group in tags for key, value in group.items() if PLACE_OR_DEVICE.search(key)]
    assert leaked == [], f"ffprobe: {leaked}"
    assert found.get("chapters", []) == []
    exif = subprocess.run(["exiftool", "-j", "-a", "-G1", str(path)], check=True, capture_output=True, text=True)
    [tags_seen] = json.loads(exif.stdout)
    leaked = [
        f"{key}={value}"
        for key, value in tags_seen.items()
        if PLACE_OR_DEVICE.search(key.split(":")[-1]) and key.split(":")[0] not in ("System", "ExifTool", "File")
    ]
    assert leaked == [], f"exiftool: {leaked}"


def test_a_clip_from_the_wizard_to_a_visitor(browser: Browser, site: Site, db: Session, tmp_path):
    _ensure_catalogues(db)
    media = LocalStorage(site.log_path.parent / "media")
    provider = LocalProvider(engine=db.get_bind())
    owner = make_account(db, provider, "clip-nueva@correo.cl", profile=ProfileId.PROFESOR)
    secretary = make_account(db, provider, "clip-secretaria@correo.cl", profile=ProfileId.SECRETARIA)
    uid = wizard_draft(db, media, owner, name=NAME, city=CITY, phone="+56 9 6200 0035", photo=_jpeg())
    clip = iphone_mov(tmp_path)

    # The advertiser, on a phone: the photo step of the draft, "Fotos y video".
    context = _context(browser, site, db, owner)
    try:
        page = context.new_page()
        # clips.js arrives only once the step shows (assets/site.js): held back here until the clip is
        # chosen, as on a slow phone, it sends the clip chosen before it ran.
        held_scripts: list[Route] = []
        page.route("**/clips.js", lambda route: held_scripts.append(route))
        page.goto(wizard_path(uid))
        page.get_by_role("button", name="7. Fotos y video").click()
        expect(page.get_by_text(re.compile(r"^Paso 7 de 9: Fotos y video"))).to_be_visible()
        videos = page.get_by_role("region", name="Videos")
        expect(videos.get_by_role("list", name="Tus videos").get_by_role("listitem")).to_have_count(0)
        page.evaluate(WATCH_PROGRESS)
        network = context.new_cdp_session(page)
        network.send("Network.enable")
        network.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": UPLINK_BYTES_PER_S},
        )
        # The upload's answer is held until the advertiser is on the next step: on a busy machine the clip could
        # be in before the step changes, however slow the uplink.
        held_uploads: list[Route] = []
        page.route(f"**{CLIP_UPLOAD_PREFIX}/**", lambda route: held_uploads.append(route))
        page.get_by_label("Agregar video").set_input_files(str(clip))
        for _ in range(200):  # until the step has asked for the script, whose request is held
            if held_scripts:
                break
            page.wait_for_timeout(100)
        assert held_scripts, "the video step never asked for clips.js"
        uploading = page.get_by_role("progressbar", name=re.compile(r"^Subiendo video… \d+ %$"))
        expect(uploading).to_have_count(0)
        held_scripts[0].continue_()
        expect(uploading).to_be_visible()
        # The advertiser goes on while it uploads: the progress follows to the next step.
        page.get_by_role("button", name="Guardar y seguir").click()
        expect(page.get_by_text(re.compile(r"^Paso 8 de 9"))).to_be_visible()
        expect(uploading).to_be_visible()
        for _ in range(200):  # until the upload has reached the held route
            if held_uploads:
                break
            page.wait_for_timeout(100)
        assert held_uploads, "the clip was never sent"
        page.unroute(f"**{CLIP_UPLOAD_PREFIX}/**")
        held_uploads[0].continue_()
        network.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        expect(uploading).to_have_count(0)
        shown = page.evaluate("window.clipProgress")
        assert any(re.fullmatch(r"Subiendo video… \d+ %", text) for text in shown), shown
        # Back on step 7: the clip arrived; the watch reads it again until it is ready, waiting for review.
        page.get_by_role("button", name="7. Fotos y video").click()
        expect(videos.get_by_text(re.compile("Procesando video…|Listo; se publicará"))).to_be_visible()
        expect(videos.get_by_role("img", name="Portada del video 1")).to_be_visible(timeout=90_000)
        expect(videos.get_by_text("Listo; se publicará cuando lo revisemos.")).to_be_visible()
        assert page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")[0] <= PHONE["width"]
        for step in (8, 9):
            page.get_by_role("button", name="Guardar y seguir").click()
            expect(page.get_by_text(re.compile(rf"^Paso {step} de 9"))).to_be_visible()
        # The summary shows the clip beside the photos.
        summary = page.get_by_role("list", name="Videos de tu publicación")
        expect(summary.get_by_role("img", name="Portada del video 1")).to_be_visible()
        page.get_by_role("button", name="Enviar a revisión").click()
        expect(page.get_by_text("Tu publicación quedó en revisión.")).to_be_visible()
    finally:
        context.close()

    # The secretary approves it in the review queue.
    context = _context(browser, site, db, secretary)
    try:
        page = context.new_page()
        page.goto(QUEUE)
        item = page.get_by_role("article", name=NAME)
        item.get_by_role("button", name="Aprobar").click()
        expect(page.get_by_text(f"Aprobaste «{NAME}».")).to_be_visible()
    finally:
        context.close()

    # A visitor on a phone plays it, from the keyboard.
    db.expire_all()
    listing = db.get(Listing, uid)
    detail = listing_path(section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=uid)
    context = _context(browser, site)
    try:
        page = context.new_page()
        page.goto(city_path(listing.section, CITY, "video"))
        accept_age(page)
        expect(page.get_by_text(NAME).first).to_be_visible()
        page.goto(detail)
        page.locator("#vista-previa").wait_for(state="detached")  # the app has taken over the served first screen
        video = page.locator("video[aria-label^='Video de ']").first
        expect(video).to_be_visible()
        # Nothing loads before a tap, nothing plays on its own, the frame's ratio is known beforehand.
        expect(video).to_have_attribute("preload", "none")
        assert video.evaluate("v => !v.autoplay && v.paused && v.readyState === 0")
        width, height = int(video.get_attribute("width") or 0), int(video.get_attribute("height") or 0)
        box = video.bounding_box()
        assert box and width and abs(box["height"] - box["width"] * height / width) < 2
        video.scroll_into_view_if_needed()
        expect(video).to_have_attribute("poster", re.compile(r"^/media/videos/.+\.webp$"))  # set once near the screen
        video.focus()
        page.keyboard.press("Space")
        page.wait_for_function(
            "() => { const v = document.querySelector(\"video[aria-label^='Video de ']\"); return v && v.currentTime > 0; }"
        )
        source = video.evaluate("v => v.currentSrc")
        served = tmp_path / "served.mp4"
        answer = context.request.get(source)
        assert answer.ok and answer.headers["content-type"].startswith("video/mp4")
        served.write_bytes(answer.body())
        _no_place_or_device(served)
        # A phone seeks with range requests: 206 and exactly those bytes.
        part = context.request.get(source, headers={"Range": "bytes=100-199"})
        assert part.status == 206 and part.headers["content-range"] == f"bytes 100-199/{len(answer.body())}"
        assert part.body() == answer.body()[100:200]

    finally:
        context.close()
