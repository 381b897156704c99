"""Favourites in a real browser against PostgreSQL (issue 19 §2): the heart on cards and on the detail page,
the Favoritas page with a listing that is no longer public, nothing sent to the server for a visitor who
keeps them on the device, the account copy seen from a second browser, and turning it off deleting it."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session, select

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import Favourite, FavouritesInAccount, Listing, ListingStatus, ProfileId, User
from app.routes import FAVOURITES
from app.services import favourites
from app.services.listings import listing_path
from app.states.public import AGE_COOKIE
from tests.e2e.axe import serious_violations
from tests.e2e.conftest import Site
from tests.factories import actor_of, make_account, make_listing, make_owner, open_session

pytestmark = pytest.mark.e2e

# A city of their own, so the other tests' counts never see these listings.
FAV_CITY = "valdivia"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
_serial = itertools.count()


def _until(check: Callable[[], bool], message: str, timeout: float = 15) -> None:
    """Poll ``check`` (a database read) until true."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, message
        time.sleep(0.1)


@pytest.fixture
def listings(db: Session) -> dict[str, Listing]:
    """Three public listings of one owner in FAV_CITY, with names unique to this test."""
    n = next(_serial)
    owner = make_owner(db, f"duena-favoritas-{n}-{time.time_ns()}@example.cl")
    return {
        key: make_listing(db, owner, name=f"{name} {n}", city=FAV_CITY)
        for key, name in (("card", "Rocío"), ("detail", "Soledad"), ("other", "Tamara"))
    }


def _detail_url(listing: Listing) -> str:
    return listing_path(
        section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
    )


def _context(browser: Browser, site: Site, viewport: dict[str, int] = DESKTOP) -> Iterator[BrowserContext]:
    # bypass_csp: axe-core is injected as an inline script.
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=viewport, bypass_csp=True)
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    yield context
    context.close()


@pytest.fixture
def adult(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    """A browser that already said it is 18+ (no account)."""
    yield from _context(browser, site)


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    """An adult's browser on a phone, 390 px wide."""
    yield from _context(browser, site, PHONE)


@pytest.fixture
def other_device(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    """A second browser of the same person."""
    yield from _context(browser, site)


def _heart(page: Page, listing: Listing):
    return page.get_by_role("button", name=f"Guardar en favoritas: {listing.display_name}")


def _detail_page(page: Page, listing: Listing) -> None:
    """Open a listing's page and wait until the app shows it and the document's first screen has left with its
    styles applied (a press before could meet a heart about to move)."""
    url = _detail_url(listing)
    page.goto(url)
    page.locator(f'[data-vista-lista="{url}"]').wait_for()
    page.locator("#vista-previa").wait_for(state="detached")


def _city_page(page: Page) -> None:
    page.goto(f"/escorts/{FAV_CITY}")
    page.locator(f'[data-vista-lista="/escorts/{FAV_CITY}"]').wait_for()
    page.locator("#vista-previa").wait_for(state="detached")
    expect(page.get_by_test_id("total")).to_contain_text("avisos")


def _favourites_page(page: Page) -> None:
    page.goto(FAVOURITES)
    expect(page.get_by_role("heading", name="Favoritas", level=1)).to_be_visible()
    expect(page.locator("[data-favoritas-lista][data-cargada]:not([aria-busy])")).to_be_attached()


def _record_sent(page: Page) -> tuple[list[str], list[str]]:
    """Every websocket frame the page sends from now on, and every request (method, URL and body)."""
    frames: list[str] = []
    requests: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    page.on("request", lambda request: requests.append(f"{request.method} {request.url} {request.post_data or ''}"))
    return frames, requests


def _press(page: Page, listing: Listing, pressed: str) -> None:
    heart = _heart(page, listing).first
    heart.click()
    try:
        expect(heart).to_have_attribute("aria-pressed", pressed)
    except AssertionError as failed:
        saved = page.evaluate("() => [localStorage.getItem('favoritas'), localStorage.getItem('favoritas_cuenta')]")
        raise AssertionError(f"{failed}\nthis device's list and account mark: {saved}") from None


def test_hearts_on_cards_and_detail_stay_on_the_device_and_the_favourites_page_shows_them(
    adult: BrowserContext, site: Site, listings: dict[str, Listing], db: Session
):
    page = adult.new_page()
    frames, requests = _record_sent(page)
    _city_page(page)
    saved = [listings["card"].uid, listings["detail"].uid]
    expect(_heart(page, listings["card"])).to_have_attribute("aria-pressed", "false")
    assert frames, "the recorder sees this tab's websocket"

    frames.clear()
    requests.clear()
    _press(page, listings["card"], "true")
    # The detail page, reached by its link in the app, and its own heart.
    page.get_by_role("link", name=listings["detail"].display_name).click()
    expect(page.get_by_role("heading", name=listings["detail"].display_name, level=1)).to_be_visible()
    before_detail_press = len(frames), len(requests)
    _press(page, listings["detail"], "true")
    # A round trip after the presses (back to the city page, an event over the same websocket, in order):
    # anything a press had sent would be on its way before it.
    page.go_back()
    expect(_heart(page, listings["card"])).to_have_attribute("aria-pressed", "true")
    assert frames[before_detail_press[0] :], "the round trip after the presses went over the websocket"
    carrying = [sent for sent in frames + requests if listings["card"].uid in sent]
    assert not carrying, f"the saved listing went to the server: {carrying}"
    after_detail = frames[before_detail_press[0] :] + requests[before_detail_press[1] :]
    assert not [sent for sent in after_detail if listings["detail"].uid in sent]
    stored = page.evaluate("() => JSON.parse(window.localStorage.getItem('favoritas'))")
    assert stored == list(reversed(saved))

    # The Favoritas page: the cards, newest saved first, each heart pressed; only its own request sends the list.
    frames.clear()
    requests.clear()
    page.get_by_role("link", name="Tus favoritas").click()
    cards = page.locator("[data-favoritas-lista] [data-testid=listing-card]")
    expect(cards).to_have_count(2)
    expect(cards.first).to_contain_text(listings["detail"].display_name)
    expect(_heart(page, listings["card"])).to_have_attribute("aria-pressed", "true")
    assert not [frame for frame in frames if listings["card"].uid in frame]
    posts = [sent for sent in requests if listings["card"].uid in sent]
    assert len(posts) == 1 and posts[0].startswith("POST ") and "/favoritas/tarjetas" in posts[0], posts

    # Unsaved here: the card stays until the page is left (a slip can be undone), then it is gone.
    _press(page, listings["card"], "false")
    _favourites_page(page)
    expect(cards).to_have_count(1)
    assert serious_violations(page) == []
    # Nothing of it in the server's log.
    assert listings["card"].uid not in site.log_path.read_text(errors="replace")


def _pause(db: Session, listing: Listing) -> None:
    paused = db.get(Listing, listing.uid)
    paused.status = ListingStatus.PAUSADA.value
    db.add(paused)
    db.commit()


def test_on_a_phone_the_page_says_where_the_list_is_kept_and_names_the_listings_gone(
    phone: BrowserContext, site: Site, listings: dict[str, Listing], db: Session
):
    """With the account switch off and on, the page's text says where the list is kept; a listing no longer
    public keeps the name the device saved with it (one saved before names were kept gets a plain text)."""
    user = make_account(
        db, LocalProvider(engine=db.get_bind()), f"movil-{time.time_ns()}@correo.cl", profile=ProfileId.CLIENTE
    )
    _sign_in(db, phone, site, user)
    page = phone.new_page()
    _detail_page(page, listings["detail"])
    _press(page, listings["detail"], "true")
    _city_page(page)
    _press(page, listings["other"], "true")
    _pause(db, listings["detail"])
    _pause(db, listings["card"])
    # A listing saved by an earlier version of the page, which kept no names.
    page.evaluate(
        "(uid) => localStorage.setItem('favoritas', JSON.stringify([...JSON.parse(localStorage.getItem('favoritas')),"
        " uid]))",
        listings["card"].uid,
    )

    _favourites_page(page)
    device_only = page.get_by_text("no las enviamos a nuestro servidor")
    in_account = page.get_by_text("y también en tu cuenta")
    expect(device_only).to_be_visible()
    expect(in_account).to_have_count(0)
    expect(page.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_have_count(1)
    gone = page.get_by_test_id("favorita-no-disponible")
    expect(gone).to_contain_text(
        [f"{listings['detail'].display_name} — ya no está disponible", "Esta publicación ya no está disponible."]
    )

    switch = page.get_by_role("switch", name="Guardar mis favoritas en mi cuenta")
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(in_account).to_be_visible()
    expect(device_only).to_have_count(0)
    _until(lambda: len(_account_rows(db, user)) == 3, "the list never reached the account")
    # The list drawn again from the account's copy: the names stay.
    _favourites_page(page)
    expect(in_account).to_be_visible()
    expect(gone).to_contain_text(
        [f"{listings['detail'].display_name} — ya no está disponible", "Esta publicación ya no está disponible."]
    )
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    assert serious_violations(page) == []

    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(device_only).to_be_visible()
    expect(in_account).to_have_count(0)
    # The named entry's heart takes it away.
    heart = gone.first.get_by_role("button", name=f"Guardar en favoritas: {listings['detail'].display_name}")
    heart.click()
    expect(heart).to_have_attribute("aria-pressed", "false")
    _favourites_page(page)
    expect(gone).to_have_count(1)
    expect(gone).to_contain_text("Esta publicación ya no está disponible.")
    assert serious_violations(page) == []


def _sign_in(db: Session, context: BrowserContext, site: Site, user: User) -> None:
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )


def _account_rows(db: Session, user: User) -> set[str]:
    db.expire_all()
    return set(db.exec(select(Favourite.listing_uid).where(Favourite.user_uid == user.uid)).all())


def test_the_account_copy_follows_to_another_device_and_turning_it_off_deletes_it(
    adult: BrowserContext, other_device: BrowserContext, site: Site, listings: dict[str, Listing], db: Session
):
    user = make_account(
        db, LocalProvider(engine=db.get_bind()), f"fan-{time.time_ns()}@correo.cl", profile=ProfileId.CLIENTE
    )
    _sign_in(db, adult, site, user)
    _sign_in(db, other_device, site, user)
    first, second = adult.new_page(), other_device.new_page()

    # Device one saves a listing while the account keeps nothing: it stays on the device.
    frames, requests = _record_sent(first)
    _city_page(first)
    _press(first, listings["card"], "true")
    first.get_by_role("link", name="Tus favoritas").click()  # in the app: over the same websocket
    expect(first.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_have_count(1)
    assert frames and not [frame for frame in frames if listings["card"].uid in frame]
    assert [sent for sent in requests if listings["card"].uid in sent] == [
        sent for sent in requests if sent.startswith("POST ") and "/favoritas/tarjetas" in sent
    ]
    switch = first.get_by_role("switch", name="Guardar mis favoritas en mi cuenta")
    expect(switch).to_have_attribute("aria-checked", "false")
    assert _account_rows(db, user) == set()
    # The audit sees the page at rest: not with the focus on the link just clicked.
    first.evaluate("() => document.activeElement && document.activeElement.blur()")
    assert serious_violations(first) == []

    # The explicit choice: the device's list goes to the account.
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    _until(lambda: _account_rows(db, user) == {listings["card"].uid}, "the list never reached the account")

    # Device two sees it, and its own press reaches the account.
    _favourites_page(second)
    expect(second.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_contain_text(
        listings["card"].display_name
    )
    _detail_page(second, listings["detail"])
    _press(second, listings["detail"], "true")
    _until(
        lambda: _account_rows(db, user) == {listings["card"].uid, listings["detail"].uid},
        "the second device's press never reached the account",
    )
    # Back on device one, the page shows both.
    _favourites_page(first)
    expect(first.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_have_count(2)

    # Off: deleted from the server; this device keeps its list.
    first.get_by_role("switch", name="Guardar mis favoritas en mi cuenta").click()
    expect(first.get_by_role("switch", name="Guardar mis favoritas en mi cuenta")).to_have_attribute(
        "aria-checked", "false"
    )
    _until(lambda: _account_rows(db, user) == set(), "the account's copy was not deleted")
    db.expire_all()
    assert db.get(FavouritesInAccount, user.uid) is None
    _favourites_page(first)
    expect(first.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_have_count(2)
    # Device two learns it at its next page: its presses stay on the device.
    second.close()
    second = other_device.new_page()
    _detail_page(second, listings["detail"])
    _press(second, listings["detail"], "false")
    _favourites_page(second)
    expect(second.locator("[data-favoritas-lista] [data-testid=listing-card]")).to_have_count(1)
    assert _account_rows(db, user) == set()
    # Nothing of the account's list in the server's log.
    log = site.log_path.read_text(errors="replace")
    assert listings["card"].uid not in log


def test_signing_out_takes_the_account_list_off_the_device(
    adult: BrowserContext, site: Site, listings: dict[str, Listing], db: Session
):
    user = make_account(
        db, LocalProvider(engine=db.get_bind()), f"compartido-{time.time_ns()}@correo.cl", profile=ProfileId.CLIENTE
    )
    favourites.keep_in_account(session=db, actor=actor_of(user), uids=[listings["other"].uid])
    _sign_in(db, adult, site, user)
    page = adult.new_page()
    _favourites_page(page)
    cards = page.locator("[data-favoritas-lista] [data-testid=listing-card]")
    expect(cards).to_contain_text(listings["other"].display_name)

    page.get_by_role("button", name="Cerrar sesión").first.click()
    expect(page.get_by_text("Cerraste tu sesión.")).to_be_visible()
    _favourites_page(page)
    expect(page.get_by_text("Aún no tienes favoritas.")).to_be_visible()
    assert _account_rows(db, user) == {listings["other"].uid}  # still in the account, for the next sign-in


# Holds back every call of window.favoritas.adopt (the account's list arriving) until the test lets them go.
_HOLD_ADOPT = """
(() => {
  let held = null;
  window.__adoptHeld = [];
  window.__releaseAdopt = () => { window.__adoptHeld.splice(0).forEach((call) => call()); };
  Object.defineProperty(window, "favoritas", {
    configurable: true,
    get() { return held; },
    set(value) {
      const adopt = value.adopt;
      value.adopt = (...args) => { window.__adoptHeld.push(() => adopt(...args)); };
      held = value;
    },
  });
})();
"""


def test_a_press_while_the_accounts_list_is_on_its_way_is_not_undone(
    adult: BrowserContext, site: Site, listings: dict[str, Listing], db: Session
):
    """The account's list read when the page opened arrives after a press: the press stays, and the account
    gets the device's newer list."""
    user = make_account(
        db, LocalProvider(engine=db.get_bind()), f"carrera-{time.time_ns()}@correo.cl", profile=ProfileId.CLIENTE
    )
    favourites.keep_in_account(session=db, actor=actor_of(user), uids=[listings["card"].uid])
    _sign_in(db, adult, site, user)
    page = adult.new_page()
    page.add_init_script(_HOLD_ADOPT)
    _detail_page(page, listings["detail"])
    page.wait_for_function("() => window.__adoptHeld.length > 0")  # the page's join answer, held back
    _press(page, listings["detail"], "true")
    page.evaluate("() => window.__releaseAdopt()")
    _until(
        lambda: _account_rows(db, user) == {listings["card"].uid, listings["detail"].uid},
        "the account did not get both: the one it had and the one pressed",
    )
    expect(_heart(page, listings["detail"]).first).to_have_attribute("aria-pressed", "true")
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('favoritas') || '[]')")
    assert set(saved) == {listings["detail"].uid, listings["card"].uid}
