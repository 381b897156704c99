"""A write in flight when its connection drops is told in Spanish (issue 18 §2).

Playwright stands between the page and the app's websocket: it passes every message on, and can
close the page's side at the moment an event goes out (the app node dying mid-write, its answer
never sent) or after the answer came back. Only the first case shows assets/site.js's alert.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e.conftest import Site

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]

WRITE_CUT = "Se cortó la conexión mientras guardábamos. Revisa si tu cambio quedó guardado y vuelve a intentarlo."
WRONG_LOGIN = "El correo o la contraseña no son correctos."
SENT_EVENT = re.compile(r'^42(/[^,]*,)?\d*\["event"')


@dataclass
class Wire:
    """The page's websocket connections, and whether the next event sent should cut the current one."""

    connections: list[WebSocketRoute] = field(default_factory=list)
    cut_next_event: bool = False

    def route(self, page_side: WebSocketRoute) -> None:
        server = page_side.connect_to_server()
        self.connections.append(page_side)

        def to_server(message: str | bytes) -> None:
            server.send(message)
            if self.cut_next_event and isinstance(message, str) and SENT_EVENT.match(message):
                self.cut_next_event = False
                page_side.close()  # the event reached the node, which dies before answering

        page_side.on_message(to_server)
        server.on_message(page_side.send)

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
    wire.connections[-1].close()
    wire.wait_for_connections(page, 2)  # the drop was seen: the app reconnected
    expect(page.get_by_role("form", name="Ingresar").get_by_role("button", name="Ingresar")).to_be_enabled()
    expect(page.get_by_text(WRITE_CUT)).to_have_count(0)
