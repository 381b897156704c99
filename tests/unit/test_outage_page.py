"""app.web.outage: only a database outage raised before the response started becomes the Spanish 503."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from app.core.errors import StorageError
from app.states.failures import DATABASE_DOWN
from app.web.outage import DatabaseOutagePage, outage_page


def _outage() -> OperationalError:
    return OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))


async def down(_):
    raise _outage()


async def wrapped(_):
    try:
        raise _outage()
    except OperationalError as exc:
        raise StorageError("No pudimos guardar los cambios.") from exc


async def broken(_):
    raise ValueError("a bug, not an outage")


async def down_mid_body(_):
    async def body():
        yield b"<p>primera parte</p>"
        raise _outage()

    return StreamingResponse(body(), media_type="text/html")


def _client() -> TestClient:
    routes = [Route(f"/{endpoint.__name__}", endpoint) for endpoint in (down, wrapped, broken, down_mid_body)]
    return TestClient(Starlette(routes=routes, middleware=[Middleware(DatabaseOutagePage)]))


@pytest.mark.parametrize("path", ["/down", "/wrapped"])
def test_an_outage_anywhere_in_the_chain_is_a_spanish_503(path):
    response = _client().get(path)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert DATABASE_DOWN in response.text
    assert f'<a href="{path}">Volver a intentar</a>' in response.text


@pytest.mark.parametrize(("path", "error"), [("/broken", ValueError), ("/down_mid_body", OperationalError)])
def test_other_failures_and_outages_after_the_headers_go_on_to_the_server(path, error):
    with pytest.raises(error):
        _client().get(path)


@pytest.mark.parametrize("path", ["//otro.example/x", "/\\otro.example", "https://otro.example/"])
def test_the_try_again_link_never_leads_off_the_site(path):
    assert 'href="/"' in outage_page(path)


def test_the_try_again_link_keeps_a_path_of_the_site():
    assert 'href="/escorts/talca"' in outage_page("/escorts/talca")
