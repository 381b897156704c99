"""Both storage backends: local disk and S3 against a real SeaweedFS server (fixtures in conftest.py)."""

from __future__ import annotations

import pytest

from app.core.errors import NotFoundError, PhotoRejectedError
from app.services.photos import delete_photo, store_photo
from app.settings import Settings
from app.storage.factory import get_storage
from app.storage.local import LocalStorage
from tests.integration.conftest import stored_keys as _all_keys
from tests.photo_samples import BAD_UPLOADS, assert_no_metadata, heic_with_gps, jpeg_with_gps


@pytest.fixture(params=["local", "s3"])
def storage(request, tmp_path):
    """An empty store of each backend: a fresh folder, or a fresh bucket."""
    if request.param == "local":
        return get_storage(Settings(_env_file=None, media_dir=tmp_path / "media"))
    return request.getfixturevalue("s3_storage")


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


def test_list_keys_names_every_stored_object_sorted(storage):
    """What a backup walks: every object of the store, and nothing else."""
    assert storage.list_keys() == []
    keys = ["verificacion/zz/b.webp", "photos/ab/a-400.webp", "photos/ab/a-800.webp"]
    for key in keys:
        storage.put(key, b"x", "image/webp")
    if isinstance(storage, LocalStorage):  # a write in progress is not an object yet
        (storage.root / "photos" / "ab" / ".tmp-123").write_bytes(b"half")
    assert storage.list_keys() == sorted(keys)


def test_files_stream_in_and_out_and_ranges_read_their_bytes(storage, tmp_path):
    """A video or an export: written from a file, read back into one, its size known, and any range of it read."""
    source = tmp_path / "clip.mp4"
    data = bytes(range(256)) * 12_000  # 3 MB: several chunks
    source.write_bytes(data)
    key = "videos/ab/abcdef.mp4"
    storage.put_file(key, source, "video/mp4")
    assert storage.size(key) == len(data)
    copy = tmp_path / "copy.mp4"
    storage.get_file(key, copy)
    assert copy.read_bytes() == data
    assert b"".join(storage.read_range(key, 0, 10)) == data[:10]
    assert b"".join(storage.read_range(key, 1_500_000, len(data))) == data[1_500_000:]
    missing = "videos/ab/missing.mp4"
    for read in (
        lambda: storage.size(missing),
        lambda: storage.get_file(missing, copy),
        lambda: storage.read_range(missing, 0, 1),
    ):
        with pytest.raises(NotFoundError, match="no existe"):
            read()


@pytest.mark.parametrize("make", [jpeg_with_gps, heic_with_gps], ids=["jpeg", "heic"])
def test_gps_tagged_photo_is_stored_without_any_metadata(storage, make):
    photo = store_photo(storage=storage, data=make())
    assert _all_keys(storage) == sorted(photo.keys)
    for key in photo.keys:
        assert_no_metadata(storage.get(key))
    delete_photo(storage=storage, photo=photo)
    assert _all_keys(storage) == []


def test_s3_objects_carry_type_and_long_cache(s3_storage):
    storage = s3_storage
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
