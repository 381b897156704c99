"""Layout on phones and desktops, words and accessibility of the frame, cards and carousel (issue 16 §2, §3).

The signed-in header fits a phone and folds the account actions into a keyboard-operable menu;
nothing the browser scrolls to hides under the sticky header; my listings with its "Mejorar"
dialog and the staff users table fit 390 px; the 18+ notice comes before the city list; the
detail carousel pauses (button, focus, pointer, reduced motion) with its arrows on the photo;
card links are named by their visible text; one <main> is exposed at a time. The carousel's
time is Playwright's fake clock, so nothing waits for real seconds.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ProfileId, User
from app.routes import ALL_SEGMENT
from app.states.public import AGE_COOKIE
from tests.e2e.conftest import CITY, Site
from tests.e2e.text_lines import text_lines
from tests.factories import make_account, make_listing, open_session, tier_upgrade

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WIZARD = "/my/publicacion/nuevaPublicacion"
MY_LISTINGS = "/my/publicacion/misPublicaciones"
PREVIEW = "#vista-previa"
AUTOPLAY_MS = 5000


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True)
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.fixture
def desktop(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=DESKTOP)
    context.set_default_timeout(20_000)
    yield context
    context.close()


def _sign_in(db: Session, context: BrowserContext, site: Site, email: str, profile: ProfileId) -> User:
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=profile)
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )
    return user


def _adult(context: BrowserContext, site: Site) -> None:
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])


def _box(locator: Locator) -> dict:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not rendered"
    return box


def _header_bottom(page: Page) -> float:
    box = _box(page.locator("header.site-header").last)
    return box["y"] + box["height"]


def _page_width(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def _until(check: Callable[[], bool], message: str, timeout: float = 15) -> None:
    """Poll ``check`` from here (page-side polling does not run with JavaScript off) until true."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


def _settled(locator: Locator) -> None:
    """Wait until the element's opening animations are over (its box is final)."""
    locator.evaluate("(el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished))")


def test_the_signed_in_header_fits_a_phone_and_its_account_menu_works_by_keyboard(
    phone: BrowserContext, site: Site, db: Session
):
    _sign_in(db, phone, site, "cabecera-telefono@correo.cl", ProfileId.PROFESOR)
    page = phone.new_page()
    page.goto(WIZARD)
    expect(page.get_by_role("heading", name="Nueva publicación", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_hidden()
    header = _box(page.locator("header.site-header"))
    assert header["height"] <= 100, header

    # The first field is below the header at first, and again when the focus comes back to it.
    field = page.get_by_role("textbox", name="RUT")
    assert _box(field)["y"] >= _header_bottom(page)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    field.focus()
    assert _box(field)["y"] >= _header_bottom(page), "the focused field is under the header"

    # The menu by keyboard: open, leave with Escape (focus back on it), open, choose an action.
    menu = page.locator("summary", has_text="Cuenta")
    menu.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_visible()
    assert _box(page.locator(".account-panel"))["x"] >= 0
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_hidden()
    expect(menu).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # the user's name (their panel)
    page.keyboard.press("Tab")
    expect(page.locator(".account-panel").get_by_role("link", name="Mi cuenta")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Cambiar contraseña")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Cambiar contraseña")).to_be_visible()
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_hidden()  # the menu closed behind it
    assert _page_width(page) <= PHONE["width"]


def test_on_a_desktop_the_account_actions_show_in_a_row_and_titles_stay_below_the_header(
    desktop: BrowserContext, site: Site, db: Session
):
    _sign_in(db, desktop, site, "cabecera-escritorio@correo.cl", ProfileId.PROFESOR)
    page = desktop.new_page()
    page.goto(MY_LISTINGS)
    title = page.get_by_role("heading", name="Mis publicaciones", level=1)
    expect(title).to_be_visible()
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_visible()
    expect(page.locator("summary", has_text="Cuenta")).to_be_hidden()
    # The notifications region is named in Spanish.
    expect(page.get_by_role("region", name="Notificaciones")).to_have_count(1)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    title.evaluate("(el) => el.scrollIntoView()")
    assert _box(title)["y"] >= _header_bottom(page), "the title is under the header"


def test_my_listings_with_its_upgrade_dialog_fits_a_phone(phone: BrowserContext, site: Site, db: Session):
    owner = _sign_in(db, phone, site, "mejorar-telefono@correo.cl", ProfileId.PROFESOR)
    upgrade = tier_upgrade(db, "diamante", name="Diamante de diseño", price_clp=45000)
    db.add(upgrade)
    db.commit()
    make_listing(db, owner, name="Ancha Pantalla", city="buin")  # no other test counts listings there
    page = phone.new_page()
    page.goto(MY_LISTINGS)
    card = page.get_by_role("article", name="Ancha Pantalla")
    expect(card).to_be_visible()
    assert _page_width(page) <= PHONE["width"]
    card.get_by_role("button", name="Mejorar").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="Pedir Diamante de diseño").click()
    expect(dialog).to_have_count(0)  # asking closes the dialog on the card, which keeps the reference
    card.get_by_role("button", name="Mejorar").click()
    upgrades = dialog.get_by_role("table", name="Tus mejoras")
    expect(upgrades.get_by_role("row").filter(has_text="Diamante de diseño")).to_have_count(1)
    _settled(dialog)
    box = _box(dialog)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert dialog.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the dialog's content is cut at the right"
    assert _page_width(page) <= PHONE["width"]


def test_the_staff_users_table_reads_on_a_phone(phone: BrowserContext, site: Site, db: Session):
    make_account(db, LocalProvider(engine=db.get_bind()), "cliente-angosta@correo.cl", profile=ProfileId.CLIENTE)
    _sign_in(db, phone, site, "jefa-angosta@correo.cl", ProfileId.ADMINISTRADOR)
    page = phone.new_page()
    page.goto("/admin/usuarios")
    expect(page.get_by_role("heading", name="Usuarios", level=1)).to_be_visible()
    page.get_by_label("Buscar por correo").fill("cliente-angosta")
    page.get_by_role("button", name="Buscar").click()
    # The search has answered once the table lists one account: before it, every account shows.
    expect(page.get_by_role("row").filter(has_text="@")).to_have_count(1)
    row = page.get_by_role("row").filter(has_text="cliente-angosta@correo.cl")
    expect(row).to_have_count(1)
    edit = row.get_by_role("button", name="Editar")
    expect(edit).to_be_visible()
    box = _box(edit)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert text_lines(row.get_by_role("cell", name="Cliente", exact=True)) == 1, "«Cliente» is broken across lines"
    assert _page_width(page) <= PHONE["width"]


@pytest.mark.parametrize("javascript", [False, True], ids=["documento", "app"])
def test_the_18_notice_comes_before_the_city_list_on_a_phone(browser: Browser, site: Site, javascript: bool):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, java_script_enabled=javascript)
    try:
        page = context.new_page()
        page.goto("/escorts")
        if javascript:
            page.locator(PREVIEW).wait_for(state="detached")
        notice = page.get_by_role("dialog")
        expect(notice).to_be_visible()
        cities = page.get_by_role("navigation", name="Ciudades")
        box = _box(notice)
        assert box["y"] + box["height"] <= PHONE["height"], f"the notice is below the first screen: {box}"
        assert notice.evaluate(
            "(el, cities) => Boolean(el.compareDocumentPosition(cities) & Node.DOCUMENT_POSITION_FOLLOWING)",
            cities.element_handle(),
        ), "the city list comes before the notice"
        expect(page.get_by_role("heading", name="Destacadas")).to_have_count(0)
    finally:
        context.close()


def _detail(browser: Browser, site: Site, **options) -> Page:
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=DESKTOP, **options)
    _adult(context, site)
    page = context.new_page()
    page.clock.install()
    page.goto(f"/escort/{site.uids['diamante']}")
    page.locator(PREVIEW).wait_for(state="detached")
    expect(page.locator("[data-carousel] img")).to_have_count(3)
    # Every photo loaded first: a slide's photo arriving in the middle of an autoplay scroll can
    # make Chromium snap the track back to the first slide.
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-carousel] img')].every((img) => img.complete && img.naturalWidth)"
    )
    page.mouse.move(0, 0)
    # From here on the page's time moves only when the test runs the clock: the seconds a busy
    # machine takes between two steps (a hover, a focus) never count towards the autoplay.
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    # A mark the app does not render: gone if the carousel is rendered anew (see _expect_slide).
    page.locator("[data-carousel]").evaluate("track => track.setAttribute('data-probe', '')")
    return page


def _expect_slide(page: Page, index: int) -> None:
    """The carousel shows slide ``index``; if not, the failure says whether the app rendered the carousel anew
    (which resets it to the first slide) since the test began (this failed twice in many loaded runs)."""
    track = page.locator("[data-carousel]")
    try:
        expect(track).to_have_attribute("data-index", str(index))
    except AssertionError as exc:
        state = track.evaluate(
            "t => ({probe: t.hasAttribute('data-probe'), index: t.getAttribute('data-index'),"
            " started: t.getAttribute('data-started'), scrollLeft: t.scrollLeft, now: Date.now()})"
        )
        raise AssertionError(f"slide {index} expected; the carousel: {state}") from exc


def _let_go(page: Page) -> None:
    """Wait until neither the focus nor the pointer holds the carousel (what assets/site.js checks)."""
    page.wait_for_function(
        """() => {
          const box = document.querySelector(".carousel");
          const focused = document.activeElement;
          const focusHolds = box.contains(focused) && !focused.hasAttribute("data-carousel-pause");
          return !box.matches(":hover") && !focusHolds && !box.hasAttribute("data-paused");
        }"""
    )


def test_the_carousel_pauses_and_its_arrows_sit_on_the_photo(browser: Browser, site: Site):
    page = _detail(browser, site)
    try:
        track = page.locator("[data-carousel]")
        photo, arrow = _box(track), _box(page.get_by_role("button", name="Foto siguiente"))
        assert photo["x"] <= arrow["x"] and arrow["x"] + arrow["width"] <= photo["x"] + photo["width"], (photo, arrow)
        _expect_slide(page, 0)
        _let_go(page)
        page.clock.run_for(AUTOPLAY_MS + 1000)
        _expect_slide(page, 1)

        # Focus in the carousel holds it; the focus leaving lets it go on.
        track.focus()
        page.clock.run_for(2 * AUTOPLAY_MS)
        _expect_slide(page, 1)
        page.evaluate("document.activeElement.blur()")
        _let_go(page)
        page.clock.run_for(AUTOPLAY_MS + 1000)
        _expect_slide(page, 2)

        # The pointer over it holds it.
        # The pointer moves there as a visitor's does: Playwright's hover() first scrolls the
        # element into view, and for this scroller Chromium scrolls its own content back to the
        # first slide, cutting the autoplay's smooth scroll short.
        middle = _box(track)
        page.mouse.move(middle["x"] + middle["width"] / 2, middle["y"] + middle["height"] / 2)
        page.clock.run_for(2 * AUTOPLAY_MS)
        _expect_slide(page, 2)
        page.mouse.move(0, 0)

        # "Pausar fotos" stops it until "Reanudar fotos".
        page.get_by_role("button", name="Pausar fotos").click()
        page.mouse.move(0, 0)
        page.clock.run_for(3 * AUTOPLAY_MS)
        _expect_slide(page, 2)
        page.get_by_role("button", name="Reanudar fotos").click()
        page.mouse.move(0, 0)
        _let_go(page)
        page.clock.run_for(AUTOPLAY_MS + 1000)
        _expect_slide(page, 0)
        expect(page.get_by_role("button", name="Pausar fotos")).to_be_visible()
    finally:
        page.context.close()


def test_the_carousel_does_not_play_by_itself_under_reduced_motion(browser: Browser, site: Site):
    page = _detail(browser, site, reduced_motion="reduce")
    try:
        track = page.locator("[data-carousel]")
        expect(page.get_by_role("button", name="Reanudar fotos")).to_be_visible()
        page.clock.run_for(3 * AUTOPLAY_MS)
        expect(track).to_have_attribute("data-index", "0")
        page.get_by_role("button", name="Foto siguiente").click()  # the arrows still work
        expect(track).to_have_attribute("data-index", "1")
    finally:
        page.context.close()


@pytest.mark.parametrize("javascript", [False, True], ids=["documento", "app"])
def test_card_links_are_named_by_their_visible_text_and_photo_strips_take_the_focus(
    browser: Browser, site: Site, javascript: bool
):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=DESKTOP, java_script_enabled=javascript)
    _adult(context, site)
    try:
        page = context.new_page()
        page.goto(f"/escorts/{CITY}")
        if javascript:
            page.locator(PREVIEW).wait_for(state="detached")
        name = site.names["diamante"]
        card = page.get_by_test_id("listing-card").filter(has=page.get_by_role("heading", name=name))
        link = card.get_by_role("link")
        expect(link).to_have_count(1)
        assert link.get_attribute("aria-label") is None
        expect(link).to_have_accessible_name(re.compile(rf"^{name} \d+ años · "))
        strip = card.get_by_role("group", name=f"Fotos de {name}")
        expect(strip).to_have_attribute("tabindex", "0")  # three photos: it scrolls
        strip.focus()
        strip.press("ArrowRight")
        _until(lambda: strip.evaluate("(el) => el.scrollLeft") > 0, "the arrow key did not scroll the strip")
        assert page.locator("img[sizes]:not([srcset])").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/", "/escorts", "/escorts/trans"])
def test_one_main_is_exposed_in_the_served_document_and_in_the_app(browser: Browser, site: Site, path: str):
    html = httpx.get(site.url + path, follow_redirects=True, timeout=30).text
    assert len(re.findall(r"<main\b", html)) <= 1, "the served document has more than one <main>"
    for javascript in (False, True):
        context = browser.new_context(base_url=site.url, locale="es-CL", java_script_enabled=javascript)
        try:
            page = context.new_page()
            page.goto(path)
            if javascript:
                page.locator(PREVIEW).wait_for(state="detached")
            expect(page.get_by_role("main")).to_have_count(1)
        finally:
            context.close()


@pytest.mark.parametrize("javascript", [False, True], ids=["documento", "app"])
@pytest.mark.parametrize("path", [f"/escorts/{CITY}", f"/escorts/{CITY}/{ALL_SEGMENT}"])
def test_heading_levels_never_skip_on_a_returning_visit(browser: Browser, site: Site, javascript: bool, path: str):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=DESKTOP, java_script_enabled=javascript)
    _adult(context, site)
    try:
        page = context.new_page()
        page.goto(path)
        if javascript:
            page.locator(PREVIEW).wait_for(state="detached")
        expect(page.get_by_test_id("listing-card").first).to_be_visible()
        levels = (
            page.get_by_role("main")
            .locator("h1, h2, h3, h4, h5, h6")
            .evaluate_all("(headings) => headings.map((h) => Number(h.tagName[1]))")
        )
        assert levels[0] == 1, levels
        skips = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
        assert not skips, f"heading levels skip: {levels}"
    finally:
        context.close()
