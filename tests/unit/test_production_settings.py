"""Production refuses to start on a configuration that would lose e-mail or
key the abuse limits on a proxy's address; a complete one is accepted."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings

COMPLETE = {
    "environment": "production",
    "secret_key": "k" * 40,
    "database_url": "postgresql+psycopg://app:clave@db.interna:5432/app",
    "site_url": "https://escorts.example.cl",
    "identity_provider": "local",
    "smtp_host": "smtp.example.cl",
}


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    """Only what each test sets: nothing from the developer's shell."""
    names = (
        "FIREBASE_AUTH_EMULATOR_HOST",
        "REFLEX_TRUSTED_PROXY_HOPS",
        "SMTP_HOST",
        "IDENTITY_PROVIDER",
        "PASSWORD_HASHER",
    )
    for name in names:
        monkeypatch.delenv(name, raising=False)


def _production(**changes) -> Settings:
    return Settings(_env_file=None, **{**COMPLETE, **changes})


@pytest.mark.parametrize("hops", ["0", "1", "2"])
def test_a_complete_production_configuration_is_accepted(monkeypatch, hops):
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", hops)
    settings = _production()
    assert (settings.environment, settings.smtp_host) == ("production", "smtp.example.cl")


def test_production_refuses_to_start_without_the_proxy_hops():
    with pytest.raises(ValidationError, match="REFLEX_TRUSTED_PROXY_HOPS must be set in production"):
        _production()


@pytest.mark.parametrize("hops", ["", "  ", "uno", "-1", "1.5", "٣"])
def test_production_refuses_proxy_hops_that_are_not_a_count(monkeypatch, hops):
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", hops)
    with pytest.raises(ValidationError, match="REFLEX_TRUSTED_PROXY_HOPS"):
        _production()


def test_production_with_local_accounts_refuses_to_start_without_smtp(monkeypatch):
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", "1")
    with pytest.raises(ValidationError, match="SMTP_HOST must be set in production"):
        _production(smtp_host="")


def test_firebase_accounts_need_smtp_in_production_too(monkeypatch):
    # Firebase sends its own links, but our notices (password changed, used address) go through SMTP.
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", "1")
    firebase = {"identity_provider": "firebase", "firebase_project_id": "p", "firebase_api_key": "k"}
    with pytest.raises(ValidationError, match="SMTP_HOST must be set in production"):
        _production(smtp_host="", **firebase)
    assert _production(**firebase).identity_provider == "firebase"


def test_development_and_tests_need_neither(monkeypatch):
    assert Settings(_env_file=None, environment="development", smtp_host="").smtp_host == ""
    assert Settings(_env_file=None, environment="test", smtp_host="").environment == "test"


def test_production_refuses_the_test_suites_fast_password_hasher(monkeypatch):
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", "1")
    with pytest.raises(ValidationError, match="PASSWORD_HASHER=fast is for the test suite only"):
        _production(password_hasher="fast")
    monkeypatch.setenv("PASSWORD_HASHER", "fast")  # from the environment, as a deployment would set it
    with pytest.raises(ValidationError, match="PASSWORD_HASHER=fast is for the test suite only"):
        _production()
    assert _production(password_hasher="argon2").password_hasher == "argon2"
    assert Settings(_env_file=None, environment="test").password_hasher == "fast"  # tests may use it


def test_without_the_setting_passwords_are_hashed_with_argon2(monkeypatch):
    monkeypatch.setenv("REFLEX_TRUSTED_PROXY_HOPS", "1")
    assert _production().password_hasher == "argon2"
    assert Settings(_env_file=None).password_hasher == "argon2"
