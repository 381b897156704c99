"""Pure rules of the identity layer: messages, landings, guards, password policy, settings."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from app.identity.errors import AUTH_MESSAGES, AuthError
from app.identity.guards import area_profile, landing_path
from app.identity.provider import check_password_rules
from app.models import ProfileId
from app.settings import PROJECT_ROOT, Settings

SPEC_CODES = (
    "email-already-in-use",
    "wrong-password",
    "user-not-found",
    "user-disabled",
    "invalid-credential",
    "too-many-requests",
    "network-request-failed",
    "requires-recent-login",
    "weak-password",
    "popup-closed-by-user",
    "popup-blocked",
    "operation-not-allowed",
    "unauthorized-domain",
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
    started = subprocess.run(
        [sys.executable, "-c", "import rxconfig"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    assert started.returncode != 0
    assert "emulator's tokens are unsigned" in started.stderr
