"""The browser and client checks of scripts/stack_check.sh, run against its stack through the proxy.

    .venv/bin/python scripts/stack_driver.py buckets     # the public bucket is public, the private one not
    .venv/bin/python scripts/stack_driver.py browser     # the browser loop (Playwright, Debian's chromium)
    .venv/bin/python scripts/stack_driver.py addresses   # sign-in limits by the client's real address
    .venv/bin/python scripts/stack_driver.py workers     # a worker killed mid-transcode, SMTP down, periodic jobs once
    .venv/bin/python scripts/stack_driver.py node-lost   # `docker kill` a node under load
    .venv/bin/python scripts/stack_driver.py restarts    # Redis, then PostgreSQL, restarted under a signed-in tab
    .venv/bin/python scripts/stack_driver.py scraped     # Prometheus scrapes every node and worker
    .venv/bin/python scripts/stack_driver.py alerts      # node down and error ratio: fired, e-mailed, resolved

The stack's addresses come from the environment stack_check.sh exports (STACK_SITE_URL, STACK_DATABASE_URL,
STACK_S3_URL and its keys, STACK_SMTP_PORT). The script runs the driver with the nodes' SECRET_KEY
(STACK_SECRET_KEY): the second factors it gives staff members are encrypted with it. Each check prints what
it saw and appends one row (step, figure, ok/FAILED) to the file STACK_ROWS, which the script turns into its
table. Accounts are made through the services on the stack's database (tests.factories), as the e2e tests
seed theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import boto3
import wsproto.events as ws
from aiosmtpd.controller import Controller
from PIL import Image
from playwright.sync_api import Page, expect, sync_playwright
from sqlalchemy import text
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reflex_base.constants.base import Reflex

from app.core.actor import Actor
from app.core.rut import rut_check_digit
from app.db import make_engine
from app.identity.errors import AUTH_MESSAGES
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import (
    ClipStatus,
    Listing,
    ListingReview,
    ListingStatus,
    ListingVideo,
    PeriodicRun,
    ProfileId,
    Report,
    ReviewDecision,
    User,
    utc_now,
)
from app.routes import REPORT_SLUG, city_path, legal_path
from app.services import accounts, listing_drafts, listing_videos
from app.services.listings import listing_path
from app.services.reports import MIN_FILL_SECONDS, REPORTS_PER_CLIENT
from app.services.staff.reviews import approve_listing
from app.storage.s3 import PrivateS3Storage
from app.task_queue import LISTINGS_CLOCK, MAIL, VIDEO
from bench.bench_ws_load import (
    HASHES,
    NAMESPACE,
    ROOT,
    TARGET_P95_MS,
    Closed,
    Stats,
    Visitor,
    WebSocket,
    top_cities,
    visit,
)
from bench.common import quantile
from tests.browsing import moving_context
from tests.e2e.second_factor import pass_second_factor
from tests.factories import enrol_staff, make_account, make_listing, open_session
from tests.mailbox import Mailbox, subject_of
from tests.video_samples import h264_mp4, iphone_mov

SITE = os.environ.get("STACK_SITE_URL", "http://localhost:8200")
S3_URL = os.environ.get("STACK_S3_URL", "http://localhost:8333")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
PASSWORD = "cordillera-nevada-42"
WIZARD = "/my/publicacion/nuevaPublicacion"
MY_LISTINGS = "/my/publicacion/misPublicaciones"
QUEUE = "/bbitamia/revisarPublicacion"
SAVE = "Guardar y seguir"
WIZARD_CITY = "rancagua"
LOGIN_STATE = f"{ROOT}.app___states___account____login_state"
TIMEOUT_S = 30
PHONE = {"width": 390, "height": 844}
CLIP_READY_S = 180  # uploaded through the proxy, queued, processed by a worker container
expect.set_options(timeout=30_000)


def row(label: str, figure: str, ok: bool) -> bool:
    """Print one check and append it to the script's table."""
    label = os.environ.get("STACK_LABEL", "") + label
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {figure}")
    with open(os.environ.get("STACK_ROWS", "/dev/null"), "a") as rows:
        rows.write(f"{label}\t{figure}\t{'ok' if ok else 'FAILED'}\n")
    return ok


def database() -> Session:
    return Session(make_engine(os.environ["STACK_DATABASE_URL"]), expire_on_commit=False)


def account(email: str, profile: ProfileId) -> str:
    """A verified account of ``profile`` on the stack's database, made through the services; its uid."""
    with database() as session:
        provider = LocalProvider(engine=session.get_bind())
        return make_account(session, provider, email, profile=profile, password=PASSWORD).uid


def approve_demo_queue(reviewer_uid: str, keep: str) -> int:
    """Approve, through the review service, every listing in review but ``keep``: the queue pages oldest first,
    and the demo data puts many before the one the browser sent. How many were approved."""
    with database() as session:
        waiting = session.exec(
            select(Listing.uid)
            .join(ListingReview, ListingReview.listing_uid == Listing.uid)
            .where(Listing.display_name != keep, ListingReview.decision == ReviewDecision.PENDIENTE)
        ).all()
        user = session.get_one(User, reviewer_uid)
        reviewer = Actor(uid=user.uid, email=user.email, display_name=user.display_name, profile_uid=user.profile_uid)
        for uid in set(waiting):
            approve_listing(session=session, actor=reviewer, listing_uid=uid)
        return len(set(waiting))


def public_path(name: str) -> str:
    """The detail URL of the listing called ``name``."""
    with database() as session:
        listing = session.exec(select(Listing).where(Listing.display_name == name)).one()
        return listing_path(
            section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
        )


def s3_client():
    """The stack's S3 store with the app's key."""
    return boto3.client(
        "s3",
        endpoint_url=S3_URL,
        aws_access_key_id=os.environ["STACK_S3_ACCESS_KEY"],
        aws_secret_access_key=os.environ["STACK_S3_SECRET_KEY"],
        region_name="us-east-1",
    )


def s3_keys() -> dict[str, int]:
    """How many objects each of the stack's buckets holds."""
    client = s3_client()
    return {bucket: client.list_objects_v2(Bucket=bucket).get("KeyCount", 0) for bucket in ("fotos", "fotos-privadas")}


def jpeg(seed: int) -> dict:
    """A 900×1200 noisy JPEG as a Playwright file payload."""
    noise = Image.effect_noise((900, 1200), 60).convert("RGB")
    buffer = io.BytesIO()
    Image.blend(Image.new("RGB", (900, 1200), (40 * seed % 256, 90, 160)), noise, 0.5).save(buffer, "JPEG")
    return {"name": f"foto-{seed}.jpg", "mimeType": "image/jpeg", "buffer": buffer.getvalue()}


def accept_age(page: Page) -> None:
    """Confirm the 18+ notice and wait until the app runs the page (tests.e2e.conftest.accept_age)."""
    page.get_by_role("button", name="Tengo 18 años o más, entrar").click()
    page.get_by_role("dialog").wait_for(state="detached")
    page.locator("#vista-previa").wait_for(state="detached")


def sign_in(page: Page, email: str) -> None:
    page.goto("/login")
    form = page.get_by_role("form", name="Ingresar")
    expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()
    form.get_by_label("Correo electrónico").fill(email)
    form.get_by_label("Contraseña").fill(PASSWORD)
    form.get_by_role("button", name="Ingresar").click()


def sign_up(page: Page, email: str) -> None:
    page.goto("/login?modo=registro")
    form = page.get_by_role("form", name="Crear cuenta")
    expect(form.get_by_role("button", name="Crear cuenta")).to_be_enabled()
    form.get_by_label("Correo electrónico").fill(email)
    form.get_by_label("Contraseña", exact=True).fill(PASSWORD)
    form.get_by_label("Repite la contraseña").fill(PASSWORD)
    form.get_by_label("Publicar mis avisos (anunciante)").check()
    form.get_by_label(re.compile("Confirmo que soy mayor de 18 años")).check()
    form.get_by_role("button", name="Crear cuenta").click()


def wizard(page: Page, name: str, clip: Path) -> None:
    """The nine steps of a new listing, with two photos and a clip (tests/e2e/test_advertiser.py walks each step
    in detail): the clip goes through the proxy to a node, which queues it; a worker container processes it."""

    def at_step(number: int) -> None:
        expect(page.get_by_text(re.compile(rf"^Paso {number} de 9"))).to_be_visible()

    def save(number: int) -> None:
        page.get_by_role("button", name=SAVE).click()
        at_step(number + 1)

    page.goto(WIZARD)
    at_step(1)
    page.get_by_label("RUT chileno").check()
    page.get_by_label("RUT", exact=True).fill("12.345.678-5")
    page.get_by_label("Fecha de nacimiento (dd-mm-aaaa)").fill("12-04-1996")
    page.get_by_label("Nacionalidad").select_option("Chile")
    save(1)
    page.get_by_label("Ciudad").select_option(WIZARD_CITY)
    page.get_by_label("Comuna").select_option("Codegua")
    page.get_by_label("Mujeres").check()
    save(2)
    page.get_by_role("combobox", name="Categoría").select_option(index=1)
    page.get_by_role("combobox", name="Tipo").select_option(index=1)
    save(3)
    page.get_by_label("Nombre del aviso").fill(name)
    page.get_by_label("Edad").fill("27")
    page.get_by_label("Descripción").fill("Hola, soy de Rancagua: tranquila, puntual y muy simpática. Te espero.")
    page.locator(".wizard-services input[type=checkbox]").first.check()
    save(4)
    page.get_by_label("Tarifa por hora").fill("85000")
    save(5)
    page.get_by_label("No atiendo el Lunes").uncheck()
    page.get_by_label("Desde el Lunes").fill("10:00")
    page.get_by_label("Hasta el Lunes").fill("20:00")
    save(6)
    page.locator(".upload-zone input[type=file]").set_input_files([jpeg(1), jpeg(2)])
    photos = page.get_by_role("list", name="Tus fotos").get_by_role("listitem").filter(has=page.get_by_role("img"))
    expect(photos).to_have_count(2)
    videos = page.get_by_role("region", name="Videos")
    page.get_by_label("Agregar video").set_input_files(str(clip))
    expect(videos.get_by_role("img", name="Portada del video 1")).to_be_visible(timeout=CLIP_READY_S * 1000)
    expect(videos.get_by_text("Listo; se publicará cuando lo revisemos.")).to_be_visible()
    save(7)
    page.get_by_label("Teléfono celular").fill("+56 9 8765 1234")
    save(8)
    page.get_by_role("button", name="Enviar a revisión").click()
    page.wait_for_url(re.compile(re.escape(f"{SITE}{MY_LISTINGS}") + "/?$"))


def browser_loop() -> None:
    """City page, sign-up and sign-in, the wizard with photos into S3, approval, the public page."""
    mailbox = Mailbox()
    smtp = Controller(
        mailbox,
        hostname=os.environ.get("STACK_SMTP_HOST", "127.0.0.1"),
        port=int(os.environ.get("STACK_SMTP_PORT", "2526")),
    )
    smtp.start()
    served: list[tuple[str, str]] = []  # (path, node) of each answer from the site

    def note(response) -> None:
        if response.url.startswith(SITE) and response.request.resource_type in ("document", "fetch", "xhr"):
            served.append((urlsplit(response.url).path, response.headers.get("x-served-by", "?")))

    email, secretary, name = f"alta-{uuid.uuid4().hex[:8]}@correo.cl", "secretaria@correo.cl", "Rocío Nodo"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = moving_context(browser, base_url=SITE, locale="es-CL", viewport={"width": 1280, "height": 900})
            context.on("response", note)
            page = context.new_page()
            steps: list[tuple[str, Callable[[], str]]] = []

            def city() -> str:
                page.goto("/escorts/santiago-de-chile")
                accept_age(page)
                links = page.locator('a[href*="/escorts/santiago-de-chile/"]')
                expect(links.first).to_be_visible()
                return f"{links.count()} listing links after hydration"

            def signup() -> str:
                sign_up(page, email)
                page.wait_for_url(f"{SITE}/login/auth/signup-sucessful")
                link = mailbox.wait_for_link(email, "verifyEmail", timeout=TIMEOUT_S)
                page.goto(link.replace(SITE, ""))
                expect(page.get_by_role("status")).to_contain_text("Tu correo quedó confirmado")
                return "e-mailed link confirmed"

            def signin() -> str:
                sign_in(page, email)
                page.wait_for_url(re.compile(re.escape(f"{SITE}{MY_LISTINGS}") + "/?$"))
                expect(page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
                return "landed on Mis publicaciones"

            def listing() -> str:
                before = s3_keys()
                with tempfile.TemporaryDirectory() as folder:
                    wizard(page, name, iphone_mov(Path(folder)))
                expect(page.get_by_text("Tu publicación quedó en revisión")).to_be_visible()
                after = s3_keys()
                added = {bucket: after[bucket] - before[bucket] for bucket in after}
                # Two photos in their sizes, and the clip's MP4 and poster sizes.
                if added["fotos"] < 4:
                    raise AssertionError(f"objects added per bucket: {added}")
                return f"sent to review, its clip processed by a worker; S3 objects added: {added}"

            def approval() -> str:
                reviewer = account(secretary, ProfileId.SECRETARIA)
                with database() as session:
                    enrol_staff(session, reviewer)  # a known second factor (issue 20 §1)
                cleared = approve_demo_queue(reviewer, name)
                staff = moving_context(browser, base_url=SITE, locale="es-CL", viewport={"width": 1280, "height": 900})
                staff.on("response", note)
                desk = staff.new_page()
                sign_in(desk, secretary)
                with database() as session:
                    pass_second_factor(desk, session, secretary)
                desk.wait_for_url(re.compile(re.escape(f"{SITE}/bbitamia/publicacion") + "/?$"))
                desk.goto(QUEUE)
                desk.get_by_role("article", name=name).get_by_role("button", name="Aprobar").click()
                expect(desk.get_by_text(f"Aprobaste «{name}».")).to_be_visible()
                staff.close()
                return f"approved from the review queue (after {cleared} demo items approved by the service)"

            def public_page() -> str:
                visitor = moving_context(
                    browser, base_url=SITE, locale="es-CL", viewport={"width": 1280, "height": 900}
                )
                visitor.on("response", note)
                view = visitor.new_page()
                view.goto(public_path(name))
                accept_age(view)
                expect(view.get_by_role("heading", name=name, level=1)).to_be_visible()
                # The app serves public photos under /media from the S3 bucket.
                photo = view.locator('img[src*="/media/photos/"]').first
                expect(photo).to_be_visible()
                view.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=photo.element_handle())
                key = urlsplit(photo.get_attribute("src")).path.removeprefix("/media/")
                size = s3_client().head_object(Bucket="fotos", Key=key)["ContentLength"]
                visitor.close()
                return f"its photo shows, from S3 fotos/{key[:12]}… ({size // 1000} kB)"

            def clip_plays() -> str:
                visitor = moving_context(
                    browser, base_url=SITE, locale="es-CL", viewport=PHONE, has_touch=True, is_mobile=True
                )
                visitor.on("response", note)
                view = visitor.new_page()
                with database() as session:
                    listing = session.exec(select(Listing).where(Listing.display_name == name)).one()
                view.goto(city_path(listing.section, listing.city_slug, "video"))
                accept_age(view)
                expect(view.get_by_text(name).first).to_be_visible()
                view.goto(public_path(name))
                view.locator("#vista-previa").wait_for(state="detached")  # the app took over the served screen
                video = view.locator("video[aria-label^='Video de ']").first
                video.scroll_into_view_if_needed()
                expect(video).to_have_attribute("poster", re.compile(r"^/media/videos/.+\.webp$"))
                video.focus()
                view.keyboard.press("Space")
                view.wait_for_function(
                    "() => { const v = document.querySelector(\"video[aria-label^='Video de ']\");"
                    " return v && v.currentTime > 0; }"
                )
                played = video.evaluate("v => v.currentTime")
                source = video.evaluate("v => v.currentSrc")
                part = visitor.request.get(source, headers={"Range": "bytes=100-199"})
                status, size, node = part.status, len(part.body()), part.headers.get("x-served-by", "?")
                visitor.close()
                if status != 206 or size != 100:
                    raise AssertionError(f"range request: {status}, {size} bytes")
                return f"on the Video tab; played to {1000 * played:.0f} ms at 390 px; Range answered 206 by {node}"

            steps = [
                ("browser: city page hydrated through the proxy", city),
                ("browser: sign-up, e-mailed confirmation", signup),
                ("browser: sign-in", signin),
                ("browser: wizard, photos and an iPhone clip land in S3", listing),
                ("browser: the secretary approves", approval),
                ("browser: the listing on its public page", public_page),
                ("browser: the clip, published after approval, plays through the proxy", clip_plays),
            ]
            for label, action in steps:
                try:
                    row(label, action(), True)
                except Exception as error:  # any failure is this step's figure
                    row(label, f"{type(error).__name__}: {str(error).splitlines()[0][:60]}", False)
                    break
            browser.close()
    finally:
        smtp.stop()
    print("answers and the node that served each:")
    for path, node in served:
        print(f"  {node:6} {path}")
    nodes = sorted({node for _, node in served})
    if os.environ.get("STACK_PROXY") == "0":  # the app alone: no proxy, no X-Served-By
        return
    row("browser: successive requests reach different nodes", f"{len(served)} answers from {nodes}", len(nodes) > 1)


def buckets() -> None:
    """Anonymous visitors read the public bucket, never the private one."""
    client, seen = s3_client(), {}
    for bucket in ("fotos", "fotos-privadas"):
        client.put_object(Bucket=bucket, Key="sonda-stack-check.txt", Body=b"sonda")
        try:
            with urllib.request.urlopen(f"{S3_URL}/{bucket}/sonda-stack-check.txt", timeout=TIMEOUT_S) as answer:
                seen[bucket] = answer.status
        except urllib.error.HTTPError as error:
            seen[bucket] = error.code
        client.delete_object(Bucket=bucket, Key="sonda-stack-check.txt")
    figure = f"anonymous GET: public {seen['fotos']}, private {seen['fotos-privadas']}"
    row("S3: public and private buckets", figure, seen == {"fotos": 200, "fotos-privadas": 403})


class BoundSocket(WebSocket):
    """bench.bench_ws_load's websocket client, connecting from a chosen local address."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source
        self.node = "?"  # the proxy's X-Served-By on the upgrade's answer

    async def open(self, host, port, target, headers, protocol) -> None:
        """TCP connect from ``source`` and the websocket upgrade."""
        self.reader, self.writer = await asyncio.open_connection(host, port, local_addr=(self.source, 0))
        request = ws.Request(host=f"localhost:{port}", target=target, extra_headers=headers, subprotocols=[protocol])
        self.writer.write(self.conn.send(request))
        while True:
            events = await self._events()
            for index, event in enumerate(events):
                if isinstance(event, ws.AcceptConnection):
                    self.early = events[index + 1 :]
                    served = dict(event.extra_headers).get(b"x-served-by", b"?")
                    self.node = served.decode()
                    return
                if isinstance(event, ws.RejectConnection):
                    raise Closed(f"websocket refused: HTTP {event.status_code}")


async def sign_in_attempts(source: str, email: str, attempts: int, forged: bool = False) -> list[str]:
    """Wrong-password sign-ins over one websocket from ``source``; the form's message after each.

    ``forged`` sends a different made-up X-Forwarded-For each time: the proxy appends the address it
    saw, and the app must count by that one.
    """
    parts = urlsplit(SITE)
    messages = []
    for attempt in range(attempts):
        socket = BoundSocket(source)
        headers = [(b"origin", SITE.encode()), (b"user-agent", b"stack-check")]
        if forged:
            headers.append((b"x-forwarded-for", f"203.0.113.{attempt + 1}".encode()))
        target = f"{NAMESPACE}/?EIO=4&transport=websocket&token={uuid.uuid4()}"
        await asyncio.wait_for(socket.open("127.0.0.1", parts.port, target, headers, Reflex.VERSION), TIMEOUT_S)
        try:
            router = {"pathname": "/login", "asPath": "/login"}
            while not await socket.receive():
                pass
            boot = {"name": f"{ROOT}.hydrate_and_load", "payload": {}, "router_data": router}
            socket.send(f"40{NAMESPACE}," + json.dumps({"event": boot}))
            await _login_delta(socket, lambda delta: delta.get("busy_rx_state_") is False)
            form = {"email": email, "password": "no-es-la-clave"}
            event = {"name": f"{LOGIN_STATE}.sign_in", "payload": {"form_data": form}, "router_data": router}
            socket.send(f"42{NAMESPACE}," + json.dumps(["event", event]))
            delta = await _login_delta(socket, lambda delta: bool(delta.get("error_rx_state_")))
            messages.append(delta["error_rx_state_"])
        finally:
            await socket.close()
    return messages


async def _login_delta(socket: WebSocket, done) -> dict:
    """The first update of the login form's state that satisfies ``done``."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        for message in await asyncio.wait_for(socket.receive(), TIMEOUT_S):
            if message == "2":
                socket.send("3")
            elif message.startswith(f"42{NAMESPACE},"):
                name, *args = json.loads(message[len(NAMESPACE) + 3 :])
                delta = ((args[0] if args else {}).get("delta") or {}).get(LOGIN_STATE)
                if name == "event" and delta and done(delta):
                    return delta
            elif message.startswith(f"44{NAMESPACE}"):
                raise Closed(message[:120])
    raise TimeoutError("no answer from the login form")


def addresses() -> None:
    """Twenty visitors from twenty addresses are not throttled together; one address is, whatever it forges."""
    email = f"victima-{uuid.uuid4().hex[:8]}@correo.cl"
    account(email, ProfileId.CLIENTE)
    wrong, throttled = AUTH_MESSAGES["invalid-credential"], "Demasiados intentos"

    async def run() -> tuple[list[str], list[str]]:
        many = await asyncio.gather(*(sign_in_attempts(f"127.0.0.{10 + i}", email, 1) for i in range(20)))
        one = await sign_in_attempts("127.0.0.60", email, 8, forged=True)
        return [messages[0] for messages in many], one

    many, one = asyncio.run(run())
    answered = sum(message == wrong for message in many)
    row(
        "addresses: 20 visitors from 20 addresses, 1 wrong sign-in each",
        f"{answered}/20 told 'wrong password'",
        answered == 20,
    )
    first = next((index + 1 for index, message in enumerate(one) if message.startswith(throttled)), None)
    row(
        "addresses: 1 address (forging X-Forwarded-For), 8 tries",
        f"throttled from attempt {first}" if first else f"never throttled: {one}",
        first is not None,
    )


# --- The writer during the node kill -------------------------------------------------------------
REPORT_STATE = f"{ROOT}.app___states___report____report_state"
WIZARD_STATE = f"{ROOT}.app___states___advertiser___wizard____wizard_state"
REPORT_PAGE = legal_path(REPORT_SLUG)
# What the page says when its socket drops while an event it sent is unanswered (assets/site.js, shown at once;
# tests/e2e/test_write_in_flight.py sees it in Chromium). The writers here are not browsers: a write whose
# socket dropped before its answer is one the page would have told its user about with this alert.
WRITE_CUT_ALERT = "Se cortó la conexión mientras guardábamos"
WIZARD_STEP = 4  # the step the wizard writers save again and again (name, age, description)
# Tabs writing during the kill: about a third of each on the node killed (the proxy spreads connections).
REPORT_WRITERS = 9
WIZARD_WRITERS = 6


@dataclass
class Write:
    """One write a user made through the proxy, and what their client saw of it."""

    kind: str  # "report" or "wizard"
    marker: str  # the text that finds it in the database
    node: str = "?"  # the node its socket was on
    outcome: str = ""  # confirmed | refused | in flight | unanswered
    message: str = ""  # the Spanish message it got (refused)
    notice: bool = False  # in flight: the socket dropped with it unanswered, so the page shows WRITE_CUT_ALERT
    saved: bool | None = None  # in flight or unanswered: whether the database has it


def _delta(update: object, state: str) -> dict:
    return ((update.get("delta") or {}).get(state) or {}) if isinstance(update, dict) else {}


def shown_message(update: object, state: str) -> str:
    """The Spanish message an update shows for ``state``'s form: its error, a field's error or an error toast."""
    delta = _delta(update, state)
    if delta.get("error_rx_state_"):
        return delta["error_rx_state_"]
    if delta.get("field_errors_rx_state_"):
        return "; ".join(delta["field_errors_rx_state_"].values())
    for event in update.get("events") or [] if isinstance(update, dict) else []:
        text = json.dumps(event.get("payload", {}), ensure_ascii=False)
        if "toast" in text and "error" in text:
            return text[:120]
    return ""


class WriterTab:
    """A browser tab that writes, as the frontend speaks to the site through the proxy: one token kept across
    reconnects, one source address (the proxy forwards it, and the report limits count by it)."""

    def __init__(self, path: str, source: str, cookie: str = "") -> None:
        self.path, self.source, self.cookie = path, source, cookie
        self.token = str(uuid.uuid4())
        self.socket: BoundSocket | None = None
        self.updates: asyncio.Queue = asyncio.Queue()
        self.pump: asyncio.Task | None = None

    @property
    def node(self) -> str:
        return self.socket.node if self.socket else "?"

    def _router(self) -> dict:
        return {"pathname": self.path, "asPath": self.path}

    async def _pump(self, socket: BoundSocket, updates: asyncio.Queue) -> None:
        try:
            while True:
                for message in await socket.receive():
                    if message == "2":  # engine.io ping
                        socket.send("3")
                    elif message.startswith(f"40{NAMESPACE}"):
                        updates.put_nowait("connected")
                    elif message.startswith(f"42{NAMESPACE},"):
                        name, *args = json.loads(message[len(NAMESPACE) + 3 :])
                        if name == "event" and args:
                            updates.put_nowait(args[0])
                    elif message.startswith(f"44{NAMESPACE}"):
                        updates.put_nowait(Closed(message[:120]))
        except (Closed, OSError, ConnectionError) as error:
            updates.put_nowait(Closed(str(error) or type(error).__name__))

    async def _open(self) -> None:
        """The websocket, engine.io and socket.io handshakes; the CONNECT packet carries the hydrate event."""
        self.updates = asyncio.Queue()
        self.socket = BoundSocket(self.source)
        headers = [(b"origin", SITE.encode()), (b"user-agent", b"stack-check writer")]
        if self.cookie:
            headers.append((b"cookie", self.cookie.encode()))
        target = f"{NAMESPACE}/?EIO=4&transport=websocket&token={self.token}"
        port = urlsplit(SITE).port or 80
        await asyncio.wait_for(self.socket.open("127.0.0.1", port, target, headers, Reflex.VERSION), TIMEOUT_S)
        opened: list[str] = []
        while not opened:
            opened = await asyncio.wait_for(self.socket.receive(), TIMEOUT_S)
        self.pump = asyncio.create_task(self._pump(self.socket, self.updates))
        boot = {"name": f"{ROOT}.hydrate_and_load", "payload": {}, "router_data": self._router()}
        self.socket.send(f"40{NAMESPACE}," + json.dumps({"event": boot}))
        await self.wait(lambda update: update == "connected")

    async def connect(self, ready: Callable[[object], bool]) -> int:
        """Connect as the frontend does until the page is ready (``ready`` of an update); the failed attempts."""
        await self.close()  # a socket that dropped
        failed = 0
        while True:
            try:
                await self._open()
                break
            except (Closed, OSError, TimeoutError, ConnectionError):
                await self.close()
                failed += 1
                if failed > 30:
                    raise
                await asyncio.sleep(0.2 * min(failed, 10))
        await self.wait(ready)
        return failed

    async def wait(self, done: Callable[[object], bool], timeout: float = TIMEOUT_S) -> object:
        """The first update for which ``done`` is true; Closed when the socket closes first."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("no answer")
            update = await asyncio.wait_for(self.updates.get(), left)
            if isinstance(update, Closed):
                raise update
            if done(update):
                return update

    def send(self, name: str, payload: dict) -> None:
        self.socket.send(
            f"42{NAMESPACE}," + json.dumps(["event", {"name": name, "payload": payload, "router_data": self._router()}])
        )

    async def write(
        self, write: Write, name: str, payload: dict, state: str, confirmed: Callable[[dict], bool]
    ) -> object:
        """Send one write and note what the client saw: its confirmation, a Spanish message, a dropped socket
        (the write was in flight) or nothing within the time a person waits. The answering update, if any."""
        write.node = self.node

        def answered(update: object) -> bool:
            if confirmed(_delta(update, state)):
                write.outcome = "confirmed"
                return True
            write.message = shown_message(update, state)
            if write.message:
                write.outcome = "refused"
            return bool(write.message)

        try:
            self.send(name, payload)
            await self.socket.writer.drain()
            return await self.wait(answered)
        except TimeoutError:
            write.outcome = "unanswered"
        except (Closed, OSError, ConnectionError):
            write.outcome = "in flight"
        return None

    async def close(self) -> None:
        if self.pump is not None:
            self.pump.cancel()
            self.pump = None
        if self.socket is not None:
            await self.socket.close()
            self.socket = None


def report_addresses() -> Iterator[str]:
    """Loopback addresses for the report writers' tabs, none of those the address checks use (127.0.0.x)."""
    for third, fourth in itertools.product(range(2, 250), range(1, 255)):
        yield f"127.0.{third}.{fourth}"


async def report_writer(index: int, until: float, writes: list[Write], addresses: Iterator[str]) -> None:
    """Reports through the public form, as many as one address may send, then from the next address."""

    def hydrated(update: object) -> bool:
        return "sent_rx_state_" in _delta(update, REPORT_STATE)

    sent = 0
    while time.perf_counter() < until:
        tab = WriterTab(REPORT_PAGE, next(addresses))
        try:
            await tab.connect(hydrated)
            for _ in range(REPORTS_PER_CLIENT.amount):
                await asyncio.sleep(MIN_FILL_SECONDS + random.uniform(0.5, 2))  # the time a person takes to write
                if time.perf_counter() >= until:
                    return
                sent += 1
                marker = f"escritor {index}, reporte {sent}, {uuid.uuid4().hex[:8]}"
                write = Write("report", marker)
                writes.append(write)
                form = {
                    "kind": "otro",
                    "listing_uid": "",
                    "message": f"Prueba de la caída de un nodo ({marker}): este aviso parece falso.",
                    "contact": "",
                    "website": "",
                }
                await tab.write(
                    write,
                    f"{REPORT_STATE}.submit",
                    {"form_data": form},
                    REPORT_STATE,
                    lambda d: d.get("sent_rx_state_") is True,
                )
                if write.outcome == "in flight":
                    write.notice = True
                    await tab.connect(hydrated)
                elif write.outcome == "confirmed":
                    # "Enviar otro reporte": the empty form shows (and the form's timer starts) once it is answered.
                    tab.send(f"{REPORT_STATE}.write_again", {})
                    await tab.wait(lambda update: _delta(update, REPORT_STATE).get("sent_rx_state_") is False)
                else:
                    break  # refused or unanswered: this visitor gives up
        except (Closed, OSError, TimeoutError, ConnectionError) as error:
            print(f"  report writer {index}: {type(error).__name__} {error}")
        finally:
            await tab.close()


def wizard_account(index: int) -> tuple[str, str]:
    """An advertiser with a draft saved up to the wizard's step 4 (through the services); (session token, listing uid)."""
    email = f"escritora-{index}-{uuid.uuid4().hex[:6]}@correo.cl"
    owner = account(email, ProfileId.PROFESOR)
    body = str(20_000_000 + random.randrange(1_000_000))
    with database() as session:
        options = listing_drafts.wizard_options(session=session)
        steps = {
            1: {
                "document": "rut",
                "rut": f"{body}-{rut_check_digit(body)}",
                "birth_date": "1995/03/20",
                "nationality": "Chile",
            },
            2: {"city_slug": WIZARD_CITY, "commune": "Codegua", "section": "mujeres"},
            3: {"tier_uid": options.tiers[0][0], "type_uid": options.types[0][0]},
        }
        uid = None
        for step, values in steps.items():
            uid = listing_drafts.save_step(session=session, owner_uid=owner, uid=uid, step=step, values=values)
        return open_session(session, owner), uid or ""


def wizard_description(marker: str) -> str:
    return f"Aviso de prueba ({marker}): tranquila, puntual y muy simpática. Te espero en Rancagua."


def draft_description(uid: str) -> str:
    with database() as session:
        return session.get(Listing, uid).description


async def wizard_writer(index: int, token: str, uid: str, until: float, writes: list[Write]) -> None:
    """Saves of the wizard's step 4, each with a new description, going back to the step after each."""

    def loaded(update: object) -> bool:
        return _delta(update, WIZARD_STATE).get("loaded_rx_state_") is True

    def at_step_4(update: object) -> bool:
        return _delta(update, WIZARD_STATE).get("step_rx_state_") == WIZARD_STEP

    tab = WriterTab(WIZARD, "127.0.0.1", cookie=f"{SESSION_COOKIE}={token}")
    try:
        # The wizard opens at the first unsaved step: 4 for the seeded draft, 5 once step 4 was saved.
        await tab.connect(loaded)
        tab.send(f"{WIZARD_STATE}.go_to", {"step": WIZARD_STEP})
        await tab.wait(at_step_4)
        for number in itertools.count(1):
            await asyncio.sleep(random.uniform(1, 3))
            if time.perf_counter() >= until:
                return
            write = Write("wizard", f"escritora {index}, versión {number}")
            writes.append(write)
            form = {
                "step": str(WIZARD_STEP),
                "display_name": "Escritora Nodo",
                "age": "27",
                "description": wizard_description(write.marker),
            }
            await tab.write(
                write,
                f"{WIZARD_STATE}.save",
                {"form_data": form},
                WIZARD_STATE,
                lambda d: d.get("step_rx_state_") == WIZARD_STEP + 1,
            )
            if write.outcome == "in flight":
                write.notice = True
                await tab.connect(loaded)
                # Reconnected, the wizard shows the draft as the database has it: the user sees whether it was kept.
                write.saved = await asyncio.to_thread(draft_description, uid) == form["description"]
            elif write.outcome != "confirmed":
                if write.outcome == "unanswered":
                    write.saved = await asyncio.to_thread(draft_description, uid) == form["description"]
                return  # refused or unanswered: this advertiser stops
            tab.send(f"{WIZARD_STATE}.go_to", {"step": WIZARD_STEP})
            await tab.wait(at_step_4)
    except (Closed, OSError, TimeoutError, ConnectionError) as error:
        print(f"  wizard writer {index}: {type(error).__name__} {error}")
    finally:
        await tab.close()


def check_writes(writes: list[Write], drafts: dict[int, str], victim: str) -> None:
    """The two rows of the writer: confirmed writes all in the database; no write in flight lost silently."""
    with database() as session:
        messages = session.exec(
            select(Report.message).where(col(Report.message).like("Prueba de la caída de un nodo (%"))
        ).all()
        descriptions = {index: session.get(Listing, uid).description for index, uid in drafts.items()}
    stored_reports = "\n".join(messages)
    for write in writes:
        if write.kind == "report" and write.saved is None:
            write.saved = f"({write.marker})" in stored_reports
    # A wizard save overwrites the one before: the last one confirmed must be what the database holds, or a later one.
    last_confirmed: dict[int, int] = {}
    sent: dict[int, list[str]] = defaultdict(list)
    for write in writes:
        if write.kind == "wizard":
            index = int(write.marker.split()[1].rstrip(","))
            sent[index].append(write.marker)
            if write.outcome == "confirmed":
                last_confirmed[index] = len(sent[index])
    missing = [
        write.marker for write in writes if write.kind == "report" and write.outcome == "confirmed" and not write.saved
    ]
    for index, number in last_confirmed.items():
        kept = next(
            (n for n, marker in enumerate(sent[index], 1) if wizard_description(marker) == descriptions[index]), 0
        )
        if kept < number:
            missing.append(f"escritora {index}, versión {number}")
    outcomes = Counter(write.outcome for write in writes)
    confirmed = {
        kind: sum(w.outcome == "confirmed" and w.kind == kind for w in writes) for kind in ("report", "wizard")
    }
    print(f"  writes: {dict(outcomes)}; missing: {missing[:5]}")
    for write in writes:
        if write.outcome != "confirmed":
            print(
                f"  {write.kind} on {write.node}: {write.outcome} saved={write.saved} notice={write.notice} {write.message[:80]}"
            )
    row(
        "node lost: writes a user saw confirmed are in the database",
        f"{sum(confirmed.values()) - len(missing)}/{sum(confirmed.values())} ({confirmed['report']} reports, "
        f"{confirmed['wizard']} wizard steps)",
        sum(confirmed.values()) > 0 and not missing,
    )
    in_flight = [write for write in writes if write.outcome in ("in flight", "unanswered")]
    node = victim.removeprefix("stack-")
    on_victim = sum(write.node == node for write in in_flight)
    kept = sum(bool(write.saved) for write in in_flight)
    told = sum(not write.saved and write.notice for write in in_flight)
    silent = [write for write in in_flight if not write.saved and not write.notice]
    refused = [write for write in writes if write.outcome == "refused"]
    row(
        "node lost: a write in flight gets a Spanish error, never a silent loss",
        f"{len(in_flight)} without an answer ({on_victim} on {node}): {kept} saved, {told} lost with «{WRITE_CUT_ALERT}…»,"
        f" {len(silent)} lost silently"
        f"; {len(refused)} refused with a message",
        bool(in_flight) and not silent,
    )


def node_lost() -> None:
    """Visitors as bench_ws_load's through the proxy, and writers sending reports and wizard steps; a node is
    killed mid-run.

    Figures: connections made after the kill (visitors on the dead node reconnect through the proxy),
    failed events, p95 of the events answered 25-30 s after the kill against the target, the writes
    users saw confirmed that the database lacks, and what became of the writes left without an answer.
    """
    visitors = int(os.environ.get("STACK_VISITORS", "500"))
    rate, warmup, after = 20.0, 20.0, 40.0
    with database() as session:
        cities = top_cities(session, 3, 10)
    # The compiled state hashes the frontend sends on hydrating (as bench_ws_load reads them from its build).
    compiled = subprocess.run(
        ["docker", "exec", "stack-node1", "cat", "/srv/app/.web/utils/context.jsx"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = HASHES.search(compiled)
    hashes = json.loads(found.group(1)) if found else None
    victim = "stack-node1"  # background jobs run in the worker containers: every node is alike
    print(f"killing {victim}")
    answered: list[tuple[float, float]] = []  # (when answered, round trip in ms) of every event

    class Timed(list):
        def append(self, ms: float) -> None:
            answered.append((time.perf_counter(), ms))
            super().append(ms)

    stats = Stats()
    stats.times = defaultdict(Timed)
    writes: list[Write] = []
    advertisers = {index: wizard_account(index) for index in range(WIZARD_WRITERS)}  # (token, draft uid)

    async def think() -> None:  # the visitors: 1-3 s between actions
        await asyncio.sleep(random.uniform(1, 3))

    async def run() -> tuple[float, int]:
        started = time.perf_counter()
        until = started + visitors / rate + warmup + after
        addresses = report_addresses()
        crowd = [asyncio.create_task(report_writer(index, until, writes, addresses)) for index in range(REPORT_WRITERS)]
        crowd += [
            asyncio.create_task(wizard_writer(index, token, uid, until, writes))
            for index, (token, uid) in advertisers.items()
        ]
        for index in range(visitors):
            visitor = Visitor(SITE, cities, hashes, Reflex.VERSION, stats, 10.0)
            crowd.append(asyncio.create_task(visit(visitor, until, think)))
            await asyncio.sleep(max(0.0, started + (index + 1) / rate - time.perf_counter()))
        await asyncio.sleep(warmup)
        before = stats.connections_ok
        killed = time.perf_counter()
        await asyncio.to_thread(subprocess.run, ["docker", "kill", victim], check=True, capture_output=True)
        print(f"{victim} killed with {stats.open_sockets} sockets open")
        await asyncio.gather(*crowd)
        return killed, stats.connections_ok - before

    killed, reconnected = asyncio.run(run())
    failed = sum(stats.failures.values())
    for (kind, reason), count in stats.failures.most_common(8):
        print(f"  failure {kind}: {reason} x{count}")
    row(
        f"node lost: {visitors} visitors reconnect through the proxy",
        f"{reconnected} connections after the kill, {failed} failed events of {stats.events_ok + failed}",
        reconnected > 0 and stats.open_sockets == 0,
    )
    before = [ms for at, ms in answered if killed - 10 <= at < killed]
    late = [ms for at, ms in answered if killed + 25 <= at < killed + 30]
    p95_before = quantile(before, 0.95) if before else float("inf")
    p95_late = quantile(late, 0.95) if late else float("inf")
    row(
        "node lost: p95 back under 150 ms within 30 s",
        f"p95 {p95_before:.0f} ms before the kill, {p95_late:.0f} ms 25-30 s after ({len(late)} events)",
        bool(late) and p95_late < TARGET_P95_MS,
    )
    check_writes(writes, {index: uid for index, (_, uid) in advertisers.items()}, victim)
    subprocess.run(["docker", "start", victim], check=True, capture_output=True)  # the stack whole again


WORKERS = ("stack-worker1", "stack-worker2")
# A stalled job is retried by the next run of queue.retry_stalled (every minute) once its worker's heartbeat is
# STALLED_AFTER_SECONDS old, and the transcode then takes its time on a loaded machine.
STALLED_DEADLINE_S = 6 * 60


def _job_rows(session: Session, task: str) -> list:
    session.rollback()
    return session.exec(
        text("SELECT id, status, attempts FROM procrastinate_jobs WHERE task_name = :task ORDER BY id").bindparams(
            task=task
        )
    ).all()


def _until(what: str, check: Callable[[], bool], deadline_s: float) -> float:
    """Seconds until ``check()`` holds; TimeoutError naming ``what`` past the deadline."""
    started = time.perf_counter()
    while not check():
        if time.perf_counter() - started > deadline_s:
            raise TimeoutError(f"{what} not within {deadline_s:.0f} s")
        time.sleep(0.5)
    return time.perf_counter() - started


def worker_killed_mid_transcode() -> None:
    """A clip queued; the worker container transcoding it is killed: another worker processes it, once."""
    owner = account(f"clip-{uuid.uuid4().hex[:8]}@correo.cl", ProfileId.PROFESOR)
    private = PrivateS3Storage(client=s3_client(), bucket="fotos-privadas", public_base_url="")
    with tempfile.TemporaryDirectory() as folder, database() as session:
        listing = make_listing(session, session.get_one(User, owner), status=ListingStatus.BORRADOR.value)
        # Long enough to be caught mid-transcode: tens of seconds of one core's work.
        source = h264_mp4(Path(folder), size="1280x720", seconds=30, noise=True)
        clip_uid = listing_videos.start_clip(
            session=session, private_storage=private, owner_uid=owner, uid=listing.uid, source=source
        )
        try:
            _until(
                "a worker taking the clip", lambda: [r.status for r in _job_rows(session, VIDEO.name)] == ["doing"], 120
            )
            [job] = _job_rows(session, VIDEO.name)
            logs = {
                name: subprocess.run(["docker", "logs", name], capture_output=True, text=True).stderr
                for name in WORKERS
            }
            victim = next((name for name, log in logs.items() if f"{VIDEO.name}[{job.id}]" in log), WORKERS[0])
            subprocess.run(["docker", "kill", victim], check=True, capture_output=True)
            killed = time.perf_counter()

            def ready() -> bool:
                session.rollback()
                clip = session.get(ListingVideo, clip_uid)
                session.expire_all()
                return clip is not None and clip.status == ClipStatus.LISTA

            _until("the clip processed by the other worker", ready, STALLED_DEADLINE_S)
            clip = session.get_one(ListingVideo, clip_uid)
            served = sorted(key for key in s3_object_keys("fotos") if clip_uid in key)
            once = served == sorted([clip.video_key or "", *listing_videos.poster_keys(clip)])
            originals = [key for key in s3_object_keys("fotos-privadas") if clip_uid in key]
            row(
                "worker killed mid-transcode: another worker processes the clip, once",
                f"{victim} killed; clip ready {time.perf_counter() - killed:.0f} s later, {len(served)} files served,"
                f" {len(originals)} original left, job attempts {job.attempts}",
                once and not originals and _job_rows(session, VIDEO.name) == [],
            )
        except TimeoutError as error:
            row("worker killed mid-transcode: another worker processes the clip, once", str(error), False)
        finally:
            for name in WORKERS:
                subprocess.run(["docker", "start", name], capture_output=True)


def s3_object_keys(bucket: str) -> list[str]:
    pages = s3_client().get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def mail_through_smtp_outage() -> None:
    """SMTP down while a sign-up's verification is queued: retried with backoff, it arrives once SMTP is back."""
    email = f"sin-correo-{uuid.uuid4().hex[:8]}@correo.cl"
    data = {"email": email, "password": PASSWORD, "password_confirm": PASSWORD, "profile": "profesor", "adult": True}
    with database() as session:
        accounts.sign_up(session=session, provider=LocalProvider(engine=session.get_bind()), data=data, client_hash="x")
        try:
            _until("two failed deliveries", lambda: any(r.attempts >= 2 for r in _job_rows(session, MAIL.name)), 120)
            attempts = max(r.attempts for r in _job_rows(session, MAIL.name))
        except TimeoutError as error:
            row("SMTP down: a verification queued meanwhile arrives once it is back", str(error), False)
            return
        mailbox = Mailbox()
        smtp = Controller(
            mailbox,
            hostname=os.environ.get("STACK_SMTP_HOST", "127.0.0.1"),
            port=int(os.environ.get("STACK_SMTP_PORT", "2526")),
        )
        smtp.start()  # the mail server is back
        try:
            waited = _until("the verification e-mail", lambda: bool(mailbox.to(email)), 300)
            row(
                "SMTP down: a verification queued meanwhile arrives once it is back",
                f"{attempts} failed attempts while down; delivered {waited:.0f} s after SMTP came back,"
                f" {len(mailbox.to(email))} message(s)",
                len(mailbox.to(email)) == 1,
            )
        except TimeoutError as error:
            row("SMTP down: a verification queued meanwhile arrives once it is back", str(error), False)
        finally:
            smtp.stop()


def periodic_once() -> None:
    """Two workers defer each periodic task once per period, and the clock has run lately."""
    with database() as session:
        doubles = session.exec(
            text(
                "SELECT count(*) FROM (SELECT task_name, defer_timestamp FROM procrastinate_periodic_defers"
                " GROUP BY task_name, defer_timestamp HAVING count(*) > 1) d"
            )
        ).one()[0]
        clock = session.get(PeriodicRun, LISTINGS_CLOCK.name)
        age = (utc_now() - clock.last_success_at).total_seconds() if clock and clock.last_success_at else None
    row(
        "2 workers: each periodic job deferred once per period",
        f"{doubles} periods deferred twice; the listings' clock last succeeded {age:.0f} s ago"
        if age is not None
        else f"{doubles} periods deferred twice; the clock never ran",
        doubles == 0 and age is not None and age < 180,
    )


def workers() -> None:
    """The task queue's guarantees in the stack: a killed worker, an SMTP outage, periodic jobs once."""
    periodic_once()
    mail_through_smtp_outage()
    worker_killed_mid_transcode()


def healthy_again(timeout: float = 60.0) -> float:
    """Seconds until /healthz answers 200 through the proxy six times in a row (twice per node)."""
    started, streak = time.perf_counter(), 0
    while streak < 6:
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"/healthz not back within {timeout:.0f} s")
        try:
            with urllib.request.urlopen(f"{SITE}/healthz", timeout=5) as answer:
                streak = streak + 1 if answer.status == 200 else 0
        except OSError:
            streak = 0
            time.sleep(0.5)
    return time.perf_counter() - started


def outage_page() -> None:
    """PostgreSQL stopped: a page that needs it answers through the proxy a Spanish 503 with Retry-After, not a 500."""
    subprocess.run(["docker", "stop", "stack-postgres"], check=True, capture_output=True)
    try:
        seen = []
        # The SSG city page reads the database on every node whose cache has not got it.
        for path in ("/escorts-ssg/temuco", "/escorts-ssg/valdivia", "/escorts-ssg/osorno"):
            try:
                with urllib.request.urlopen(f"{SITE}{path}", timeout=TIMEOUT_S) as answer:
                    seen.append((answer.status, "", "", answer.headers.get("x-served-by", "proxy")))
            except urllib.error.HTTPError as error:
                body = error.read().decode("utf-8", "replace")
                served = error.headers.get("x-served-by", "proxy")
                seen.append((error.code, error.headers.get("retry-after", ""), body, served))
    finally:
        subprocess.run(["docker", "start", "stack-postgres"], check=True, capture_output=True)
    spanish = [
        status == 503 and retry == "5" and "No pudimos conectar con la base de datos" in body
        for status, retry, body, _ in seen
    ]
    row(
        "postgres stopped: a page answers a Spanish 503",
        f"{[f'{status} from {served}' for status, _, _, served in seen]}, Spanish with Retry-After: {sum(spanish)}",
        all(spanish),
    )
    healthy_again()


def restarts() -> None:
    """Redis, then PostgreSQL, restarted under an open signed-in tab: it stays signed in and reloads cleanly."""
    email = f"sigue-{uuid.uuid4().hex[:8]}@correo.cl"
    account(email, ProfileId.PROFESOR)
    with database() as session:
        token = open_session(session, session.exec(select(User).where(User.email == email)).one().uid)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = moving_context(browser, base_url=SITE, locale="es-CL")
        context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": SITE, "httpOnly": True}])
        page = context.new_page()
        page.goto(MY_LISTINGS)
        expect(page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
        outage_page()
        for service in ("stack-redis", "stack-postgres"):
            subprocess.run(["docker", "restart", service], check=True, capture_output=True)
            try:
                # Once every node answers /healthz again (it checks the database), the open tab
                # (its state in Redis is gone after Redis's restart) reloads.
                back = healthy_again()
                page.reload()
                expect(page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
                expect(page.get_by_role("button", name="Cerrar sesión")).to_be_visible()
                figure, ok = f"healthy after {back:.0f} s; still signed in, the tab reloaded", True
            except Exception as error:  # any failure is this step's figure
                figure, ok = f"{type(error).__name__}: {str(error).splitlines()[0][:60]}", False
            row(f"{service.split('-')[1]} restarted: session kept, tab reloads", figure, ok)
        browser.close()


PROMETHEUS = os.environ.get("STACK_PROMETHEUS_URL", "http://127.0.0.1:9390")
# Fired: NodeDown's `for: 1m` plus scrapes, evaluation and Alertmanager's group_wait; HttpErrors' `for: 2m`.
# Resolved: the error ratio's 5-minute window still holds the outage's 503s for 5 minutes after it.
FIRE_DEADLINE_S = 6 * 60
RESOLVE_DEADLINE_S = 10 * 60


def prometheus(query: str) -> list[dict]:
    """The result of an instant PromQL query on the stack's Prometheus."""
    with urllib.request.urlopen(f"{PROMETHEUS}/api/v1/query?{urlencode({'query': query})}", timeout=10) as answer:
        return json.load(answer)["data"]["result"]


def firing(alertname: str) -> bool:
    return bool(prometheus(f'ALERTS{{alertname="{alertname}",alertstate="firing"}}'))


def scraped() -> None:
    """Prometheus scrapes every node (with the metrics token) and worker, each up: STACK_SCRAPED says how many
    of each job (3 nodes and 2 workers; compose's profile 1 and 1)."""
    spec = os.environ.get("STACK_SCRAPED", "escorts-web=3,escorts-worker=2")
    wanted = Counter({job: int(count) for job, count in (part.split("=") for part in spec.split(","))})

    def up() -> Counter:
        return Counter(result["metric"]["job"] for result in prometheus("up == 1"))

    try:
        waited = _until(f"{spec} up", lambda: up() == wanted, 90)
        figure, ok = f"{spec} up, {waited:.0f} s after Prometheus started", True
    except TimeoutError:
        seen = {(r["metric"]["job"], r["metric"]["instance"]): r["value"][1] for r in prometheus("up")}
        figure, ok = f"up: {seen}", False
    row("monitoring: Prometheus scrapes every node and worker, up", figure, ok)


def alert_mails(mailbox: Mailbox, status: str, words: str) -> list[str]:
    """Subjects of Alertmanager's e-mails of ``status`` (firing, resolved) whose plain-text part, one
    line per alert (deploy/alertmanager/alertmanager.yml), has a line with ``status`` and ``words``."""
    found = []
    for message in list(mailbox.messages):
        parts = [part for part in message.walk() if part.get_content_type() == "text/plain"]
        text_part = parts[0].get_payload(decode=True).decode() if parts else ""
        if any(f"[{status}]" in line and words in line for line in text_part.splitlines()):
            found.append(subject_of(message))
    return found


def alerts() -> None:
    """A node killed: EscortsNodeDown fires and Alertmanager's e-mail reaches the SMTP sink. PostgreSQL stopped
    while pages are asked for: EscortsHttpErrors fires. Everything back: both resolve, and say so by e-mail."""
    mailbox = Mailbox()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=int(os.environ.get("STACK_ALERT_SMTP_PORT", "2528")))
    smtp.start()
    victim, node_down = "stack-node3", "target 127.0.0.1:8203 is down"  # the node and its alert's summary
    errors = "of HTTP requests answer 5xx"
    try:
        subprocess.run(["docker", "kill", victim], check=True, capture_output=True)
        try:
            waited = _until(
                "the node-down e-mail", lambda: bool(alert_mails(mailbox, "firing", node_down)), FIRE_DEADLINE_S
            )
            figure, ok = f"«{alert_mails(mailbox, 'firing', node_down)[0][:34]}…» {waited:.0f} s after the kill", True
        except TimeoutError as error:
            figure, ok = f"{error}; firing in Prometheus: {firing('EscortsNodeDown')}", False
        finally:
            subprocess.run(["docker", "start", victim], check=True, capture_output=True)
        row("monitoring: a node killed, node-down alert e-mailed", figure, ok)

        def asked_and_firing() -> bool:  # one page through the proxy (503 while the database is away)
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"{SITE}/escorts-ssg/temuco", timeout=TIMEOUT_S).close()
            return firing("EscortsHttpErrors")

        subprocess.run(["docker", "stop", "stack-postgres"], check=True, capture_output=True)
        try:
            waited = _until("EscortsHttpErrors firing", asked_and_firing, FIRE_DEADLINE_S)
            figure, ok = f"firing {waited:.0f} s after PostgreSQL stopped", True
        except TimeoutError as error:
            figure, ok = str(error), False
        finally:
            subprocess.run(["docker", "start", "stack-postgres"], check=True, capture_output=True)
        row("monitoring: PostgreSQL stopped, error-ratio alert fires", figure, ok)

        healthy_again(120)
        names = ("EscortsNodeDown", "EscortsHttpErrors")
        try:
            waited = _until("both resolved", lambda: not any(firing(name) for name in names), RESOLVE_DEADLINE_S)
            mailed = [words for words in (node_down, errors) if alert_mails(mailbox, "resolved", words)]
            figure, ok = (
                f"resolved {waited:.0f} s after the stack was whole; {len(mailed)} of 2 e-mailed resolved",
                True,
            )
        except TimeoutError:
            figure, ok = f"still firing: {[name for name in names if firing(name)]}", False
        row("monitoring: everything back, the alerts resolve", figure, ok)
    finally:
        smtp.stop()


if __name__ == "__main__":
    {
        "buckets": buckets,
        "browser": browser_loop,
        "addresses": addresses,
        "workers": workers,
        "node-lost": node_lost,
        "restarts": restarts,
        "scraped": scraped,
        "alerts": alerts,
    }[sys.argv[1]]()
