"""Photo and video storage behind one small interface.

Local disk under MEDIA_DIR is the embedded default; S3-compatible object storage
(boto3) is used when S3_BUCKET is set. Keys are chosen by the app (random names
under a prefix such as ``photos/``), never taken from an uploaded file name.

Private files (verification photos) live in a storage of their own
(``app.storage.factory.get_private_storage``): a folder outside MEDIA_DIR, or a
separate bucket. They have no public address; only an authorized route reads them.

This module is the interface; ``app.storage.factory`` chooses the configured implementation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

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


# What a streamed read or write moves at a time.
CHUNK_BYTES = 1024 * 1024


class Storage(Protocol):
    """Where photo and video files live."""

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

    def list_keys(self) -> list[str]:
        """Every stored key, sorted (backups walk the whole store)."""

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        """Write (or overwrite) an object from a file on disk, streamed (a video, a data export): never whole in memory."""

    def get_file(self, key: str, path: Path) -> None:
        """Copy an object into a file on disk, streamed; raises NotFoundError when it does not exist."""

    def size(self, key: str) -> int:
        """The object's length in bytes; raises NotFoundError when it does not exist."""

    def read_range(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start`` to ``stop - 1`` of an object, in chunks (an HTTP range answer); NotFoundError if missing."""
