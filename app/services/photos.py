"""Photo storage on local disk: every photo is re-encoded so no metadata
(EXIF, GPS location, camera data) survives, and resized to a sane maximum.
Also draws the demo placeholders: abstract illustrations, no imagery of people.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

from app.models import new_uid
from app.services.errors import InvalidInputError

MAX_BYTES = 10 * 1024 * 1024
MAX_SIDE = 1600
ACCEPTED_FORMATS = {"JPEG", "PNG", "WEBP"}


@dataclass(frozen=True)
class StoredPhoto:
    """A photo written under the media directory."""

    path: str
    width: int
    height: int


def store_photo(*, media_dir: Path, data: bytes) -> StoredPhoto:
    """Validate an uploaded image, strip its metadata and write it as JPEG."""
    if not data:
        raise InvalidInputError("El archivo está vacío.")
    if len(data) > MAX_BYTES:
        raise InvalidInputError("La foto supera el máximo de 10 MB.")
    try:
        with Image.open(io.BytesIO(data)) as probe:
            probe.verify()
        image = Image.open(io.BytesIO(data))
        if image.format not in ACCEPTED_FORMATS:
            raise InvalidInputError("Solo se aceptan fotos JPEG, PNG o WebP.")
        image = ImageOps.exif_transpose(image)
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise InvalidInputError("El archivo no es una imagen válida.") from exc
    image = image.convert("RGB")
    image.thumbnail((MAX_SIDE, MAX_SIDE))
    # A fresh image holds pixels only: nothing of the original's metadata.
    clean = Image.new("RGB", image.size)
    clean.paste(image)
    uid = new_uid()
    relative = Path("photos") / uid[:2] / f"{uid}.jpg"
    target = media_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    clean.save(target, format="JPEG", quality=85, optimize=True)
    return StoredPhoto(path=relative.as_posix(), width=clean.width, height=clean.height)


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
