"""Photos and videos on local disk: the embedded default (one app server)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from app.core.errors import NotFoundError
from app.storage import CHUNK_BYTES, InvalidKeyError, NoPublicUrlError, check_key

MEDIA_URL_PREFIX = "/media/"


class LocalStorage:
    """Files under ``root``; public ones are served by the app at /media/<key>."""

    def __init__(self, root: Path, url_prefix: str = MEDIA_URL_PREFIX) -> None:
        self.root = Path(root).resolve()
        self.url_prefix = url_prefix

    def _path(self, key: str) -> Path:
        path = (self.root / check_key(key)).resolve()
        if not path.is_relative_to(self.root):  # belt and braces: symlinks, odd keys
            raise InvalidKeyError(f"storage key {key!r} leaves the media folder")
        return path

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self._write(key, lambda handle: handle.write(data))

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        with path.open("rb") as source:
            self._write(key, lambda handle: shutil.copyfileobj(source, handle, CHUNK_BYTES))

    def _write(self, key: str, write: Callable[[BinaryIO], object]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write to a temporary file and rename: a reader never sees half a file.
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def get_file(self, key: str, path: Path) -> None:
        try:
            shutil.copyfile(self._path(key), path)
        except FileNotFoundError as exc:
            raise NotFoundError("El archivo no existe.") from exc

    def size(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError as exc:
            raise NotFoundError("El archivo no existe.") from exc

    def read_range(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        try:
            handle = self._path(key).open("rb")
        except FileNotFoundError as exc:
            raise NotFoundError("El archivo no existe.") from exc
        return _chunks(handle, start, stop)

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError("El archivo no existe.") from exc

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def public_url(self, key: str) -> str:
        return self.url_prefix + check_key(key)

    def list_keys(self) -> list[str]:
        if not self.root.is_dir():
            return []
        found = (path.relative_to(self.root).as_posix() for path in self.root.rglob("*") if path.is_file())
        # A write in progress (".tmp-" files) is not a stored object yet.
        return sorted(key for key in found if not key.rsplit("/", 1)[-1].startswith(".tmp-"))


def _chunks(handle: BinaryIO, start: int, stop: int) -> Iterator[bytes]:
    """Bytes ``start`` to ``stop - 1`` of an open file, a chunk at a time; closes the file at the end."""
    with handle:
        handle.seek(start)
        left = stop - start
        while left > 0:
            chunk = handle.read(min(left, CHUNK_BYTES))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk


class PrivateLocalStorage(LocalStorage):
    """Private files under ``root`` (outside MEDIA_DIR): nothing serves this folder, so no public URL."""

    def public_url(self, key: str) -> str:
        raise NoPublicUrlError("private files have no public URL")
