"""Photo storage behind one small interface.

Local disk under MEDIA_DIR is the embedded default; S3-compatible object storage
(boto3) is used when S3_BUCKET is set. Keys are chosen by the app (random names
under a prefix such as ``photos/``), never taken from an uploaded file name.

Private files (verification photos) live in a storage of their own from
:func:`get_private_storage`: a folder outside MEDIA_DIR, or a separate bucket.
They have no public address; only an authorized route reads them.
"""

from __future__ import annotations

import re
from typing import Protocol

from app.settings import Settings, get_settings

# A key is a relative path (a lower-case prefix, then letters, digits, "_-."): no "..", no leading slash, no backslash.
_KEY = re.compile(r"[a-z0-9][a-z0-9_-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)+")


class InvalidKeyError(ValueError):
    """A storage key outside the allowed shape (a bug in the caller, never user input)."""


def check_key(key: str) -> str:
    """Return the key if it is a safe relative path, else raise InvalidKeyError."""
    if not _KEY.fullmatch(key) or ".." in key.split("/") or "/." in key or "//" in key:
        raise InvalidKeyError(f"invalid storage key {key!r}")
    return key


class NoPublicUrlError(RuntimeError):
    """Asked for the public address of a private file (a bug in the caller): private files have none."""


class Storage(Protocol):
    """Where photo files live."""

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Write (or overwrite) an object."""

    def get(self, key: str) -> bytes:
        """Read an object; raises app.core.errors.NotFoundError when it does not exist."""

    def delete(self, key: str) -> None:
        """Delete an object; deleting a missing one is not an error."""

    def exists(self, key: str) -> bool:
        """True when the object exists."""

    def public_url(self, key: str) -> str:
        """The address browsers load a public photo from."""


def get_storage(settings: Settings | None = None) -> Storage:
    """The configured storage: S3 when S3_BUCKET is set, else local disk under MEDIA_DIR."""
    settings = settings or get_settings()
    if settings.s3_bucket:
        from app.storage.s3 import S3Storage

        return S3Storage.from_settings(settings)
    from app.storage.local import LocalStorage

    return LocalStorage(settings.media_dir)


def get_private_storage(settings: Settings | None = None) -> Storage:
    """The storage of private files: the S3_PRIVATE_BUCKET when S3_BUCKET is set, else PRIVATE_MEDIA_DIR."""
    settings = settings or get_settings()
    if settings.s3_bucket:
        from app.storage.s3 import PrivateS3Storage

        return PrivateS3Storage.from_settings(settings, bucket=settings.s3_private_bucket)
    from app.storage.local import PrivateLocalStorage

    return PrivateLocalStorage(settings.private_media_dir)
