"""Pages while PostgreSQL cannot be reached: every server-rendered route answers a Spanish 503 with
Retry-After, and the same routes answer normally again once the database is back, with no restart.

The app's engine reaches this test's database through a TCP proxy the test cuts: every open
connection is dropped and new ones are closed on arrival, as while PostgreSQL restarts. The shared
cluster itself is never touched. The exported Reflex pages are test_seo_http's stand-ins.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url
from sqlmodel import Session
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import get_engine, make_engine
from app.identity.sessions import SESSION_COOKIE
from app.routes import ADVERTISER_NEW_LISTING
from app.settings import get_settings
from app.states.failures import DATABASE_DOWN
from app.states.public import AGE_COOKIE
from app.web import seo_api
from app.web.api import build_api
from app.web.outage import RETRY_AFTER_S
from tests.factories import make_listing, make_owner, open_session
from tests.integration.test_seo_http import EXPORTED

pytestmark = pytest.mark.integration


class CuttableProxy:
    """A TCP proxy to ``upstream`` on a free loopback port; ``cut()`` drops every connection and refuses
    new ones (each is closed on arrival) until ``restore()``."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # the listener was closed
                return
            if not self.open:
                client.close()
                continue
            server = socket.create_connection(self.upstream)
            with self.lock:
                self.sockets |= {client, server}
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(source, target)

    def _drop(self, *sockets: socket.socket) -> None:
        for each in sockets:
            with self.lock:
                self.sockets.discard(each)
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()

    def cut(self) -> None:
        self.open = False
        with self.lock:
            dropped = list(self.sockets)
        self._drop(*dropped)

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


async def _reflex_stand_in(scope, receive, send):
    """Reflex's mount behind the plain routes: the exported file's name."""
    await PlainTextResponse(f"reflex {scope['path']}")(scope, receive, send)


@pytest.fixture
def site(app_database, tmp_path, monkeypatch) -> Iterator[tuple[TestClient, CuttableProxy, dict[str, int]]]:
    """The API on a database reached through a CuttableProxy, and the pages to load with their usual status."""
    exported = tmp_path / "client"
    for name, document in EXPORTED.items():
        (exported / name).parent.mkdir(parents=True, exist_ok=True)
        (exported / name).write_text(document)
    monkeypatch.setattr(seo_api, "frontend_dir", lambda: exported)
    url = make_url(app_database)
    proxy = CuttableProxy((url.host or "127.0.0.1", url.port or 5432))
    monkeypatch.setenv("DATABASE_URL", url.set(host="127.0.0.1", port=proxy.port).render_as_string(False))
    get_settings.cache_clear()
    get_engine.cache_clear()
    engine = make_engine(app_database)
    with Session(engine, expire_on_commit=False) as session:
        owner = make_owner(session, "duena@example.cl")
        listing = make_listing(session, owner, name="Ana Talquina", city="talca")
        token = open_session(session, owner.uid)
    engine.dispose()
    pages = {
        "/escorts": 200,
        "/escorts/talca": 200,
        "/escorts/talca/verificadas": 200,
        f"/escorts/talca/ana-talquina/{listing.uid}": 200,
        "/escorts-ssg": 200,
        "/escorts-ssg/talca": 200,
        "/sitemap.xml": 200,
        "/sitemaps/mujeres/talca.xml": 200,
        ADVERTISER_NEW_LISTING: 200,
        "/media/photos/ab/abcdefghijklmnop.webp": 404,
    }
    api = build_api(reflex_app)
    api.mount("", _reflex_stand_in)
    with TestClient(api, base_url="http://localhost", cookies={AGE_COOKIE: "1", SESSION_COOKIE: token}) as client:
        yield client, proxy, pages
    proxy.close()


def test_pages_answer_a_spanish_503_while_the_database_is_down_and_come_back_by_themselves(site):
    client, proxy, pages = site
    assert client.get("/healthz").status_code == 200

    proxy.cut()
    assert client.get("/healthz").status_code == 503
    for path in pages:
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 503, (path, response.status_code, response.text[:200])
        assert response.headers["retry-after"] == str(RETRY_AFTER_S)
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["content-type"].startswith("text/html")
        assert '<html lang="es-CL">' in response.text
        assert DATABASE_DOWN in response.text
        assert f'<a href="{path}">Volver a intentar</a>' in response.text

    proxy.restore()
    assert client.get("/healthz").status_code == 200
    for path, status in pages.items():
        response = client.get(path, follow_redirects=False)
        assert response.status_code == status, (path, response.status_code, response.text[:200])
        assert DATABASE_DOWN not in response.text
