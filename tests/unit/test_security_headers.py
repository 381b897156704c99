"""Security headers, cache lifetimes, Host and Origin checks of app.web.middleware.

The middleware is driven with Starlette's TestClient around a frontend built
like Reflex's (prerendered HTML with inline scripts, hashed assets, Reflex's
own static file server) and around the real app.web.api routes, inside the same
layers Reflex's App.__call__ puts around the api_transformer list.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from reflex.app import App
from reflex.utils.precompressed_staticfiles import PrecompressedStaticFiles
from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute
from starlette.testclient import TestClient
from starlette.types import ASGIApp
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.seo import SITE_SCRIPT_LOADER
from app.settings import Settings
from app.web.middleware import (
    IMMUTABLE,
    REVALIDATE,
    SecurityMiddleware,
    allowed_host_names,
    allowed_origins,
    serves_production,
    websocket_origin_allowed,
)

SITE = "http://localhost:3000"
INLINE_SCRIPT = 'window.__reactRouterContext = {"ssr": false};'
ASSET = "/assets/root-3esCWEFw.js"


def _settings(site_url: str = SITE, environment: str = "test", allowed: str = "") -> Settings:
    """Settings validated as in a test run; production is set after validation so that
    the production-only requirements of other features (SMTP, proxy hops) stay out of these tests."""
    settings = Settings(environment="test", site_url=site_url, allowed_origins=allowed)
    return settings.model_copy(update={"environment": environment})


def _policy(response) -> dict[str, list[str]]:
    directives = {}
    for directive in response.headers["content-security-policy"].split(";"):
        name, *sources = directive.split()
        directives[name] = sources
    return directives


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("hola")
    await websocket.close()


@pytest.fixture
def build(tmp_path) -> Path:
    """A production build as Reflex lays it out: pages with inline scripts, hashed assets, plain assets."""
    client = tmp_path / "client"
    (client / "assets").mkdir(parents=True)
    (client / "escorts").mkdir()
    page = f'<!DOCTYPE html><html lang="es-CL"><head><script>{INLINE_SCRIPT}</script></head><body>Escorts</body></html>'
    (client / "escorts" / "index.html").write_text(page)
    (client / "404.html").write_text(f"<!DOCTYPE html><html><head><script>{INLINE_SCRIPT}</script></head></html>")
    (client / ASSET.lstrip("/")).write_text("export const root = 1;")
    (client / "site.js").write_text("console.log('site');")
    return client


@pytest.fixture
def api_env(sqlite_url: str, tmp_path, monkeypatch) -> Iterator[Path]:
    """app.web.api's routes on a migrated SQLite file of this test, with one public listing's photo in the media folder."""
    from sqlmodel import Session

    from app.db import get_engine, make_engine
    from app.models import ListingPhoto
    from app.settings import get_settings
    from tests.factories import make_listing, make_owner

    media = tmp_path / "media"
    (media / "photos").mkdir(parents=True)
    (media / "photos" / "foto.jpg").write_bytes(b"\xff\xd8\xff\xd9")
    engine = make_engine(sqlite_url)
    with Session(engine) as session:
        listing = make_listing(session, make_owner(session, "duena@example.cl"), photos=0)
        session.add(ListingPhoto(listing_uid=listing.uid, position=0, path="photos/foto.jpg"))
        session.commit()
    engine.dispose()
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    monkeypatch.setenv("MEDIA_DIR", str(media))
    monkeypatch.setenv("ENVIRONMENT", "test")
    monkeypatch.setenv("SITE_URL", SITE)
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield media
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()


def reflex_stack(build: Path, settings: Settings, *, routes: Starlette | None = None) -> ASGIApp:
    """The layers reflex.app.App.__call__ builds, with api_transformer=[routes, SecurityMiddleware].

    Reflex's API (the frontend mount and the websocket) gets a CORS middleware;
    each Starlette app of the list gets one and the API mounted under it; the
    result goes into a top-level app that gets one more.
    """
    api = Starlette(
        routes=[
            WebSocketRoute("/_event", _echo),
            Mount("/", app=PrecompressedStaticFiles(directory=build, html=True, encodings=["gzip"])),
        ]
    )
    App._add_cors(api)
    routes = routes or Starlette()
    App._add_cors(routes)
    routes.mount("", api)
    top = Starlette()
    top.mount("", SecurityMiddleware(routes, settings=settings, static_dir=build))
    App._add_cors(top)
    return top


def _client(app: ASGIApp, base_url: str = SITE) -> TestClient:
    return TestClient(app, base_url=base_url)


def test_a_page_carries_every_security_header(build):
    response = _client(reflex_stack(build, _settings())).get("/escorts")
    assert response.status_code == 200
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert response.headers["cross-origin-opener-policy"] == "same-origin"
    permissions = response.headers["permissions-policy"]
    for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
        assert f"{feature}=()" in permissions
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    assert policy["connect-src"][0] == "'self'" and "ws://localhost:3000" in policy["connect-src"]
    assert "strict-transport-security" not in response.headers
    assert response.headers["server"] == ""  # Granian then leaves out its "server: granian"


def test_the_page_policy_allows_the_built_inline_scripts_and_the_loader_of_site_js_and_no_other(build):
    client = _client(reflex_stack(build, _settings()))
    response = client.get("/escorts")
    built, loader = (
        f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
        for body in (INLINE_SCRIPT, SITE_SCRIPT_LOADER)
    )
    scripts = _policy(response)["script-src"]
    assert scripts == ["'self'", "'unsafe-eval'", *sorted([built, loader])]
    assert "'unsafe-inline'" not in scripts
    # A revalidated page keeps its policy: the 304's headers replace the cached ones.
    revalidated = client.get("/escorts", headers={"If-None-Match": response.headers["etag"]})
    assert revalidated.status_code == 304
    assert _policy(revalidated)["script-src"] == scripts
    assert revalidated.headers["cache-control"] == "no-cache"


def test_hsts_only_when_the_site_is_https(build):
    https = _settings("https://escorts.example.cl", environment="production")
    response = _client(reflex_stack(build, https), "https://escorts.example.cl").get("/escorts")
    assert response.headers["strict-transport-security"] == "max-age=63072000; includeSubDomains"
    assert "wss://escorts.example.cl" in _policy(response)["connect-src"]
    plain = _client(reflex_stack(build, _settings())).get("/escorts")
    assert "strict-transport-security" not in plain.headers


def test_hashed_assets_are_immutable_and_everything_else_revalidates(build):
    client = _client(reflex_stack(build, _settings()))
    asset = client.get(ASSET)
    assert asset.status_code == 200
    assert asset.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert asset.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" in asset.headers
    page = client.get("/escorts")
    assert page.headers["cache-control"] == REVALIDATE == "no-cache"
    plain_asset = client.get("/site.js")
    assert plain_asset.headers["cache-control"] == "no-cache"
    missing_asset = client.get("/assets/gone-AbCdEf12.js")
    assert missing_asset.status_code == 404
    assert missing_asset.headers["cache-control"] == "no-cache"


def test_a_404_page_carries_the_headers(build):
    response = _client(reflex_stack(build, _settings())).get("/no-existe/para/nada")
    assert response.status_code == 404
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["cross-origin-opener-policy"] == "same-origin"
    assert "'unsafe-eval'" in _policy(response)["script-src"]


@pytest.mark.parametrize("origin", [None, SITE, "https://otro-sitio.example"])
def test_vary_names_origin_exactly_once(build, origin):
    headers = {"Origin": origin} if origin else {}
    client = _client(reflex_stack(build, _settings()))
    for path in ("/escorts", ASSET):
        response = client.get(path, headers={**headers, "Accept-Encoding": "identity"})
        vary = [token.strip().lower() for value in response.headers.get_list("vary") for token in value.split(",")]
        assert vary.count("origin") == 1, (path, vary)
        assert vary.count("accept-encoding") == 1, (path, vary)


def test_the_plain_http_routes_carry_the_headers(build, api_env):
    from app.app import app as reflex_app
    from app.web.api import build_api

    client = _client(reflex_stack(build, _settings(), routes=build_api(reflex_app)))
    for path in ("/healthz", "/escorts-ssg", "/media/photos/foto.jpg"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin", path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"], path
        vary = [token.strip().lower() for value in response.headers.get_list("vary") for token in value.split(",")]
        assert vary.count("origin") == 1, (path, vary)
    ssg = client.get("/escorts-ssg")
    assert ssg.headers["cache-control"] == "private, max-age=60"
    assert "cookie" in ssg.headers["vary"].lower()
    assert client.get("/media/photos/foto.jpg").headers["cache-control"] == "public, max-age=31536000, immutable"


def test_an_unknown_host_is_refused(build, api_env):
    from app.app import app as reflex_app
    from app.web.api import build_api

    stack = reflex_stack(build, _settings(), routes=build_api(reflex_app))
    refused = _client(stack, "http://sitio-falso.example").get("/escorts")
    assert refused.status_code == 400
    assert "no corresponde al sitio" in refused.text
    assert refused.headers["x-content-type-options"] == "nosniff"
    for base in (SITE, "http://127.0.0.1:3000", "http://0.0.0.0:8123", "http://[::1]:3000"):
        assert _client(stack, base).get("/escorts").status_code == 200, base
    # Probes call the container by its own address: /healthz answers any Host.
    assert _client(stack, "http://10.0.0.7:8000").get("/healthz").status_code == 200


def test_production_admits_only_the_site_and_the_extra_origins(build):
    production = _settings("https://escorts.example.cl", "production", "https://www.escorts.example.cl")
    stack = reflex_stack(build, production)
    assert _client(stack, "https://escorts.example.cl").get("/escorts").status_code == 200
    assert _client(stack, "https://www.escorts.example.cl").get("/escorts").status_code == 200
    assert _client(stack, "http://localhost:8000").get("/escorts").status_code == 400
    assert _client(stack, "http://127.0.0.1:8000").get("/escorts").status_code == 400


def test_the_websocket_checks_host_and_origin(build, monkeypatch):
    monkeypatch.setenv("REFLEX_ENV_MODE", "dev")  # `reflex run`: development
    client = _client(reflex_stack(build, _settings()))

    def connect(host: str, origin: str | None = None):
        # The test client sends Host: testserver on websockets unless told otherwise.
        return client.websocket_connect("/_event", headers={"Host": host, **({"Origin": origin} if origin else {})})

    with connect("127.0.0.1:3000", "http://127.0.0.1:3000") as websocket:
        assert websocket.receive_text() == "hola"
    with connect("localhost:3000") as websocket:  # no Origin, outside production: a tool, admitted
        assert websocket.receive_text() == "hola"
    for host, origin in (("localhost:3000", "https://otro-sitio.example"), ("sitio-falso.example", SITE)):
        with pytest.raises(WebSocketDisconnect) as refused, connect(host, origin):
            pass
        assert refused.value.code == 1008, (host, origin)


def test_production_refuses_a_websocket_without_origin(build):
    site = "https://escorts.example.cl"
    client = _client(reflex_stack(build, _settings(site, "production")), site)

    def connect(origin: str | None):
        headers = {"Host": "escorts.example.cl", **({"Origin": origin} if origin else {})}
        return client.websocket_connect("/_event", headers=headers)

    with connect(site) as websocket:
        assert websocket.receive_text() == "hola"
    for origin in (None, "https://otro-sitio.example"):
        with pytest.raises(WebSocketDisconnect) as refused, connect(origin):
            pass
        assert refused.value.code == 1008, origin


@pytest.mark.parametrize(
    ("environment", "reflex_mode", "production"),
    [
        ("production", "prod", True),
        ("production", "dev", True),
        ("test", "prod", True),  # the end-to-end sites (scripts/serve.py)
        ("development", "prod", True),  # scripts/run.sh on the embedded defaults
        ("development", "dev", False),  # `reflex run`
        ("test", "dev", False),
    ],
)
def test_production_is_the_setting_or_reflex_production_mode(monkeypatch, environment, reflex_mode, production):
    monkeypatch.setenv("REFLEX_ENV_MODE", reflex_mode)
    assert serves_production(_settings(environment=environment)) is production


@pytest.mark.parametrize(
    ("origin", "production", "admitted"),
    [
        ("https://escorts.example.cl", True, True),
        ("https://escorts.example.cl", False, True),
        (None, True, False),  # no browser leaves it out: a script or a tool
        (None, False, True),  # development and test: tools and test clients
        ("https://otro-sitio.example", True, False),
        ("https://otro-sitio.example", False, False),
        ("", True, False),
        ("null", True, False),  # a sandboxed or file:// page
    ],
)
def test_the_websocket_origin_check(origin, production, admitted):
    origins = frozenset({"https://escorts.example.cl"})
    assert websocket_origin_allowed(origin, origins, production=production) is admitted


def test_allowed_origins_per_environment():
    local = ["http://localhost:3000", "http://127.0.0.1:3000", "http://0.0.0.0:3000", "http://[::1]:3000"]
    assert allowed_origins(_settings(environment="development")) == local
    assert allowed_origins(_settings(environment="test")) == local
    assert allowed_origins(_settings("http://localhost:8123")) == [origin.replace("3000", "8123") for origin in local]
    production = _settings(
        "https://escorts.example.cl", "production", "https://www.escorts.example.cl,HTTP://Otro.cl:80/"
    )
    assert allowed_origins(production) == [
        "https://escorts.example.cl",
        "https://www.escorts.example.cl",
        "http://otro.cl",
    ]
    assert allowed_host_names(production) == {"escorts.example.cl", "www.escorts.example.cl", "otro.cl"}
    assert allowed_host_names(_settings()) == {"localhost", "127.0.0.1", "0.0.0.0", "[::1]"}


@pytest.mark.parametrize("value", ["https://example.cl/ruta", "ftp://example.cl", "example.cl", "https://x.cl:99999"])
def test_allowed_origins_refuses_anything_but_origins(value):
    with pytest.raises(ValueError):
        Settings(environment="test", allowed_origins=value)
