"""A Redis server of this test process's own, started on first use.

Every pytest process (each xdist worker, or the one process of a serial run) gets a private
``redis-server`` on a free loopback port, in memory only, so tests may empty its databases
without touching anyone else's data: another worker, another checkout's run, or the Redis
of a running instance. Database numbers inside it are fixed roles, not shared state:

- ``TESTS_DB``: counters and leases of the unit and integration tests, emptied by each test that uses it;
- ``SITE_DB``, ``FIREBASE_SITE_DB``: tab state and caches of the end-to-end app servers.

scripts/test.sh installs ``redis-server`` from Debian when it is missing.
"""

from __future__ import annotations

import atexit
import ctypes
import shutil
import signal
import subprocess
import tempfile
import time

import redis

from tests.ports import free_port

TESTS_DB, SITE_DB, FIREBASE_SITE_DB = 0, 1, 2
START_TIMEOUT_S = 20

_server: tuple[subprocess.Popen, int] | None = None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: the kernel stops the server when this test process dies, even by SIGKILL."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _start() -> tuple[subprocess.Popen, int]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is missing: scripts/test.sh installs it (Debian package redis-server)")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="test-redis-")
    command = [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        [*command, "--dir", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        cwd=folder,
        preexec_fn=_die_with_parent,
    )
    client = redis.Redis(port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"redis-server did not start on port {port}") from None
            time.sleep(0.02)
    client.close()
    atexit.register(_stop, process, folder)
    return process, port


def _stop(process: subprocess.Popen, folder: str) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(folder, ignore_errors=True)


def redis_url(db: int = TESTS_DB) -> str:
    """The URL of database ``db`` of this process's private Redis server (started on first call)."""
    global _server
    if _server is None or _server[0].poll() is not None:
        _server = _start()
    return f"redis://127.0.0.1:{_server[1]}/{db}"


def empty_redis(db: int = TESTS_DB) -> str:
    """Empty database ``db`` of this process's private server; its URL."""
    url = redis_url(db)
    with redis.Redis.from_url(url, socket_connect_timeout=5) as client:
        client.flushdb()
    return url
