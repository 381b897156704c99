"""The plain HTTP routes through Starlette's TestClient on the app's own API:
SSG paging (never a 500, never an empty page), the no-JavaScript age form's
limits, and /healthz with the database up and down."""

from __future__ import annotations

import pytest
from sqlmodel import Session
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import make_engine
from app.settings import get_settings
from app.states.public import AGE_COOKIE
from app.web.api import AGE_FORM_MAX_BYTES, build_api
from tests.factories import make_listing, make_owner
from tests.handlers import run_async
from tests.ports import free_port

pytestmark = pytest.mark.integration

CITY = "temuco"
LISTINGS = 5  # three pages of two


@pytest.fixture
def client(app_database, tmp_path, monkeypatch) -> TestClient:
    """The API on this test's database, two cards per page, five listings in Temuco."""
    monkeypatch.setenv("PAGE_SIZE", "2")
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    get_settings.cache_clear()
    engine = make_engine(app_database)
    with Session(engine) as session:
        owner = make_owner(session, "duena@example.cl")
        for i in range(LISTINGS):
            make_listing(session, owner, name=f"Temuquense {i}", city=CITY)
    engine.dispose()
    with TestClient(build_api(reflex_app), base_url="http://localhost") as test_client:
        yield test_client


def _page(client: TestClient, value: str | None = None, city: str = CITY):
    params = {} if value is None else {"pagina": value}
    return client.get(f"/escorts-ssg/{city}", params=params, follow_redirects=False)


def _assert_not_found(response) -> None:
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["x-robots-tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in response.text
    assert "Esta página no existe" in response.text
    assert f'href="/escorts-ssg/{CITY}"' in response.text


def test_every_page_of_a_city_shows_its_cards(client):
    counts = []
    for value in (None, "2", "3"):
        response = _page(client, value)
        assert response.status_code == 200
        counts.append(response.text.count('<article class="card" data-testid="listing-card">'))
    assert counts == [2, 2, 1]
    assert 'rel="canonical" href="http://localhost:3000/escorts-ssg/temuco?pagina=3"' in _page(client, "3").text


@pytest.mark.parametrize("value", ["4", "9999"])
def test_a_page_past_the_last_is_not_found(client, value):
    _assert_not_found(_page(client, value))


@pytest.mark.parametrize(
    "value", ["", "abc", "+1", "-1", "1.0", "٣", "２", "0", "0000", "10000", "123456789012345678901234567890"]
)
def test_malformed_zero_and_negative_pages_are_not_found(client, value):
    _assert_not_found(_page(client, value))


def test_pagina_given_twice_is_not_found(client):
    _assert_not_found(client.get(f"/escorts-ssg/{CITY}?pagina=2&pagina=3", follow_redirects=False))


@pytest.mark.parametrize(("value", "target"), [("1", "/escorts-ssg/temuco"), ("02", "/escorts-ssg/temuco?pagina=2")])
def test_other_spellings_redirect_to_the_canonical_url(client, value, target):
    response = _page(client, value)
    assert (response.status_code, response.headers["location"]) == (301, target)


def test_a_city_without_listings_has_only_its_first_page(client):
    first = _page(client, city="copiapo")
    assert first.status_code == 200 and "Aún no hay avisos en esta ciudad." in first.text
    assert _page(client, "2", city="copiapo").status_code == 404


def test_the_age_notice_returns_to_the_same_page(client):
    assert 'name="next" value="/escorts-ssg/temuco?pagina=2"' in _page(client, "2").text


def _confirm(client: TestClient, body: bytes, content_type: str | None = "application/x-www-form-urlencoded"):
    headers = {"content-type": content_type} if content_type else {}
    return client.post("/escorts-ssg/confirmar-edad", content=body, headers=headers, follow_redirects=False)


def test_age_confirmation_sets_the_cookie_and_returns(client):
    body = b"next=%2Fescorts-ssg%2Ftemuco%3Fpagina%3D2"
    response = _confirm(client, body, "application/x-www-form-urlencoded; charset=UTF-8")
    assert (response.status_code, response.headers["location"]) == (303, "/escorts-ssg/temuco?pagina=2")
    assert response.cookies.get(AGE_COOKIE) == "1"


@pytest.mark.parametrize(("site_url", "secure"), [("http://localhost", False), ("https://escorts.example", True)])
def test_the_age_cookie_is_secure_exactly_when_the_site_is_https(client, monkeypatch, site_url, secure):
    monkeypatch.setenv("SITE_URL", site_url)
    get_settings.cache_clear()
    response = client.post("/escorts-ssg/confirmar-edad", data={"next": "/escorts-ssg"}, follow_redirects=False)
    assert response.status_code == 303
    attributes = [part.strip().lower() for part in response.headers["set-cookie"].split(";")]
    assert attributes[0] == f"{AGE_COOKIE}=1"
    assert {"path=/", "samesite=lax", "max-age=31536000"} <= set(attributes)
    assert ("secure" in attributes) is secure  # on http a Secure cookie would never come back


@pytest.mark.parametrize(
    "target", ["//evil.example", "/escorts-ssg.evil.com", "https://evil.example/", "/login", "/escorts/atlantida"]
)
def test_age_confirmation_never_sends_the_browser_elsewhere(client, target):
    response = client.post("/escorts-ssg/confirmar-edad", data={"next": target}, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/escorts-ssg")


@pytest.mark.parametrize("content_type", ["application/json", "multipart/form-data; boundary=x", "text/plain", None])
def test_age_confirmation_refuses_other_content_types(client, content_type):
    response = _confirm(client, b"next=%2Fescorts-ssg", content_type)
    assert response.status_code == 415
    assert AGE_COOKIE not in response.cookies


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example", "sec-fetch-site": "cross-site"},
        {"origin": "https://evil.example"},  # a browser that sends Origin but not Sec-Fetch-Site
        {"sec-fetch-site": "cross-site"},  # one that sends Sec-Fetch-Site but leaves Origin out
        {"sec-fetch-site": "same-site"},  # a sibling subdomain is another site's page
        {"origin": "null"},  # a sandboxed frame or a redirect from elsewhere
        {"origin": "http://localhost", "sec-fetch-site": "cross-site"},
    ],
)
def test_age_confirmation_refuses_a_post_from_another_site(client, headers):
    response = client.post(
        "/escorts-ssg/confirmar-edad", data={"next": "/escorts-ssg"}, headers=headers, follow_redirects=False
    )
    assert response.status_code == 403
    assert "solo se puede enviar desde una página del sitio" in response.text
    assert AGE_COOKIE not in response.cookies


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://localhost", "sec-fetch-site": "same-origin"},  # a modern browser, from the SSG page
        {"origin": "http://localhost"},
        {"sec-fetch-site": "same-origin"},
        {"origin": get_settings().site_url},  # the configured site address (behind a proxy)
        {},  # an old browser sends neither
    ],
)
def test_age_confirmation_accepts_a_post_from_the_site(client, headers):
    response = client.post(
        "/escorts-ssg/confirmar-edad", data={"next": "/escorts-ssg"}, headers=headers, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.cookies.get(AGE_COOKIE) == "1"


def test_age_confirmation_refuses_a_large_body(client):
    body = b"next=%2Fescorts-ssg&relleno=" + b"x" * AGE_FORM_MAX_BYTES
    response = _confirm(client, body)
    assert response.status_code == 413
    assert AGE_COOKIE not in response.cookies


def test_a_large_body_without_length_is_not_read_past_the_limit(client):
    """A body streamed in 1 KiB chunks with no Content-Length: reading stops past 2 KiB."""
    api = build_api(reflex_app)
    chunks_read, messages = 0, []

    async def receive():
        nonlocal chunks_read
        chunks_read += 1
        return {"type": "http.request", "body": b"x" * 1024, "more_body": chunks_read < 1024}

    async def send(message):
        messages.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/escorts-ssg/confirmar-edad",
        "raw_path": b"/escorts-ssg/confirmar-edad",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
        "server": ("localhost", 80),
        "client": ("127.0.0.1", 50000),
    }
    run_async(api(scope, receive, send))
    assert messages[0]["status"] == 413
    assert chunks_read <= 3


def test_health_answers_ok_with_the_database_up(client):
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_health_answers_503_in_json_while_the_database_is_unreachable(app_database, tmp_path, monkeypatch):
    from app.db import get_engine

    monkeypatch.setenv("DATABASE_URL", f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nada")
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    get_settings.cache_clear()
    get_engine.cache_clear()
    with TestClient(build_api(reflex_app)) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "unreachable"}
