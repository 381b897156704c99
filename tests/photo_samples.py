"""Test photos made on the spot: GPS-tagged JPEG and HEIC, and the bad uploads the pipeline refuses."""

from __future__ import annotations

import io
import struct
import zlib

import pillow_heif
from PIL import Image, ImageDraw

GPS_IFD = 0x8825
ORIENTATION = 0x0112
CAMERA = "CamaraDePrueba"

pillow_heif.register_heif_opener()


def _exif(orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = CAMERA  # Make
    exif[ORIENTATION] = orientation
    exif[GPS_IFD] = {1: "S", 2: (33.0, 26.0, 0.0), 3: "W", 4: (70.0, 39.0, 0.0)}
    return exif


def picture(size: tuple[int, int] = (2400, 1200)) -> Image.Image:
    """Red on the left half, blue on the right, a white bar along the top: orientation is visible."""
    image = Image.new("RGB", size, (200, 30, 40))
    draw = ImageDraw.Draw(image)
    draw.rectangle([size[0] // 2, 0, size[0], size[1]], fill=(30, 40, 200))
    draw.rectangle([0, 0, size[0], size[1] // 10], fill=(255, 255, 255))
    return image


def jpeg_with_gps(size: tuple[int, int] = (2400, 1200), orientation: int = 1) -> bytes:
    buffer = io.BytesIO()
    picture(size).save(buffer, format="JPEG", quality=90, exif=_exif(orientation), xmp=b"<x:xmpmeta>secret</x:xmpmeta>")
    return buffer.getvalue()


def heic_with_gps(size: tuple[int, int] = (1800, 1200)) -> bytes:
    buffer = io.BytesIO()
    picture(size).save(buffer, format="HEIF", quality=80, exif=_exif().tobytes())
    return buffer.getvalue()


def png(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("1", size).save(buffer, format="PNG")
    return buffer.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header says width x height (a decompression bomb's shape)."""
    data = bytearray(png((1, 1)))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


def assert_no_metadata(data: bytes) -> None:
    """A stored WebP file with pixels only: no EXIF, GPS, XMP or colour profile chunk."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    for chunk in (b"EXIF", b"XMP ", b"ICCP"):
        assert chunk not in data
    assert CAMERA.encode() not in data
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "WEBP"
        assert len(image.getexif()) == 0
        assert not {"exif", "xmp", "icc_profile"} & set(image.info)


TEXT_AS_JPG = b"Hola, esto es un archivo de texto con nombre foto.jpg\n" * 20
SVG_WITH_SCRIPT = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400">'
    b'<script>alert(document.cookie)</script><rect width="400" height="400" fill="red"/></svg>'
)


def truncated_jpeg() -> bytes:
    data = jpeg_with_gps((1200, 800))
    return data[: len(data) // 2]


def twenty_megabytes() -> bytes:
    return b"\xff\xd8\xff\xe0" + b"\0" * (20 * 1024 * 1024)


BAD_UPLOADS = {
    "texto renombrado .jpg": (lambda: TEXT_AS_JPG, "not_an_image", "no es una foto válida"),
    "JPEG truncado": (truncated_jpeg, "damaged", "dañada o incompleta"),
    "PNG de 30000x30000": (lambda: png_claiming(30000, 30000), "too_many_pixels", "demasiado grande"),
    "SVG con script": (lambda: SVG_WITH_SCRIPT, "not_an_image", "no es una foto válida"),
    "archivo de 20 MB": (twenty_megabytes, "too_large", "máximo de 15 MB"),
}
