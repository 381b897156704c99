"""Stored photos keep no metadata (no GPS location) and bad files are refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from app.core.errors import InvalidInputError
from app.services.photos import MAX_SIDE, placeholder_photo, store_photo
from app.storage.local import LocalStorage
from tests.photo_samples import GPS_IFD, jpeg_with_gps


def test_uploaded_photo_loses_gps_and_camera_data_and_is_resized(tmp_path):
    original = jpeg_with_gps((2400, 1200))
    assert GPS_IFD in Image.open(io.BytesIO(original)).getexif()  # the fixture really has GPS
    stored = store_photo(storage=LocalStorage(tmp_path), data=original)
    largest = stored.variants[-1]
    with Image.open(tmp_path / largest.key) as saved:
        assert saved.format == "WEBP"
        assert len(saved.getexif()) == 0
        assert "exif" not in saved.info
        assert max(saved.size) == MAX_SIDE
        assert (saved.width, saved.height) == (largest.width, largest.height)
    assert all(key.startswith("photos/") and key.endswith(".webp") for key in stored.keys)


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "vacío"), (b"no es una imagen", "no es una foto válida")],
)
def test_bad_files_are_refused_and_nothing_is_written(tmp_path, data, message):
    with pytest.raises(InvalidInputError, match=message):
        store_photo(storage=LocalStorage(tmp_path), data=data)
    assert not any(path.is_file() for path in tmp_path.rglob("*"))


def test_gif_is_refused(tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (10, 10)).save(buffer, format="GIF")
    with pytest.raises(InvalidInputError, match="JPEG, PNG, WebP o HEIC"):
        store_photo(storage=LocalStorage(tmp_path), data=buffer.getvalue())


def test_placeholders_are_jpeg_illustrations_that_differ_by_seed():
    first, second = placeholder_photo(1), placeholder_photo(2)
    assert first != second
    with Image.open(io.BytesIO(first)) as image:
        assert (image.format, image.size) == ("JPEG", (600, 800))
