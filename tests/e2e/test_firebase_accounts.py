"""Accounts in a real browser with the Firebase provider, against the Firebase Auth emulator.

The same screens as with local accounts: sign-up with the e-mailed
verification link, sign-in to the profile's landing page with the HttpOnly
session cookie, and sign-out ending the session.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from app.identity.sessions import SESSION_COOKIE
from tests.e2e.conftest import FirebaseSite
from tests.e2e.test_accounts import FORBIDDEN, _sign_up, sign_in
from tests.firebase_emulator import FIREBASE_PROJECT

pytestmark = pytest.mark.e2e


@pytest.fixture
def fb_page(browser: Browser, firebase_site: FirebaseSite) -> Iterator[Page]:
    """A fresh browser context on the Firebase-backed app."""
    context = browser.new_context(base_url=firebase_site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def _emulator_code(site: FirebaseSite, email: str, request_type: str, timeout_s: float = 15) -> str:
    """The latest one-time code the emulator "e-mailed" to ``email``, waiting for it to exist."""
    url = f"http://{site.emulator}/emulator/v1/projects/{FIREBASE_PROJECT}/oobCodes"
    deadline = time.monotonic() + timeout_s
    while True:
        codes = [
            entry["oobCode"]
            for entry in httpx.get(url, timeout=10).json().get("oobCodes", [])
            if entry.get("email") == email and entry.get("requestType") == request_type
        ]
        if codes:
            return codes[-1]
        assert time.monotonic() < deadline, f"the emulator sent no {request_type} code to {email}"
        time.sleep(0.2)


def test_firebase_sign_up_verify_sign_in_and_sign_out(fb_page: Page, firebase_site: FirebaseSite):
    email = "fb-anunciante@correo.cl"
    _sign_up(fb_page, email, advertiser=True)
    fb_page.wait_for_url(re.compile(r".*/login/auth/signup-sucessful/?$"))
    expect(fb_page.get_by_role("heading", name="Un paso más")).to_be_visible()

    # Not verified yet: refused with the Spanish message, no session.
    sign_in(fb_page, email)
    expect(fb_page.get_by_role("alert")).to_contain_text("Confirma tu correo")
    assert SESSION_COOKIE not in {c["name"] for c in fb_page.context.cookies()}

    code = _emulator_code(firebase_site, email, "VERIFY_EMAIL")
    fb_page.goto("/login/accion?" + urlencode({"mode": "verifyEmail", "oobCode": code}))
    expect(fb_page.get_by_role("status")).to_have_text("¡Listo! Tu correo quedó confirmado. Ya puedes ingresar.")

    sign_in(fb_page, email)
    fb_page.wait_for_url(re.compile(r".*/my/publicacion/misPublicaciones/?$"))
    expect(fb_page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
    cookie = {c["name"]: c for c in fb_page.context.cookies()}[SESSION_COOKIE]
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax"

    fb_page.get_by_role("button", name="Cerrar sesión").click()
    fb_page.wait_for_url(re.compile(r".*/escorts/?$"))
    expect(fb_page.get_by_role("link", name="Ingresar")).to_be_visible()
    assert SESSION_COOKIE not in {c["name"] for c in fb_page.context.cookies()}
    fb_page.goto("/my/publicacion/misPublicaciones")
    fb_page.wait_for_url(re.compile(r".*/escorts/?$"))
    expect(fb_page.get_by_text(FORBIDDEN)).to_be_visible()
