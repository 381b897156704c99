"""Headers, origins and cookies on the running production build.

The security headers on a real page and one of its hashed scripts; the site
opened at http://127.0.0.1:PORT (while SITE_URL says localhost) hydrating with
no Content-Security-Policy violation; Reflex's connection notice in Spanish; a
websocket without Origin refused by the production build; the 18+ cookie marked
Secure when SITE_URL is https, whichever way it is set, and usable on http.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.components.age_gate import AGE_ACCEPT
from app.components.failures import CONNECTION_LOST
from app.states.auth import FORBIDDEN_MESSAGE
from app.states.public import AGE_COOKIE
from app.web.preview import PREVIEW_ID
from tests.e2e.conftest import CITY, Site, accept_age
from tests.websocket_handshake import ACCEPTED, handshake_status

pytestmark = pytest.mark.e2e

# Reports every CSP violation to the console, where the test collects it.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
});
"""


def _vary(response: httpx.Response) -> list[str]:
    return [token.strip().lower() for value in response.headers.get_list("vary") for token in value.split(",")]


def _script_sources(response: httpx.Response) -> list[str]:
    for directive in response.headers["content-security-policy"].split(";"):
        name, *sources = directive.split()
        if name == "script-src":
            return sources
    raise AssertionError("no script-src in the policy")


def _age_cookie(context: BrowserContext) -> dict:
    """The 18+ cookie as the browser stored it."""
    return next(cookie for cookie in context.cookies() if cookie["name"] == AGE_COOKIE)


def _accept_in_the_app(page: Page) -> None:
    """Confirm the app's own 18+ notice (not the server's preview of it, whose form posts), and wait for the cookie."""
    page.locator(f"#{PREVIEW_ID}").wait_for(state="detached")
    page.get_by_role("button", name=AGE_ACCEPT).click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    page.wait_for_function(f"document.cookie.split('; ').includes('{AGE_COOKIE}=1')")


def _loopback_url(site: Site) -> str:
    return f"http://127.0.0.1:{urlsplit(site.url).port}"


@pytest.fixture
def loopback_page(browser: Browser, site: Site) -> Iterator[tuple[Page, list[str]]]:
    """A fresh tab on http://127.0.0.1:PORT, and the console errors it logs."""
    context = browser.new_context(base_url=_loopback_url(site), locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    context.add_init_script(REPORT_VIOLATIONS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield tab, errors
    context.close()


def test_a_page_and_its_hashed_script_carry_the_security_headers(site: Site):
    with httpx.Client(base_url=site.url, follow_redirects=True, timeout=10) as client:
        page = client.get(f"/escorts/{CITY}")
        assert page.status_code == 200 and "<html" in page.text
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert page.headers["cross-origin-opener-policy"] == "same-origin"
        assert "camera=()" in page.headers["permissions-policy"]
        policy = page.headers["content-security-policy"]
        for directive in ("default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"):
            assert directive in policy
        scripts = _script_sources(page)
        assert "'unsafe-eval'" in scripts and "'unsafe-inline'" not in scripts
        assert any(source.startswith("'sha256-") for source in scripts)
        assert page.headers["cache-control"] == "no-cache"
        assert "strict-transport-security" not in page.headers  # SITE_URL is http here
        assert _vary(page).count("origin") == 1

        # Named by a script's src, a preload hint or the inline module script's imports.
        script_path = re.search(r'"(/assets/[^"]+-[A-Za-z0-9_-]{8,}\.js)"', page.text)
        assert script_path, "the page names no hashed script"
        script = client.get(script_path.group(1), headers={"Origin": site.url})
        assert script.status_code == 200
        assert script.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert script.headers["x-content-type-options"] == "nosniff"
        assert _vary(script).count("origin") == 1

        assert client.get("/escorts-ssg").headers["cache-control"] == "private, max-age=60"
        assert client.get("/healthz").headers["x-content-type-options"] == "nosniff"
        assert client.get("/escorts", headers={"Host": "sitio-falso.example"}).status_code == 400


def test_the_site_opened_at_127_0_0_1_works_without_csp_violations(loopback_page, site: Site):
    page, errors = loopback_page
    page.goto("/escorts")
    accept_age(page)
    expect(page.get_by_role("heading", name="Escorts en Chile", level=1)).to_be_visible()
    page.get_by_role("link", name="Temuco").first.click()
    expect(page.get_by_role("heading", name="Escorts en Temuco", level=1)).to_be_visible()
    expect(page.get_by_test_id("listing-card").filter(has_text=site.names["base"])).to_be_visible()
    # A server-sent toast runs through eval(): the reason for 'unsafe-eval'.
    page.goto("/admin/escorts")
    expect(page.get_by_text(FORBIDDEN_MESSAGE)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/escorts$"))
    expect(page.get_by_text("Cannot connect")).to_have_count(0)
    assert [error for error in errors if "Content Security Policy" in error or "CSP violation" in error] == []


def test_a_lost_connection_is_told_in_spanish(loopback_page):
    page, _ = loopback_page
    page.goto("/escorts")
    accept_age(page)
    notice = page.get_by_role("alert").filter(has_text=CONNECTION_LOST)
    page.context.set_offline(True)
    expect(notice).to_be_visible()
    expect(page.get_by_text("Cannot connect")).to_have_count(0)
    page.context.set_offline(False)
    expect(notice).to_have_count(0)


def test_the_production_build_refuses_a_websocket_without_origin(site: Site):
    """The e2e site is Reflex's production build (scripts/serve.py) with ENVIRONMENT=test: still production."""
    port = urlsplit(site.url).port
    assert port is not None
    assert handshake_status(port, site.url) == ACCEPTED  # what a browser sends
    assert handshake_status(port, None) == 403  # a script
    assert handshake_status(port, "https://otro-sitio.example") == 403


def test_the_age_cookie_stays_usable_on_http(page: Page):
    page.goto(f"/escorts/{CITY}")
    _accept_in_the_app(page)
    assert _age_cookie(page.context)["secure"] is False  # a Secure cookie would never come back over http
    page.reload()
    expect(page.get_by_test_id("listing-card").first).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_the_age_cookie_is_secure_when_the_site_is_https(browser: Browser, https_site: str):
    context = browser.new_context(base_url=https_site, locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    # Set by the app's notice.
    page.goto("/escorts")
    _accept_in_the_app(page)
    assert _age_cookie(context)["secure"] is True
    page.reload()
    expect(page.get_by_role("heading", name="Escorts en Chile", level=1)).to_be_visible()
    page.locator(f"#{PREVIEW_ID}").wait_for(state="detached")
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert _age_cookie(context)["secure"] is True  # the app read it back without writing it over
    # Set by the form of the pages without JavaScript.
    context.clear_cookies()
    page.goto("/escorts-ssg")
    page.get_by_role("button", name=AGE_ACCEPT).click()
    expect(page.get_by_role("button", name=AGE_ACCEPT)).to_have_count(0)
    assert _age_cookie(context)["secure"] is True
    context.close()
