"""Pure rules of the identity layer: messages, landings, guards, password policy, lockouts, settings."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from app.identity.errors import AUTH_MESSAGES, AuthError
from app.identity.guards import area_profile, landing_path
from app.identity.provider import check_password_rules
from app.identity.throttle import locked_until
from app.models import ProfileId
from app.settings import PROJECT_ROOT, Settings

SPEC_CODES = (
    "email-already-in-use", "wrong-password", "user-not-found", "user-disabled", "invalid-credential",
    "too-many-requests", "network-request-failed", "requires-recent-login", "weak-password",
    "popup-closed-by-user", "popup-blocked", "operation-not-allowed", "unauthorized-domain",
)


@pytest.mark.parametrize("code", SPEC_CODES)
def test_every_spec_code_has_its_own_spanish_message(code):
    error = AuthError(code)
    assert error.code == code
    assert error.message == AUTH_MESSAGES[code]
    assert error.message.endswith(".") and len(error.message) > 20
    assert code not in error.message  # people read words, not codes


def test_messages_are_distinct_and_unknown_codes_are_a_bug():
    assert len(set(AUTH_MESSAGES.values())) == len(AUTH_MESSAGES)
    with pytest.raises(ValueError):
        AuthError("made-up-code")


def test_landing_page_by_profile():
    assert landing_path(ProfileId.ADMINISTRADOR) == "/admin/escorts"
    assert landing_path(ProfileId.CLIENTE) == "/escorts"
    assert landing_path(ProfileId.PROFESOR) == "/my/publicacion/misPublicaciones"
    assert landing_path(ProfileId.SECRETARIA) == "/bbitamia/publicacion"
    assert landing_path("desconocido") == "/escorts"


@pytest.mark.parametrize(
    ("path", "profile"),
    [
        ("/admin", ProfileId.ADMINISTRADOR),
        ("/admin/usuarios", ProfileId.ADMINISTRADOR),
        ("/bbitamia/publicacion", ProfileId.SECRETARIA),
        ("/my/publicacion/nuevaPublicacion", ProfileId.PROFESOR),
        ("/administrar", None),
        ("/mystery", None),
        ("/escorts", None),
    ],
)
def test_area_of_a_path(path, profile):
    assert area_profile(path) == profile


@pytest.mark.parametrize("password", ["", "1234567", "password", "PASSWORD1", "contraseña", "iloveyou", "z" * 129])
def test_weak_passwords(password):
    with pytest.raises(AuthError) as refused:
        check_password_rules(password)
    assert refused.value.code == "weak-password"


@pytest.mark.parametrize("password", ["ocho-car", "mi perro se llama Toby", "z" * 128])
def test_acceptable_passwords(password):
    check_password_rules(password)


T0 = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=15)


def _at(*minutes: float) -> list[datetime]:
    return [T0 + timedelta(minutes=m) for m in minutes]


def test_four_failures_never_lock():
    assert locked_until(_at(0, 1, 2, 3), max_failures=5, window=WINDOW) is None


def test_the_fifth_failure_within_the_window_locks_for_the_window():
    assert locked_until(_at(0, 1, 2, 3, 14), max_failures=5, window=WINDOW) == T0 + timedelta(minutes=29)


def test_failures_spread_wider_than_the_window_do_not_lock():
    assert locked_until(_at(0, 4, 8, 12, 16), max_failures=5, window=WINDOW) is None


def test_the_latest_qualifying_failure_sets_the_end():
    assert locked_until(_at(0, 1, 2, 3, 4, 5), max_failures=5, window=WINDOW) == T0 + timedelta(minutes=20)


def test_production_refuses_the_firebase_emulator(monkeypatch):
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
    with pytest.raises(ValidationError, match="FIREBASE_AUTH_EMULATOR_HOST"):
        Settings(environment="production", secret_key="s" * 40)
    Settings(environment="test")  # tests and development may use it


def test_firebase_needs_its_project_and_key(monkeypatch):
    monkeypatch.delenv("FIREBASE_AUTH_EMULATOR_HOST", raising=False)
    with pytest.raises(ValidationError, match="FIREBASE_PROJECT_ID"):
        Settings(identity_provider="firebase")
    Settings(identity_provider="firebase", firebase_project_id="demo", firebase_api_key="k")


def test_the_app_refuses_to_start_in_production_with_the_emulator():
    """rxconfig reads the settings when Reflex starts: the process must stop there."""
    env = {
        **os.environ,
        "ENVIRONMENT": "production",
        "SECRET_KEY": "p" * 40,
        "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099",
    }
    started = subprocess.run([sys.executable, "-c", "import rxconfig"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    assert started.returncode != 0
    assert "emulator's tokens are unsigned" in started.stderr
