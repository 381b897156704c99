"""The upload pipeline: metadata gone, orientation applied, sizes without upscaling, bad files refused."""

from __future__ import annotations

import io
import re

import imagehash
import pytest
from PIL import Image, ImageDraw, ImageOps

from app.core.errors import InvalidInputError, PhotoRejectedError
from app.services.photos import WIDTHS, process_photo, store_photo
from app.storage import InvalidKeyError
from app.storage.local import LocalStorage
from tests.photo_samples import (
    BAD_UPLOADS,
    GPS_IFD,
    assert_no_metadata,
    heic_with_gps,
    jpeg_with_gps,
    picture,
    png,
    png_claiming,
)


def stored_files(root) -> list:
    return [path for path in root.rglob("*") if path.is_file()]


@pytest.mark.parametrize("make", [jpeg_with_gps, heic_with_gps], ids=["jpeg", "heic"])
def test_gps_tagged_photo_is_stored_without_any_metadata(tmp_path, make):
    original = make()
    with Image.open(io.BytesIO(original)) as source:
        assert source.getexif().get_ifd(GPS_IFD)  # the sample really carries a location
    stored = store_photo(storage=LocalStorage(tmp_path), data=original)
    files = stored_files(tmp_path)
    assert len(files) == len(stored.variants) == 3
    for path in files:
        assert_no_metadata(path.read_bytes())


def test_orientation_is_applied_then_dropped():
    # Orientation 6: the camera held upright; the stored pixels lie on their side.
    original = jpeg_with_gps((1800, 1200), orientation=6)
    expected = ImageOps.exif_transpose(Image.open(io.BytesIO(original))).convert("RGB")
    assert expected.size == (1200, 1800)
    photo = process_photo(original)
    assert [(v.width, v.height) for v in photo.variants] == [(400, 600), (800, 1200), (1200, 1800)]
    with Image.open(io.BytesIO(photo.variants[-1].data)) as result:
        result = result.convert("RGB")
        for where in ((0.5, 0.02), (0.25, 0.5), (0.75, 0.5), (0.5, 0.98)):
            x, y = round(where[0] * (result.width - 1)), round(where[1] * (result.height - 1))
            got, want = result.getpixel((x, y)), expected.getpixel((x, y))
            assert all(abs(a - b) < 40 for a, b in zip(got, want, strict=True)), (where, got, want)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_orientation_is_applied_to_a_photo_that_is_also_shrunk(orientation):
    # Larger than the widest variant: the pipeline shrinks first and turns the shrunk picture.
    original = jpeg_with_gps((3200, 2400), orientation=orientation)
    upright = ImageOps.exif_transpose(Image.open(io.BytesIO(original))).convert("RGB")
    photo = process_photo(original)
    largest = photo.variants[-1]
    assert (largest.width, largest.height) == (1600, round(1600 * upright.height / upright.width))
    expected = upright.resize((largest.width, largest.height))
    with Image.open(io.BytesIO(largest.data)) as result:
        result = result.convert("RGB")
        for where in ((0.5, 0.02), (0.25, 0.5), (0.75, 0.5), (0.5, 0.98), (0.02, 0.5), (0.98, 0.5)):
            x, y = round(where[0] * (result.width - 1)), round(where[1] * (result.height - 1))
            got, want = result.getpixel((x, y)), expected.getpixel((x, y))
            assert all(abs(a - b) < 40 for a, b in zip(got, want, strict=True)), (orientation, where, got, want)


def test_a_shrunk_transparent_png_keeps_its_transparency():
    image = Image.new("RGBA", (3200, 1600), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle([1600, 0, 3200, 1600], fill=(200, 30, 40, 255))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    photo = process_photo(buffer.getvalue())
    assert [(v.width, v.height) for v in photo.variants] == [(400, 200), (800, 400), (1600, 800)]
    for variant in photo.variants:
        with Image.open(io.BytesIO(variant.data)) as result:
            result = result.convert("RGBA")
            assert result.getpixel((variant.width // 4, variant.height // 2))[3] == 0
            red, green, blue, alpha = result.getpixel((variant.width * 3 // 4, variant.height // 2))
            assert alpha == 255 and abs(red - 200) < 20 and green < 60 and blue < 60


@pytest.mark.parametrize(
    ("size", "widths"),
    [((4000, 3000), [400, 800, 1600]), ((1000, 1500), [400, 800, 1000]), ((300, 200), [300]), ((800, 50), [400, 800])],
)
def test_widths_never_upscale(size, widths):
    buffer = io.BytesIO()
    picture(size).save(buffer, format="PNG")
    photo = process_photo(buffer.getvalue())
    assert [v.width for v in photo.variants] == widths
    for variant in photo.variants:
        assert variant.width <= size[0] and variant.width in (*WIDTHS, size[0])
        assert abs(variant.height - size[1] * variant.width / size[0]) <= 1
        with Image.open(io.BytesIO(variant.data)) as image:
            assert image.size == (variant.width, variant.height)


def test_webp_and_png_uploads_are_accepted():
    for fmt in ("WEBP", "PNG"):
        buffer = io.BytesIO()
        picture((900, 600)).save(buffer, format=fmt)
        assert [v.width for v in process_photo(buffer.getvalue()).variants] == [400, 800, 900]


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_bad_upload_is_refused_with_a_spanish_message_and_nothing_stored(tmp_path, case):
    make, reason, message = BAD_UPLOADS[case]
    with pytest.raises(PhotoRejectedError, match=message) as refused:
        store_photo(storage=LocalStorage(tmp_path), data=make())
    assert refused.value.reason == reason
    assert isinstance(refused.value, InvalidInputError)  # handlers show it like any validation error
    assert stored_files(tmp_path) == []


@pytest.mark.parametrize("size", [(13_000, 10), (9000, 9000)])
def test_absurd_dimensions_are_refused_before_decoding(size):
    data = png_claiming(*size)
    with pytest.raises(PhotoRejectedError, match="demasiado grande"):
        process_photo(data)


def test_a_real_one_bit_bomb_is_refused():
    data = png((20_000, 20_000))  # 400 megapixels in about 50 KB
    assert len(data) < 200_000
    with pytest.raises(PhotoRejectedError, match="demasiado grande"):
        process_photo(data)


def _scene(size: tuple[int, int], *, turned: bool = False) -> Image.Image:
    width, height = size
    channels = [Image.linear_gradient("L"), Image.radial_gradient("L"), Image.linear_gradient("L").rotate(90)]
    image = Image.merge("RGB", [channel.resize(size) for channel in channels])
    draw = ImageDraw.Draw(image)
    draw.ellipse([width * 0.2, height * 0.3, width * 0.5, height * 0.8], fill=(250, 220, 40))
    draw.rectangle([width * 0.6, height * 0.1, width * 0.9, height * 0.4], fill=(20, 20, 90))
    return image.transpose(Image.Transpose.ROTATE_180) if turned else image


def _encoded(image: Image.Image, fmt: str, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, quality=quality)
    return buffer.getvalue()


def test_perceptual_hash_survives_re_encoding_and_tells_photos_apart():
    first = process_photo(_encoded(_scene((2400, 1600)), "JPEG", 90))
    again = process_photo(_encoded(_scene((1200, 800)), "HEIF", 60))  # the same picture, other format and size
    different = process_photo(_encoded(_scene((1200, 800), turned=True), "JPEG", 60))
    assert imagehash.hex_to_hash(first.phash) - imagehash.hex_to_hash(again.phash) <= 4
    assert imagehash.hex_to_hash(first.phash) - imagehash.hex_to_hash(different.phash) > 12


def test_keys_are_random_names_under_the_prefix(tmp_path):
    storage = LocalStorage(tmp_path)
    data = jpeg_with_gps((900, 600))
    first, second = store_photo(storage=storage, data=data), store_photo(storage=storage, data=data)
    assert set(first.keys).isdisjoint(second.keys)
    for key in first.keys + second.keys:
        assert re.fullmatch(r"photos/[A-Za-z0-9]{2}/[A-Za-z0-9]{20}-\d+\.webp", key)
        assert storage.public_url(key) == f"/media/{key}"


@pytest.mark.parametrize(
    "key",
    ["../x.webp", "/etc/passwd", "photos/../../x", "photos/a\\b", "photos/.hidden", "photos//x", "photos", "photos/"],
)
def test_local_storage_refuses_keys_that_could_leave_the_folder(tmp_path, key):
    storage = LocalStorage(tmp_path / "media")
    for call in (lambda: storage.put(key, b"x", "image/webp"), lambda: storage.get(key), lambda: storage.exists(key)):
        with pytest.raises(InvalidKeyError):
            call()
    assert stored_files(tmp_path) == []


def test_local_storage_refuses_a_symlink_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    media = tmp_path / "media"
    (media / "photos").mkdir(parents=True)
    (media / "photos" / "ab").symlink_to(outside)
    with pytest.raises(InvalidKeyError):
        LocalStorage(media).put("photos/ab/x.webp", b"x", "image/webp")
    assert list(outside.iterdir()) == []
