"""Photos on local disk: the embedded default (one app server)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from app.core.errors import NotFoundError
from app.storage import InvalidKeyError, NoPublicUrlError, check_key

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
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write to a temporary file and rename: a reader never sees half a photo.
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError("La foto no existe.") from exc

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


class PrivateLocalStorage(LocalStorage):
    """Private files under ``root`` (outside MEDIA_DIR): nothing serves this folder, so no public URL."""

    def public_url(self, key: str) -> str:
        raise NoPublicUrlError("private files have no public URL")
