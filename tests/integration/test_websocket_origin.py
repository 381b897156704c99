"""The websocket's Origin check on the real app served in production, with a real websocket client.

The app runs as ``reflex run --env prod --backend-only`` with ENVIRONMENT=production
(one worker, memory state, a migrated SQLite file). A websocket client (wsproto over
a TCP socket) opens Reflex's ``/_event`` as socket.io's transport does: with the
site's origin the handshake is accepted (101); without an Origin header, or with
another site's, it is refused (403) before Reflex sees it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, RejectConnection, Request

from app.db import migrate
from tests.ports import free_port

PROJECT = Path(__file__).resolve().parents[2]
START_DEADLINE_S = 180
EVENT_TARGET = "/_event/?EIO=4&transport=websocket"


def _production_env(folder: Path, port: int) -> dict[str, str]:
    """What a production deployment sets (app/settings.py refuses to start without it), on this machine."""
    env = {key: value for key, value in os.environ.items() if key != "FIREBASE_AUTH_EMULATOR_HOST"}
    return {
        **env,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "ENVIRONMENT": "production",
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


@pytest.fixture(scope="module")
def production_port(tmp_path_factory) -> Iterator[int]:
    """The app's backend served in production mode on a free port."""
    folder = tmp_path_factory.mktemp("production")
    env = _production_env(folder, port := free_port())
    migrate(env["DATABASE_URL"])
    log_path = folder / "server.log"
    command = [str(Path(sys.executable).parent / "reflex"), "run", "--env", "prod", "--backend-only"]
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
                pytest.fail(f"the production app did not start:\n{log_path.read_text()[-4000:]}")
            time.sleep(0.2)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://localhost:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _handshake(port: int, origin: str | None) -> int:
    """The HTTP status the server answers a websocket handshake on /_event with (101: accepted)."""
    client = WSConnection(ConnectionType.CLIENT)
    headers = [("Origin", origin)] if origin is not None else []
    with socket.create_connection(("127.0.0.1", port), timeout=20) as connection:
        connection.sendall(client.send(Request(host=f"localhost:{port}", target=EVENT_TARGET, extra_headers=headers)))
        while True:
            data = connection.recv(65536)
            client.receive_data(data or None)
            for event in client.events():
                if isinstance(event, AcceptConnection):
                    return 101
                if isinstance(event, RejectConnection):
                    return event.status_code
            if not data:
                pytest.fail("the server closed the connection without answering the handshake")


def test_production_refuses_a_websocket_without_origin(production_port):
    assert _handshake(production_port, f"http://localhost:{production_port}") == 101
    assert _handshake(production_port, None) == 403
    assert _handshake(production_port, "https://otro-sitio.example") == 403
