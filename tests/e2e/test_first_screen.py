"""A returning visitor's first screen comes in the document (app.web.preview), and the app takes over from it.

Runs against the real production app in chromium: with JavaScript off the
listings and their links are there; with JavaScript on, the preview leaves once
the app's own listings show, nothing is shown twice, and no script fails.
React hydrates the document instead of throwing its markup away and rendering
again (its error #418, which an inline script in the head caused: see
app.seo.render_structured_data).
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ProfileId
from app.pages.wizard import WIZARD_INTRO
from app.routes import ADMIN_LISTINGS, ADVERTISER_NEW_LISTING, LOGIN
from app.services.staff.listings import LISTINGS_SPEC
from app.states.public import AGE_COOKIE
from tests.e2e.conftest import CITY
from tests.factories import make_account, open_session

# The app's JavaScript modules (the build's hashed files; site.js is served apart, at /site.js).
APP_MODULES = re.compile(r"/assets/[^?]*\.js(\?|$)")

pytestmark = pytest.mark.e2e

PREVIEW = "#vista-previa"
# The class that puts a page in the dark mode.
DARK = re.compile(r"(^|\s)dark(\s|$)")


def _returning_visitor(browser: Browser, site, *, javascript: bool = True) -> Page:
    """A fresh context that accepted the 18+ notice on an earlier visit."""
    context = browser.new_context(
        base_url=site.url,
        locale="es-CL",
        viewport={"width": 1280, "height": 900},
        java_script_enabled=javascript,
    )
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    return context.new_page()


def _script_errors(page: Page) -> list[str]:
    """Uncaught exceptions of the page's scripts: site.js's preview handling, React's hydration."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


# Marks the app's root element as the parser inserts it, before any script of the page runs.
MARK_SERVED_ROOT = """
new MutationObserver((changes, observer) => {
  const root = document.querySelector("body > [data-is-root-theme]");
  if (root) { root.dataset.servido = "1"; observer.disconnect(); }
}).observe(document, { childList: true, subtree: true });
"""


def test_react_hydrates_the_served_markup_of_city_and_detail_pages(browser: Browser, site):
    page = _returning_visitor(browser, site)
    page.add_init_script(MARK_SERVED_ROOT)
    errors = _script_errors(page)
    try:
        for path in (f"/escorts/{CITY}", f"/escorts/{CITY}/catalina/{site.uids['diamante']}"):
            page.goto(path)
            expect(page.locator(PREVIEW)).to_have_count(0)
            expect(page.locator("[data-is-root-theme] h1")).to_be_visible()
            # The root React shows is the one the document brought: hydrated, not rendered anew.
            expect(page.locator("body > [data-is-root-theme]")).to_have_attribute("data-servido", "1")
            page.wait_for_load_state("networkidle")
            assert errors == [], path
    finally:
        page.context.close()


def test_the_scripts_of_sign_up_and_clip_uploads_come_only_where_they_are_used(browser: Browser, site):
    """A public page fetches neither assets/proof.js (the sign-up's proof of work) nor assets/clips.js (the
    wizard's clip upload): site.js fetches each once its markup shows, as the sign-up form's on /login."""
    page = _returning_visitor(browser, site)
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    try:
        for path in (f"/escorts/{CITY}", f"/escorts/{CITY}/catalina/{site.uids['diamante']}"):
            page.goto(path)
            expect(page.locator(PREVIEW)).to_have_count(0)
            page.wait_for_load_state("networkidle")
        assert [url for url in fetched if url.endswith(("/proof.js", "/clips.js"))] == []
        page.goto(LOGIN)
        expect(page.locator("input[data-proof-challenge]")).to_have_count(1)
        page.wait_for_function("() => performance.getEntriesByName(location.origin + '/proof.js').length > 0")
        assert [url for url in fetched if url.endswith("/clips.js")] == []
    finally:
        page.context.close()


# Notes when the page reads its origin's storage (window.localStorage), from before any script of the page runs.
NOTE_STORAGE_READS = """
window.__storageReads = [];
const owner = Object.getOwnPropertyDescriptor(window, "localStorage") ? window : Window.prototype;
const storage = Object.getOwnPropertyDescriptor(owner, "localStorage");
Object.defineProperty(owner, "localStorage", {
  configurable: true,
  get() { window.__storageReads.push(performance.now()); return storage.get.call(this); },
});
"""
# The first contentful paint's time, site.js's request's and the storage reads' (NOTE_STORAGE_READS).
FIRST_PAINT_AND_AFTER = """[
  performance.getEntriesByName("first-contentful-paint")[0].startTime,
  performance.getEntriesByType("resource").find((entry) => entry.name.endsWith("/site.js")).startTime,
  window.__storageReads,
]"""


def test_a_visitor_who_only_looks_runs_no_app_and_a_detail_still_counts(browser, site):
    """On a phone, a public page's preview is the page until the visitor's first move: none of the app's modules,
    its stylesheet or assets/favourites.js is fetched and no websocket opens; site.js comes once the first screen
    is painted (app.seo.SITE_SCRIPT_LOADER), and nothing reads the browser's storage before that (the head's
    color-mode script sets the site's dark mode without it, app.components.color_mode). A detail's view and a tap
    on its WhatsApp button are counted by the document (POST /contar); that tap starts the app, which then takes
    over from the preview."""
    context = browser.new_context(
        idle=True, base_url=site.url, locale="es-CL", viewport={"width": 390, "height": 844}, has_touch=True
    )
    context.set_default_timeout(20_000)
    context.add_init_script(NOTE_STORAGE_READS)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    context.route("https://wa.me/**", lambda route: route.fulfill(body="WhatsApp"))
    page = context.new_page()
    fetched, sockets, counted = [], [], []
    page.on("request", lambda request: fetched.append(request.url))
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.on(
        "response",
        lambda answer: counted.append((answer.request.post_data, answer.status)) if "/contar" in answer.url else None,
    )
    detail = f"/escorts/{CITY}/catalina/{site.uids['diamante']}"
    try:
        for path in (f"/escorts/{CITY}", detail):
            page.goto(path)
            page.wait_for_load_state("networkidle")
            expect(page.locator(PREVIEW)).to_be_visible()
            expect(page.locator("script[data-app-module]")).to_have_attribute("type", "text/plain")
            expect(page.locator("html")).to_have_class(DARK)
            assert page.evaluate("document.documentElement.style.colorScheme") == "dark"
            first_paint, site_script, storage_reads = page.evaluate(FIRST_PAINT_AND_AFTER)
            assert site_script > first_paint and all(read > first_paint for read in storage_reads)
        started = [url for url in fetched if APP_MODULES.search(url) or url.endswith((".css", "/favourites.js"))]
        assert started == [] and sockets == []
        assert counted == [(f"ruta={detail.replace('/', '%2F')}&tipo=view", 204)]
        with context.expect_page() as chat, page.expect_response(lambda answer: "/contar" in answer.url):
            page.locator(PREVIEW).get_by_role("link", name="WhatsApp").tap()
        chat.value.close()
        expect(page.locator(PREVIEW)).to_have_count(0)
        expect(page.locator("[data-is-root-theme] h1")).to_have_text("Catalina")
        expect(page.locator("html")).to_have_class(DARK)
        assert len(sockets) == 1
        assert counted[1:] == [(f"ruta={detail.replace('/', '%2F')}&tipo=whatsapp", 204)]
    finally:
        context.close()


def test_the_preview_stays_until_the_apps_stylesheet_is_in(browser: Browser, site):
    """The app is never shown unstyled: its stylesheet comes without blocking the first paint."""
    page = _returning_visitor(browser, site)
    held = []
    page.route("**/assets/__reflex_global_styles-*.css", lambda route: held.append(route))
    try:
        page.goto(f"/escorts/{CITY}", wait_until="commit")
        page.locator(f'[data-is-root-theme] [data-vista-lista="/escorts/{CITY}"]').wait_for(state="attached")
        # The app has its listings, but not its stylesheet: the preview stays, and it is styled.
        expect(page.locator(PREVIEW)).to_be_visible()
        expect(page.locator(f"{PREVIEW} .grid").first).to_have_css("display", "grid")
        assert held
        for route in held:
            route.continue_()
        expect(page.locator(PREVIEW)).to_have_count(0)
        expect(page.locator("link[data-media]")).to_have_attribute("media", "all")
        expect(page.get_by_test_id("total")).to_be_visible()
    finally:
        page.context.close()


def test_the_notice_button_is_where_it_was_when_the_app_takes_over(browser: Browser, site):
    """The preview and the app lay the 18+ notice out alike, so a tap during the swap hits the same button."""
    boxes = []
    for javascript in (False, True):
        context = browser.new_context(
            base_url=site.url, viewport={"width": 412, "height": 823}, java_script_enabled=javascript
        )
        context.set_default_timeout(20_000)
        page = context.new_page()
        try:
            page.goto(f"/escorts/{CITY}")
            if javascript:
                expect(page.locator(PREVIEW)).to_have_count(0)
            button = page.get_by_role("button", name="Tengo 18 años o más, entrar")
            expect(button).to_be_visible()
            boxes.append(button.bounding_box())
        finally:
            context.close()
    preview, app = boxes
    assert preview == app


@pytest.mark.parametrize("returning", [False, True], ids=["aviso-18", "avisos"])
def test_a_phones_first_scroll_keeps_its_place_when_the_app_takes_over(browser: Browser, site, returning: bool):
    """A phone's first scroll starts the app; the app's first render does not scroll the page back to the top
    from under the visitor's finger (over the 18+ button, or over a card of the listings). The visitor only
    looks until that scroll (``idle``): one who moves at once would start the app before it."""
    context = browser.new_context(idle=True, base_url=site.url, locale="es-CL", viewport={"width": 375, "height": 600})
    context.set_default_timeout(20_000)
    if returning:
        context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    page = context.new_page()
    try:
        page.goto(f"/escorts/{CITY}")
        expect(page.locator(PREVIEW)).to_be_visible()
        page.mouse.move(180, 300)
        page.mouse.wheel(0, 200)
        page.wait_for_function("window.scrollY > 0")
        scrolled = page.evaluate("window.scrollY")
        expect(page.locator(PREVIEW)).to_have_count(0)
        assert page.evaluate("window.scrollY") == scrolled
        if not returning:
            page.get_by_role("button", name="Tengo 18 años o más, entrar").click()
            expect(page.get_by_role("dialog")).to_have_count(0)
        expect(page.get_by_test_id("total")).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("late_script", [False, True], ids=["site.js-a-tiempo", "site.js-tarde"])
def test_a_press_on_the_notice_during_the_swap_is_not_lost(browser: Browser, site, late_script: bool):
    """The app gets ready between the press and the release on the preview's 18+ button: the tap still counts,
    also when the press began before the deferred site.js ran (a busy phone)."""
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    held, scripts, modules = [], [], []
    page.route("**/assets/__reflex_global_styles-*.css", lambda route: held.append(route))
    # The app's modules wait until the press has begun: the app cannot show its own notice over
    # the preview before the press, which would then land on the app's button instead.
    page.route(APP_MODULES, lambda route: modules.append(route))
    if late_script:
        page.route("**/site.js", lambda route: scripts.append(route))
    try:
        page.goto(f"/escorts/{CITY}", wait_until="commit")
        button = page.locator(PREVIEW).get_by_role("button", name="Tengo 18 años o más, entrar")
        expect(button).to_be_visible()
        box = button.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        assert button.evaluate("(pressed) => pressed.matches(':active')"), "the press missed the preview's button"
        if late_script:
            deadline = time.monotonic() + 15
            while not scripts:  # every call into the page lets Playwright hand over the held request
                assert time.monotonic() < deadline, "the page never asked for site.js"
                page.evaluate("0")
            scripts[0].continue_()
        page.unroute(APP_MODULES)
        for route in modules:
            route.continue_()
        # While the button is pressed, the app shows its own notice and its stylesheet arrives:
        # everything the preview waits for to leave.
        page.locator("[data-is-root-theme] .age-gate").wait_for(state="attached")
        for route in held:
            route.continue_()
        page.unroute_all()  # the next document's stylesheet comes as usual
        page.wait_for_function("[...document.querySelectorAll('link[data-media]')].every((link) => link.sheet)")
        page.evaluate("new Promise((done) => setTimeout(() => requestAnimationFrame(done), 0))")
        expect(page.locator(PREVIEW)).to_have_count(1)
        page.mouse.up()
        expect(page.get_by_role("dialog")).to_have_count(0)
        expect(page.get_by_test_id("total")).to_be_visible()
    finally:
        context.close()


def _fetched(requests: list[str], photo: Locator) -> bool:
    """Whether any of the page's ``requests`` fetched ``photo``, in any of its widths (its srcset's or its src)."""
    stem = re.sub(r"-(400|800)\.webp$", "", photo.get_attribute("src") or "")
    return bool(stem) and any(stem in url for url in requests)


def test_a_previews_photos_out_of_sight_wait_for_its_first_frame(browser: Browser, site):
    """A preview's photos but its first (a strip's second, the next card's) are neither shown nor fetched until
    site.js has seen its first frame; then the next card's cover is, once near, as lazy loading does, and a strip's
    second photo waits for the visitor's first move. Only the page's first photo has high priority. Without scripts
    every photo shows at once."""
    context = browser.new_context(
        idle=True, base_url=site.url, locale="es-CL", viewport={"width": 390, "height": 844}, has_touch=True
    )
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    page = context.new_page()
    scripts: list = []
    photos: list[str] = []
    page.on("request", lambda request: photos.append(request.url) if request.resource_type == "image" else None)
    page.route("**/site.js", lambda route: scripts.append(route))
    strip = page.locator(PREVIEW).locator(".strip").first
    first, second = strip.locator("img").nth(0), strip.locator("img").nth(1)
    next_card = page.locator(PREVIEW).locator(".strip").nth(1).locator("img").first
    try:
        page.goto(f"/escorts/{CITY}", wait_until="commit")  # the held site.js holds the load event
        expect(first).to_be_visible()
        expect(first).to_have_attribute("fetchpriority", "high")
        expect(second).to_have_attribute("fetchpriority", "low")
        expect(second).to_be_hidden()
        expect(next_card).to_be_hidden()
        deadline = time.monotonic() + 15
        while not scripts:  # every call into the page lets Playwright hand over the held request
            assert time.monotonic() < deadline, "the page never asked for site.js"
            page.evaluate("0")
        # The first photo is in and a frame has passed: lazy loading would have asked for its neighbour by now.
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=first.element_handle())
        page.evaluate("new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))")
        assert _fetched(photos, first) and not _fetched(photos, second)
        scripts[0].continue_()
        expect(page.locator(PREVIEW)).to_have_attribute("data-painted", "")
        expect(next_card).to_be_visible()
        deadline = time.monotonic() + 15
        while not _fetched(photos, next_card):
            assert time.monotonic() < deadline, "the next card's cover was never fetched"
            page.wait_for_timeout(50)  # lets Playwright deliver the request events between polls
        expect(second).to_be_hidden()
        assert not _fetched(photos, second)
        expect(page.locator(PREVIEW)).to_be_visible()  # no move yet: the preview is still the page
        # The first move shows it at once, before the app it starts replaces the preview (read in the same task).
        shown = second.evaluate(
            """(img) => {
                document.dispatchEvent(new KeyboardEvent("keydown", {key: "Shift"}));
                return getComputedStyle(img).display;
            }"""
        )
        assert shown != "none"
    finally:
        context.close()
    page = _returning_visitor(browser, site, javascript=False)
    try:
        page.goto(f"/escorts/{CITY}")
        strip = page.locator(PREVIEW).locator(".strip").first
        for photo in (strip.locator("img").first, strip.locator("img").nth(1)):
            expect(photo).to_be_visible()
    finally:
        page.context.close()


def test_listings_and_their_links_are_in_the_document_without_javascript(browser: Browser, site):
    page = _returning_visitor(browser, site, javascript=False)
    try:
        page.goto(f"/escorts/{CITY}")
        expect(page.get_by_role("heading", name="Escorts en Temuco", level=1)).to_be_visible()
        cards = page.get_by_test_id("listing-card")
        expect(cards.first).to_be_visible()
        assert cards.count() >= 2
        # Styled by the site's CSS inlined in the document; the build's stylesheet waits for the app.
        expect(page.locator(".grid").first).to_have_css("display", "grid")
        expect(page.locator('link[rel="stylesheet"]')).to_have_count(0)
        # The card link is named by its visible text: name, age, commune, badges and price.
        link = page.get_by_role("link", name=re.compile(rf"^{site.names['diamante']} \d+ años"))
        link.click()
        expect(page.get_by_role("heading", name=site.names["diamante"], level=1)).to_be_visible()
        expect(page.locator(".detail img").first).to_have_attribute("loading", "eager")
    finally:
        page.context.close()


def test_the_app_replaces_the_preview_without_a_mismatch_or_a_double(browser: Browser, site):
    page = _returning_visitor(browser, site)
    errors = _script_errors(page)
    try:
        page.goto(f"/escorts/{CITY}")
        expect(page.locator(PREVIEW)).to_have_count(0)
        expect(page.get_by_test_id("total")).to_be_visible()
        cards = page.get_by_test_id("listing-card")
        shown = cards.count()
        assert shown >= 2
        # One heading and one set of cards: the app's own, now the preview is gone.
        expect(page.get_by_role("heading", level=1)).to_have_count(1)
        page.wait_for_load_state("networkidle")
        expect(cards).to_have_count(shown)
        assert errors == []

        # The running app navigates on its own, with no preview coming back.
        page.get_by_role("link", name="Verificadas").click()
        expect(page.get_by_role("heading", name="Escorts en Temuco: Verificadas", level=1)).to_be_visible()
        expect(page.locator(PREVIEW)).to_have_count(0)

        page.goto(f"/escorts/{CITY}/catalina/{site.uids['diamante']}")
        expect(page.locator(PREVIEW)).to_have_count(0)
        expect(page.get_by_role("heading", name=site.names["diamante"], level=1)).to_have_count(1)
        expect(page.locator("article.detail")).to_have_count(1)
        page.wait_for_load_state("networkidle")
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize(
    ("profile", "path", "heading", "intro"),
    [
        (ProfileId.PROFESOR, ADVERTISER_NEW_LISTING, "Nueva publicación", WIZARD_INTRO),
        (ProfileId.ADMINISTRADOR, ADMIN_LISTINGS, "Publicaciones", LISTINGS_SPEC.intro),
    ],
)
def test_a_guarded_page_paints_its_frame_first_then_the_app_takes_over(
    browser: Browser, site, db, profile, path, heading, intro
):
    """The document of a guarded page brings its frame (app.web.private_api) and the page's static top, styled
    before the app's stylesheet arrives; once the app has accepted the caller and shows the page, the frame
    leaves, with no script error, and the page's intro shows once, where the frame had it."""
    user = make_account(db, LocalProvider(engine=db.get_bind()), f"marco-{profile.value}@example.cl", profile=profile)
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 390, "height": 844})
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url}])
    page = context.new_page()
    page.add_init_script(MARK_SERVED_ROOT)
    errors = _script_errors(page)
    held = []
    page.route("**/assets/__reflex_global_styles-*.css", lambda route: held.append(route))
    try:
        page.goto(path, wait_until="commit")
        frame = page.locator(PREVIEW)
        expect(frame.get_by_text("Comprobando tu acceso…")).to_be_visible()
        expect(frame.get_by_text(intro)).to_be_visible()
        served_top = frame.get_by_text(intro).bounding_box()
        expect(frame.locator(".site-header .brand")).to_have_css("font-weight", "800")
        expect(frame.get_by_role("link", name="Ingresar")).to_have_count(0)
        page.locator(f'[data-is-root-theme] [data-vista-lista="{path}"]').wait_for(state="attached")
        expect(frame).to_be_visible()  # the app is in, its stylesheet is not: the frame stays
        for route in held:
            route.continue_()
        expect(frame).to_have_count(0)
        expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
        expect(page.get_by_text(intro)).to_have_count(1)
        assert page.get_by_text(intro).bounding_box() == served_top
        expect(page.locator("body > [data-is-root-theme]")).to_have_attribute("data-servido", "1")
        page.wait_for_load_state("networkidle")
        assert errors == []
    finally:
        context.close()
