"""A write in flight when its connection drops is told in Spanish (issue 18 §2).

Playwright stands between the page and the app's websocket: it passes every message on, and can
close the page's side at the moment an event goes out (the app node dying mid-write, its answer
never sent) or after the answer came back. Only the first case shows assets/site.js's alert.
What a user chose and had not sent yet is still there once the app reconnected, unless the
server no longer accepts them; a reload shows what the server has.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE, revoke_user_sessions
from app.models import Listing, ProfileId, User
from app.routes import PUBLIC_HOME
from app.seed import _ensure_catalogues
from tests.e2e.conftest import Site
from tests.factories import make_account, make_listing, open_session

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]

WRITE_CUT = "Se cortó la conexión mientras guardábamos. Revisa si tu cambio quedó guardado y vuelve a intentarlo."
WRONG_LOGIN = "El correo o la contraseña no son correctos."
SENT_EVENT = re.compile(r'^42(/[^,]*,)?\d*\["event"')
# What the app answers an event with (assets/site.js counts an event answered on the same packet).
ANSWER = SENT_EVENT


@dataclass
class Wire:
    """The page's websocket connections, and whether the next event sent should cut the current one."""

    connections: list[WebSocketRoute] = field(default_factory=list)
    cut_next_event: bool = False
    unanswered: int = 0  # events sent since the app last answered one, as assets/site.js counts them

    def route(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()
        self.connections.append(page_side)

        def to_server(message: str | bytes) -> None:
            server.send(message)
            if isinstance(message, str) and SENT_EVENT.match(message):
                self.unanswered += 1
                if self.cut_next_event:
                    self.cut_next_event = False
                    page_side.close()  # the event reached the node, which dies before answering

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and ANSWER.match(message):
                self.unanswered = 0
            page_side.send(message)

        page_side.on_message(to_server)
        server.on_message(to_page)

    def wait_until_answered(self, page: Page, timeout_s: float = 20) -> None:
        """Until every event the page sent has been answered (one it sends after an answer, a field's message
        taken away say, is a write in flight too)."""
        deadline = time.monotonic() + timeout_s
        while self.unanswered:
            assert time.monotonic() < deadline, f"{self.unanswered} events of the page still unanswered"
            page.wait_for_timeout(50)  # lets Playwright deliver the routing callbacks between polls

    def wait_for_connections(self, page: Page, count: int, timeout_s: float = 20) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.connections) < count:
            assert time.monotonic() < deadline, f"the page opened {len(self.connections)} connections, not {count}"
            page.wait_for_timeout(50)  # lets Playwright deliver the routing callbacks between polls


@pytest.fixture
def wired(browser: Browser, site: Site) -> Iterator[tuple[Page, Wire]]:
    """A tab whose websocket goes through a ``Wire``."""
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    wire = Wire()
    context.route_web_socket(re.compile(r"/_event"), wire.route)
    yield context.new_page(), wire
    context.close()


def _send_wrong_login(page: Page) -> None:
    page.goto("/login")
    form = page.get_by_role("form", name="Ingresar")
    expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()  # the page is live
    form.get_by_label("Correo electrónico").fill("nadie-en-vuelo@correo.cl")
    form.get_by_label("Contraseña").fill("una-clave-cualquiera")
    form.get_by_role("button", name="Ingresar").click()


def test_a_write_cut_before_its_answer_is_told_in_spanish(wired):
    page, wire = wired
    page.goto("/login")
    wire.wait_for_connections(page, 1)
    wire.cut_next_event = True
    form = page.get_by_role("form", name="Ingresar")
    expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()
    form.get_by_label("Correo electrónico").fill("nadie-en-vuelo@correo.cl")
    form.get_by_label("Contraseña").fill("una-clave-cualquiera")
    form.get_by_role("button", name="Ingresar").click()

    notice = page.get_by_role("alert").filter(has_text=WRITE_CUT)
    expect(notice).to_be_visible()
    wire.wait_for_connections(page, 2)  # the app reconnected on its own
    notice.get_by_role("button", name="Cerrar aviso").click()
    expect(notice).to_have_count(0)


def test_a_connection_dropped_after_the_answer_shows_nothing(wired):
    page, wire = wired
    _send_wrong_login(page)
    expect(page.get_by_role("form", name="Ingresar").get_by_text(WRONG_LOGIN)).to_be_visible()  # answered
    wire.wait_until_answered(page)  # and whatever the page sent after it
    wire.connections[-1].close()
    wire.wait_for_connections(page, 2)  # the drop was seen: the app reconnected
    expect(page.get_by_role("form", name="Ingresar").get_by_role("button", name="Ingresar")).to_be_enabled()
    expect(page.get_by_text(WRITE_CUT)).to_have_count(0)


MY_LISTINGS = "/my/publicacion/misPublicaciones"


def _signed_in_advertiser(page: Page, site: Site, db: Session, email: str) -> User:
    """An advertiser account whose session cookie this browser holds (the catalogues in place)."""
    _ensure_catalogues(db)
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=ProfileId.PROFESOR)
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )
    return user


def _my_listings_with_a_city_chosen(page: Page, wire: Wire, site: Site, db: Session, email: str) -> Listing:
    """An advertiser's "Mis publicaciones" with "Talca" chosen in their listing's copy form, not sent."""
    user = _signed_in_advertiser(page, site, db, email)
    listing = make_listing(db, user, name="Rita Reconecta", city="valdivia", tier="chicas-del-dia")
    page.goto(MY_LISTINGS)
    _copy_form(page).get_by_role("combobox").select_option("talca")
    wire.wait_for_connections(page, 1)
    return listing


def _copy_form(page: Page) -> Locator:
    return page.get_by_role("article", name="Rita Reconecta").get_by_role("form", name="Copiar a otra ciudad")


def test_a_choice_not_yet_sent_is_still_there_after_a_reconnect(wired, site: Site, db: Session):
    page, wire = wired
    listing = _my_listings_with_a_city_chosen(page, wire, site, db, "reconecta@correo.cl")
    listing.expires_at = datetime(2031, 3, 15, 12, tzinfo=UTC)  # what the page shows once it read the list again
    db.add(listing)
    db.commit()
    wire.connections[-1].close()
    wire.wait_for_connections(page, 2)
    expect(page.get_by_role("article", name="Rita Reconecta")).to_contain_text("Vence el 15 de marzo de 2031")
    expect(_copy_form(page).get_by_role("combobox")).to_have_value("talca")
    _copy_form(page).get_by_role("button", name="Copiar").click()
    expect(page).to_have_url(re.compile(r"/my/publicacion/nuevaPublicacion/?\?id=\w+"))
    expect(page.get_by_text(re.compile(r"^Paso 2 de 9"))).to_be_visible()  # the wizard replaced the list
    expect(page.get_by_label("Ciudad", exact=True)).to_have_value("talca")


def test_a_page_kept_over_a_reconnect_goes_when_the_session_ended(wired, site: Site, db: Session):
    page, wire = wired
    listing = _my_listings_with_a_city_chosen(page, wire, site, db, "reconecta-fuera@correo.cl")
    revoke_user_sessions(session=db, user_uid=listing.owner_uid)
    db.commit()
    wire.connections[-1].close()
    wire.wait_for_connections(page, 2)
    expect(page).to_have_url(re.compile(re.escape(PUBLIC_HOME) + "$"))  # refused: sent home
    expect(page.get_by_role("article", name="Rita Reconecta")).to_have_count(0)
    expect(page.locator(".area-ready")).to_have_count(0)


def test_a_reload_shows_what_the_server_has_not_what_the_tab_had(page: Page, site: Site, db: Session):
    user = _signed_in_advertiser(page, site, db, "recarga@correo.cl")
    draft = make_listing(db, user, name="Olga Original", city="valdivia", status="borrador")
    draft.wizard_step = 4  # its first unsaved step, "Tu aviso", where the name is
    db.add(draft)
    db.commit()
    page.goto(f"/my/publicacion/nuevaPublicacion?id={draft.uid}")
    name = page.get_by_label("Nombre del aviso")
    expect(name).to_have_value("Olga Original")
    draft.display_name = "Olga Recargada"  # changed elsewhere (another tab, another device)
    db.add(draft)
    db.commit()
    page.reload()
    expect(name).to_have_value("Olga Recargada")
