"""compose.yaml against the settings the app reads and the image it runs in.

scripts/stack_check.sh starts the file for real (root, Docker, stand-in images; docs/deployment.md,
"Compose"), which the test command cannot. These tests catch on every run what drifts:
a setting renamed in app/settings.py but not in the file, a required one
missing, an app that could start before its migrations, or values that the
production checks of app.settings would refuse.
"""

from __future__ import annotations

import os
import re

import pytest
import yaml

from app.settings import PROJECT_ROOT, Settings

COMPOSE = PROJECT_ROOT / "compose.yaml"
DOCKERFILE = PROJECT_ROOT / "Dockerfile"
# Read by the run script and Reflex rather than app.settings.
RUNTIME_VARIABLES = {"PORT", "REFLEX_TRUSTED_PROXY_HOPS"}
# What a hosting team puts in .env for the required ${NAME:?...} values.
HOSTING_ENV = {
    "SITE_URL": "https://www.example.cl",
    "SECRET_KEY": "x" * 40,
    "POSTGRES_PASSWORD": "clave-de-postgres",
    "S3_ACCESS_KEY": "app-key",
    "S3_SECRET_KEY": "app-secret",
    "SMTP_HOST": "smtp.example.cl",
    "REFLEX_TRUSTED_PROXY_HOPS": "1",
}
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Z0-9_]+)(?:(?P<op>:-|:\?)(?P<arg>[^}]*))?\}")


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error} against ``env``; a missing required one raises."""

    def substitute(match: re.Match) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        if env.get(name):
            return env[name]
        if op == ":?":
            raise KeyError(f"{name}: {arg}")
        return arg if op == ":-" else ""

    return _REFERENCE.sub(substitute, value)


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def app_env(compose) -> dict[str, str]:
    """The app's environment as Compose would give it, with HOSTING_ENV as the .env file."""
    return {name: interpolate(str(value), HOSTING_ENV) for name, value in compose["x-app-env"].items()}


def image_env() -> dict[str, str]:
    """The ENV of the Dockerfile's last stage (the image that runs)."""
    last_stage = DOCKERFILE.read_text(encoding="utf-8").rsplit("\nFROM ", 1)[1]
    joined = last_stage.replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in joined.splitlines():
        if line.startswith("ENV "):
            found.update(re.findall(r'([A-Z0-9_]+)=("[^"]*"|\S+)', line))
    return {name: value.strip('"') for name, value in found.items()}


def test_every_variable_of_the_app_is_a_setting(compose):
    settings = {name.upper() for name in Settings.model_fields}
    unknown = set(compose["x-app-env"]) - settings - RUNTIME_VARIABLES
    assert unknown == set()


def test_every_setting_comes_from_the_file_or_the_image(compose):
    given = set(compose["x-app-env"]) | set(image_env())
    missing = {name.upper() for name in Settings.model_fields} - given
    assert missing == set()


def test_a_missing_required_value_stops_compose(compose):
    for name in HOSTING_ENV:
        env = {key: value for key, value in HOSTING_ENV.items() if key != name}
        with pytest.raises(KeyError, match=name):
            for value in compose["x-app-env"].values():
                interpolate(str(value), env)


def test_the_production_checks_accept_the_files_values(app_env, monkeypatch):
    """The container's environment is the image's ENV and the file's, nothing of this machine's."""
    environment = {**image_env(), **app_env}
    for name in list(os.environ):  # e.g. the test run's FIREBASE_AUTH_EMULATOR_HOST, which production refuses
        monkeypatch.delenv(name)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert settings.environment == "production"
    assert settings.database_url.startswith("postgresql+psycopg://escorts:clave-de-postgres@postgres:5432/")
    assert settings.redis_url and settings.web_workers > 1  # several workers, sharing state through Redis
    assert settings.s3_bucket and settings.s3_private_bucket != settings.s3_bucket
    assert str(settings.media_dir).startswith("/data/") and str(settings.private_media_dir).startswith("/data/")


def test_the_app_starts_only_after_its_migrations(compose):
    services = compose["services"]
    assert services["migrate"]["command"] == ["alembic", "upgrade", "head"]
    assert services["app"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "command" not in services["app"]  # the image's own start, which does not migrate
    for name in ("app", "worker", "migrate", "s3-init"):
        assert services[name]["environment"] == compose["x-app-env"]


def test_background_jobs_run_in_the_worker_service_only(compose):
    """Web nodes never transcode: the app's settings say a separate worker runs the jobs, and one does."""
    services = compose["services"]
    assert compose["x-app-env"]["TASK_WORKER"] == "separate"
    assert services["worker"]["command"] == ["python", "-m", "app.cli", "worker"]
    assert services["worker"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
