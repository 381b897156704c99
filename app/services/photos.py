"""Photo pipeline: an upload is decoded (never trusting its name or declared type),
checked against decompression bombs, turned upright, stripped of every piece of
metadata (EXIF, GPS location, XMP, colour profile) and re-encoded to WebP in a few
widths for srcset, with a perceptual hash to spot the same photo uploaded twice.
Also draws the demo placeholders: abstract illustrations, no imagery of people.
"""

from __future__ import annotations

import io
import os
import random
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import imagehash
import pillow_heif
from PIL import Image, ImageCms, ImageDraw, ImageFile, UnidentifiedImageError

from app import metrics
from app.core.errors import PhotoRejectedError
from app.models import new_uid
from app.storage import Storage

MAX_BYTES = 15 * 1024 * 1024
# Pixels and sides an upload may have: a 50-megapixel phone photo fits, a
# decompression bomb (a small file that decodes to gigabytes) does not.
MAX_PIXELS = 64_000_000
MAX_SIDE_PIXELS = 12_000
WIDTHS = (400, 800, 1600)
MAX_SIDE = WIDTHS[-1]
WEBP_QUALITY = 80
# libwebp effort 0-6: 2 encodes about four times faster than the default 4 at nearly the same size.
WEBP_METHOD = 2
RESAMPLING = Image.Resampling.BICUBIC
REDUCING_GAP = 2.0
CONTENT_TYPE = "image/webp"
# Only these decoders ever see an upload (no EPS/Ghostscript, no exotic plugins).
DECODERS = ("JPEG", "PNG", "WEBP", "HEIF")

pillow_heif.register_heif_opener()
# Phones store HEIC as a grid of tiles, which libheif decodes in parallel: one thread per
# core (its default of 4 only adds memory on a smaller machine: every tile decoder holds buffers).
pillow_heif.options.DECODE_THREADS = max(1, min(4, os.cpu_count() or 1))
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
ImageFile.LOAD_TRUNCATED_IMAGES = False
_SRGB = ImageCms.createProfile("sRGB")
_SWAPS_SIDES = {5, 6, 7, 8}  # EXIF orientations that turn the picture a quarter
# EXIF orientation -> the turn that makes the picture upright (the table of ImageOps.exif_transpose).
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_PROFILED_MODES = ("RGB", "RGBA", "CMYK")  # modes converted through their embedded colour profile
# Resampling and WebP encoding release the GIL: one photo uses two threads (the caller's and one of these).
_pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="photos")


@dataclass(frozen=True)
class PhotoVariant:
    """One re-encoded size of a photo."""

    width: int
    height: int
    data: bytes
    content_type: str = CONTENT_TYPE


@dataclass(frozen=True)
class ProcessedPhoto:
    """The clean variants of an upload, narrowest first, and its perceptual hash (hex)."""

    variants: tuple[PhotoVariant, ...]
    phash: str

    @property
    def width(self) -> int:
        return self.variants[-1].width

    @property
    def height(self) -> int:
        return self.variants[-1].height


def _reject(reason: str, message: str) -> PhotoRejectedError:
    return PhotoRejectedError(message, reason=reason)


_NOT_AN_IMAGE = "El archivo no es una foto válida: sube una imagen JPEG, PNG, WebP o HEIC."
_TOO_MANY_PIXELS = "La foto es demasiado grande: como máximo 64 megapíxeles y 12.000 píxeles por lado."
_DAMAGED = "La foto está dañada o incompleta: vuelve a exportarla e inténtalo de nuevo."


def _open(data: bytes) -> Image.Image:
    """Read the header only: the format comes from the content, the size is checked before decoding."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=DECODERS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _reject("too_many_pixels", _TOO_MANY_PIXELS) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise _reject("not_an_image", _NOT_AN_IMAGE) from exc
    width, height = image.size
    # Checked here too: the warnings filter above is process-wide, not per thread.
    if width < 1 or height < 1 or width * height > MAX_PIXELS or max(width, height) > MAX_SIDE_PIXELS:
        image.close()
        raise _reject("too_many_pixels", _TOO_MANY_PIXELS)
    return image


def _orientation(image: Image.Image) -> int:
    try:
        return int(image.getexif().get(0x0112, 1))
    except (ValueError, TypeError, SyntaxError, OSError):
        return 1


def _resize(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Resample to ``size``, the upper and lower halves on two threads (Pillow releases the GIL while resampling).

    Each half is resampled from its box of the source with the filter reaching across
    the cut: no seam, the same pixels as a single resize (to within rounding).
    """
    width, height = size
    if height < 2:
        return image.resize(size, RESAMPLING, reducing_gap=REDUCING_GAP)
    # Alpha is premultiplied once for both halves (Image.resize would do it for each call).
    premultiplied = image.mode == "RGBA"
    if premultiplied:
        image = image.convert("RGBa")
    cut = height // 2
    source_cut = cut * image.height / height
    upper = _pool.submit(
        image.resize, (width, cut), RESAMPLING, (0, 0, image.width, source_cut), reducing_gap=REDUCING_GAP
    )
    lower = image.resize(
        (width, height - cut), RESAMPLING, (0, source_cut, image.width, image.height), reducing_gap=REDUCING_GAP
    )
    result = Image.new(image.mode, size)
    result.paste(upper.result(), (0, 0))
    result.paste(lower, (0, cut))
    return result.convert("RGBA") if premultiplied else result


def _to_srgb(image: Image.Image, icc: bytes | None, mode: str) -> Image.Image:
    """Convert to plain RGB or RGBA pixels, through the embedded colour profile when there is one."""
    if icc and image.mode in _PROFILED_MODES:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            return ImageCms.profileToProfile(image, source, _SRGB, outputMode=mode)  # type: ignore[return-value]  # None only in place
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # an unreadable profile is ignored: the pixels are still the photo
    return image if image.mode == mode else image.convert(mode)


def _decode(data: bytes) -> Image.Image:
    """Decode, shrink to at most MAX_SIDE wide, turn upright and convert to plain sRGB pixels.

    The result carries no metadata. The expensive steps run on the fewest pixels:
    the full-size picture is only resampled once; turning and colour conversion
    happen on the shrunk one.
    """
    image = _open(data)
    try:
        orientation = _orientation(image)
        width, height = image.size
        swaps = orientation in _SWAPS_SIDES
        upright_width, upright_height = (height, width) if swaps else (width, height)
        target_width = min(upright_width, MAX_SIDE)
        target_height = max(1, round(upright_height * target_width / upright_width))
        if image.format == "JPEG" and upright_width > MAX_SIDE:
            # Let libjpeg decode at a reduced scale when the largest width still fits.
            image.draft("RGB", (target_height, target_width) if swaps else (target_width, target_height))
        image.load()
        icc = image.info.get("icc_profile")
        has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
        mode = "RGBA" if has_alpha else "RGB"
        # Resampling needs plain channels: a profiled RGB/RGBA/CMYK picture keeps its own until after the shrink.
        pixels = image if icc and image.mode in _PROFILED_MODES else _to_srgb(image, None, mode)
        size = (target_height, target_width) if swaps else (target_width, target_height)
        if pixels.size != size:
            pixels = _resize(pixels, size)
        if orientation in _TRANSPOSE:
            pixels = pixels.transpose(_TRANSPOSE[orientation])
        pixels = _to_srgb(pixels, icc, mode)
        # A fresh image holds the pixels only: no EXIF, GPS, XMP or colour profile survives.
        clean = Image.new(pixels.mode, pixels.size)
        clean.paste(pixels)
    except Image.DecompressionBombError as exc:
        raise _reject("too_many_pixels", _TOO_MANY_PIXELS) from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise _reject("damaged", _DAMAGED) from exc
    finally:
        image.close()
    return clean


def _widths(width: int) -> list[int]:
    """The target widths for an image this wide, never wider than the image itself."""
    largest = min(width, MAX_SIDE)
    return sorted({w for w in WIDTHS if w < largest} | {largest})


def _encode(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="WEBP", quality=WEBP_QUALITY, method=WEBP_METHOD, exif=b"", xmp=b"", icc_profile=None)
    return buffer.getvalue()


def process_photo(data: bytes) -> ProcessedPhoto:
    """Validate an upload and return its clean WebP variants, or raise PhotoRejectedError.

    CPU-bound (a few hundred milliseconds for a 12-megapixel photo, on up to two
    threads): call it off the event loop. Counted, with its time, in escorts_photo_uploads_total
    and escorts_photo_processing_seconds (app.metrics).
    """
    started = time.perf_counter()
    try:
        processed = _process_photo(data)
    except Exception:
        metrics.PHOTO_UPLOADS.labels(metrics.FAILED).inc()
        raise
    metrics.PHOTO_UPLOADS.labels(metrics.PROCESSED).inc()
    metrics.PHOTO_SECONDS.observe(time.perf_counter() - started)
    return processed


def check_size(data: bytes) -> None:
    """The checks that need no decoding: PhotoRejectedError for an empty file or one over MAX_BYTES."""
    if not data:
        raise _reject("empty", "El archivo está vacío.")
    if len(data) > MAX_BYTES:
        raise _reject("too_large", "La foto supera el máximo de 15 MB.")


def _process_photo(data: bytes) -> ProcessedPhoto:
    check_size(data)
    largest = _decode(data)
    # The largest variant encodes on the pool while this thread derives and encodes the smaller ones.
    largest_data = _pool.submit(_encode, largest)
    variants = []
    current = largest
    for width in sorted(_widths(largest.width), reverse=True)[1:]:
        height = max(1, round(current.height * width / current.width))
        current = current.resize((width, height), RESAMPLING, reducing_gap=REDUCING_GAP)
        variants.append(PhotoVariant(width=width, height=height, data=_encode(current)))
    # On the narrowest normalized variant: phash shrinks to 32x32 anyway, so this is the same hash, cheaper.
    phash = str(imagehash.phash(current))
    variants.append(PhotoVariant(width=largest.width, height=largest.height, data=largest_data.result()))
    return ProcessedPhoto(variants=tuple(sorted(variants, key=lambda variant: variant.width)), phash=phash)


@dataclass(frozen=True)
class StoredVariant:
    """One stored size: its storage key and dimensions."""

    key: str
    width: int
    height: int


@dataclass(frozen=True)
class StoredPhoto:
    """A processed photo written to storage, narrowest variant first."""

    variants: tuple[StoredVariant, ...]
    phash: str

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(variant.key for variant in self.variants)


def store_photo(*, storage: Storage, data: bytes, prefix: str = "photos", name: str | None = None) -> StoredPhoto:
    """Process an upload and store its variants under a random name (never the uploaded one).

    ``name`` gives a name of the app's own instead (a clip's poster: derived from the clip's uid, so a second
    run overwrites the first). A refused file raises PhotoRejectedError before anything is written; if a write
    fails halfway, the variants already written are deleted again.
    """
    processed = process_photo(data)
    uid = name or new_uid()
    stored: list[StoredVariant] = []
    try:
        for variant in processed.variants:
            key = f"{prefix}/{uid[:2]}/{uid}-{variant.width}.webp"
            storage.put(key, variant.data, variant.content_type)
            stored.append(StoredVariant(key=key, width=variant.width, height=variant.height))
    except BaseException:
        for written in stored:
            storage.delete(written.key)
        raise
    return StoredPhoto(variants=tuple(stored), phash=processed.phash)


def delete_photo(*, storage: Storage, photo: StoredPhoto) -> None:
    """Delete every stored variant of a photo."""
    for variant in photo.variants:
        storage.delete(variant.key)


_PALETTES = (
    ((72, 22, 68), (214, 71, 120)),
    ((20, 40, 80), (90, 160, 220)),
    ((60, 20, 20), (230, 120, 80)),
    ((18, 60, 52), (120, 210, 170)),
    ((50, 30, 90), (180, 140, 240)),
    ((80, 50, 10), (240, 190, 90)),
)


def placeholder_photo(seed: int, size: tuple[int, int] = (600, 800)) -> bytes:
    """An abstract placeholder illustration (gradient and shapes) as JPEG bytes."""
    rng = random.Random(seed)
    top, bottom = _PALETTES[seed % len(_PALETTES)]
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):
        t = y / (height - 1)
        draw.line([(0, y), (width, y)], fill=tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True)))
    for _ in range(7):
        radius = rng.randint(width // 10, width // 3)
        x, y = rng.randint(0, width), rng.randint(0, height)
        tint = tuple(min(255, c + rng.randint(20, 70)) for c in bottom)
        draw.ellipse([x - radius, y - radius, x + radius, y + radius], outline=tint, width=rng.randint(3, 9))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=80)
    return buffer.getvalue()
