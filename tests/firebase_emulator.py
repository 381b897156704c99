"""Firebase fixtures: the real Auth emulator (firebase-tools from tools/firebase), started once per run.

Registered for every test directory by tests/conftest.py.

scripts/test.sh installs firebase-tools (tests/npm_tools.py waits for it); if the emulator
cannot start, the tests that need it fail with its output (they never skip).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.identity.firebase import FirebaseProvider
from tests.npm_tools import tool_modules
from tests.ports import free_port

FIREBASE_PROJECT = "demo-escorts"
START_TIMEOUT = 90


def _stop(process: subprocess.Popen) -> None:
    """Kill the emulator's whole process group at once: its accounts live in memory, and a graceful stop only costs time."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture(scope="session")
def firebase_emulator(tmp_path_factory) -> Iterator[str]:
    """Start the Auth emulator on free ports; yield its "127.0.0.1:<port>" (also in FIREBASE_AUTH_EMULATOR_HOST)."""
    workdir = tmp_path_factory.mktemp("firebase")
    port = free_port()
    # The hub and logging ports are fixed by default (4400, 4500): free ones let runs coexist.
    config = {
        "emulators": {
            "ui": {"enabled": False},
            "auth": {"host": "127.0.0.1", "port": port},
            "hub": {"host": "127.0.0.1", "port": free_port()},
            "logging": {"host": "127.0.0.1", "port": free_port()},
        }
    }
    (workdir / "firebase.json").write_text(json.dumps(config))
    log_path = workdir / "emulator.log"
    firebase_bin = tool_modules("firebase") / ".bin" / "firebase"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    command = [
        str(firebase_bin),
        "emulators:start",
        "--only",
        "auth",
        "--project",
        FIREBASE_PROJECT,
        "--config",
        str(workdir / "firebase.json"),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    host = f"127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    ready = False
    while not ready and time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(httpx.TransportError):
            ready = httpx.get(f"http://{host}/emulator/v1/projects/{FIREBASE_PROJECT}/config", timeout=2).is_success
        if not ready:
            time.sleep(0.25)
    if not ready:
        _stop(process)
        output = log_path.read_text(errors="replace")
        pytest.fail(f"the Firebase Auth emulator did not start within {START_TIMEOUT} s:\n{output}")
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = host
    try:
        yield host
    finally:
        if previous is None:
            os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
        else:
            os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous
        _stop(process)


@pytest.fixture
def firebase_provider(firebase_emulator: str) -> FirebaseProvider:
    """A FirebaseProvider on the emulator, whose accounts were all deleted first."""
    response = httpx.delete(f"http://{firebase_emulator}/emulator/v1/projects/{FIREBASE_PROJECT}/accounts", timeout=10)
    response.raise_for_status()
    return FirebaseProvider(project_id=FIREBASE_PROJECT, api_key="fake-api-key", site_url="http://localhost:3000")


@pytest.fixture
def firebase_oob_codes(firebase_emulator: str) -> Callable[[str, str], str | None]:
    """A function (email, request_type) -> the latest code the emulator "e-mailed", or None."""

    def latest(email: str, request_type: str) -> str | None:
        url = f"http://{firebase_emulator}/emulator/v1/projects/{FIREBASE_PROJECT}/oobCodes"
        response = httpx.get(url, timeout=10)
        response.raise_for_status()
        codes = [
            entry["oobCode"]
            for entry in response.json().get("oobCodes", [])
            if entry.get("email") == email and entry.get("requestType") == request_type
        ]
        return codes[-1] if codes else None

    return latest
