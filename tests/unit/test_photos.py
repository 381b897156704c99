"""Stored photos keep no metadata (no GPS location) and bad files are refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from app.services.errors import InvalidInputError
from app.services.photos import MAX_SIDE, placeholder_photo, store_photo

GPS_IFD = 0x8825


def _jpeg_with_gps(size=(2400, 1200)) -> bytes:
    image = Image.new("RGB", size, (200, 40, 90))
    exif = Image.Exif()
    exif[0x010F] = "CamaraDePrueba"  # Make
    exif[GPS_IFD] = {1: "S", 2: (33.0, 26.0, 0.0), 3: "W", 4: (70.0, 39.0, 0.0)}
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif)
    return buffer.getvalue()


def test_uploaded_photo_loses_gps_and_camera_data_and_is_resized(tmp_path):
    original = _jpeg_with_gps()
    assert GPS_IFD in Image.open(io.BytesIO(original)).getexif()  # the fixture really has GPS
    stored = store_photo(media_dir=tmp_path, data=original)
    with Image.open(tmp_path / stored.path) as saved:
        assert len(saved.getexif()) == 0
        assert "exif" not in saved.info
        assert max(saved.size) == MAX_SIDE
        assert (saved.width, saved.height) == (stored.width, stored.height)
    assert stored.path.startswith("photos/") and stored.path.endswith(".jpg")


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "vacío"), (b"no es una imagen", "no es una imagen válida")],
)
def test_bad_files_are_refused_and_nothing_is_written(tmp_path, data, message):
    with pytest.raises(InvalidInputError, match=message):
        store_photo(media_dir=tmp_path, data=data)
    assert not any(tmp_path.rglob("*.jpg"))


def test_gif_is_refused(tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (10, 10)).save(buffer, format="GIF")
    with pytest.raises(InvalidInputError, match="JPEG, PNG o WebP"):
        store_photo(media_dir=tmp_path, data=buffer.getvalue())


def test_placeholders_are_jpeg_illustrations_that_differ_by_seed():
    first, second = placeholder_photo(1), placeholder_photo(2)
    assert first != second
    with Image.open(io.BytesIO(first)) as image:
        assert (image.format, image.size) == ("JPEG", (600, 800))
