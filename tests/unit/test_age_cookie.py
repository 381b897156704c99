"""The 18+ cookie's attributes (app.states.public.age_cookie), the same for the form and the app's page."""

from __future__ import annotations

import pytest

from app.settings import get_settings
from app.states.public import AGE_COOKIE, age_cookie


@pytest.mark.parametrize(
    ("site_url", "expected"),
    [
        ("http://localhost:3000", f"{AGE_COOKIE}=1; Max-Age=31536000; Path=/; SameSite=Lax"),
        ("https://escorts.example.cl", f"{AGE_COOKIE}=1; Max-Age=31536000; Path=/; SameSite=Lax; Secure"),
    ],
)
def test_the_age_cookie_is_secure_exactly_on_an_https_site(monkeypatch, site_url, expected):
    monkeypatch.setenv("SITE_URL", site_url)
    get_settings.cache_clear()
    assert age_cookie() == expected
