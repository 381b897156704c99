"""The websocket's Origin check on the real app, with a real websocket client (tests/websocket_handshake.py).

The app's backend runs on a migrated SQLite file (one worker, memory state), once as
production deploys it (``reflex run --env prod --backend-only``, ENVIRONMENT=production)
and once as a developer starts it (``reflex run --backend-only``, ENVIRONMENT=development).
With the site's origin the handshake is accepted (101) in both; another site's is refused
(403) in both; without an Origin header it is refused in production, before Reflex sees
it, and admitted in development, for tools. (A production build with another ENVIRONMENT,
the end-to-end sites', is checked in tests/e2e/test_origins.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.db import migrate
from tests.ports import free_port
from tests.processes import stop_process_group
from tests.websocket_handshake import ACCEPTED, handshake_status

PROJECT = Path(__file__).resolve().parents[2]
START_DEADLINE_S = 180
FOREIGN = "https://otro-sitio.example"


def _server_env(folder: Path, port: int, environment: str) -> dict[str, str]:
    """What a deployment sets (production refuses to start without it, app/settings.py), on this machine."""
    env = {key: value for key, value in os.environ.items() if key != "FIREBASE_AUTH_EMULATOR_HOST"}
    return {
        **env,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "ENVIRONMENT": environment,
        "SITE_URL": f"http://localhost:{port}",
        "SECRET_KEY": "websocket-origin-test-secret-0123456789",
        "SMTP_HOST": "127.0.0.1",
        "REFLEX_TRUSTED_PROXY_HOPS": "0",
        "PASSWORD_HASHER": "argon2",
        "IDENTITY_PROVIDER": "local",
        "REDIS_URL": "",
        "WEB_WORKERS": "1",
        "DATABASE_URL": f"sqlite:///{folder / 'app.db'}",
        "MEDIA_DIR": str(folder / "media"),
        "PRIVATE_MEDIA_DIR": str(folder / "private"),
        "REFLEX_UPLOADED_FILES_DIR": str(folder / "uploads"),
        "OUTBOX_DIR": str(folder / "outbox"),
        "REFLEX_WEB_WORKDIR": str(folder / "web"),
        "REFLEX_USE_NPM": "1",
        "REFLEX_TELEMETRY_ENABLED": "false",
    }


@contextmanager
def _backend(folder: Path, environment: str, *reflex_run_options: str) -> Iterator[int]:
    """The app's backend started by ``reflex run --backend-only`` with ``reflex_run_options`` on a free port."""
    env = _server_env(folder, port := free_port(), environment)
    migrate(env["DATABASE_URL"])
    log_path = folder / "server.log"
    command = [str(Path(sys.executable).parent / "reflex"), "run", *reflex_run_options, "--backend-only"]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*command, "--backend-port", str(port)],
            cwd=PROJECT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_DEADLINE_S
        while not _healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the {environment} app did not start:\n{log_path.read_text()[-4000:]}")
            time.sleep(0.2)
        yield port
    finally:
        stop_process_group(process)


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://localhost:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_production_refuses_a_websocket_without_origin(tmp_path):
    with _backend(tmp_path, "production", "--env", "prod") as port:
        assert handshake_status(port, f"http://localhost:{port}") == ACCEPTED
        assert handshake_status(port, None) == 403
        assert handshake_status(port, FOREIGN) == 403


def test_development_admits_a_websocket_without_origin_for_tools(tmp_path):
    with _backend(tmp_path, "development") as port:
        assert handshake_status(port, None) == ACCEPTED
        assert handshake_status(port, f"http://localhost:{port}") == ACCEPTED
        assert handshake_status(port, FOREIGN) == 403
