"""Backups that restore: ``python -m app.cli backup DEST`` and ``python -m app.cli restore SRC``.

A backup is a folder (or an S3 prefix, ``s3://bucket/prefix``) holding:

- ``database.pgdump`` (PostgreSQL, ``pg_dump --format=custom``) or ``database.sqlite3`` (SQLite, its
  online backup API): one consistent snapshot;
- ``public/<key>`` and ``private/<key>``: every object of the public and the private stores (photos, clips'
  MP4s and posters, the originals of clips still being processed), each copied as a stream, never whole in
  memory (an original may weigh 200 MB);
- ``manifest.json``, written last: the SHA-256 and size of every file above, and the row count of every
  table in the snapshot (a backup without it is incomplete and is never restored).

With a key (``BACKUP_KEY``: an age identity ``AGE-SECRET-KEY-1…``, or only its public ``age1…`` to back up
on a machine that cannot restore), every file but the manifest is encrypted in the age format (pyrage)
and named ``….age``; the manifest records the public recipient only, never the key.

Restore fetches every file and checks its checksum before it touches anything, decrypts them all, then
writes into an empty database and empty stores (or, when told to replace them, empties them first), and
finally compares the restored tables' row counts with the manifest's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import pyrage
from botocore.exceptions import BotoCoreError, ClientError
from pyrage import x25519
from sqlalchemy import Connection, func, inspect, select, table, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session

from app.core.errors import ServiceError
from app.db import make_engine
from app.services import monitoring
from app.settings import Settings
from app.storage import InvalidKeyError, Storage, check_key
from app.storage.factory import get_private_storage, get_storage

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT = "escorts-chile-backup"
VERSION = 1
ENCRYPTED_SUFFIX = ".age"
PG_DUMP_FILE = "database.pgdump"
SQLITE_FILE = "database.sqlite3"
AREAS = ("public", "private")
_CHUNK = 1 << 20
_CONTENT_TYPES = {
    ".webp": "image/webp",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".mp4": "video/mp4",
}
_NAME = re.compile(r"(public|private)/(.+)")


class BackupError(ServiceError):
    """A backup or a restore could not be done; the message (Spanish) says why, and never holds the key."""


class CorruptBackupError(BackupError):
    """A file of the backup is missing or does not match its checksum; ``name`` is that file."""

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message)
        self.name = name


# --- where a backup lives: a folder or an S3 prefix ---------------------------------------------


class Location(Protocol):
    """A backup's files by relative name."""

    description: str

    def names(self) -> list[str]:
        """Every file name present, sorted."""

    def put_file(self, name: str, path: Path) -> None:
        """Copy a local file in as ``name``."""

    def fetch_file(self, name: str, path: Path) -> None:
        """Copy ``name`` out to a local file; raises CorruptBackupError when it is missing."""


class FolderLocation:
    """A backup in a local folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.description = str(self.root)

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(path.relative_to(self.root).as_posix() for path in self.root.rglob("*") if path.is_file())

    def put_file(self, name: str, path: Path) -> None:
        target = self.root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)

    def fetch_file(self, name: str, path: Path) -> None:
        try:
            shutil.copyfile(self.root / name, path)
        except FileNotFoundError as exc:
            raise _missing(name) from exc


class S3Location:
    """A backup under a prefix of an S3 bucket, reached with the app's S3 settings (endpoint and keys)."""

    def __init__(self, *, client: Any, bucket: str, prefix: str) -> None:
        self.client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.description = f"s3://{bucket}/{self.prefix}"

    def names(self) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
        return sorted(item["Key"][len(self.prefix) :] for page in pages for item in page.get("Contents", []))

    def put_file(self, name: str, path: Path) -> None:
        self.client.upload_file(str(path), self.bucket, self.prefix + name)

    def fetch_file(self, name: str, path: Path) -> None:
        try:
            self.client.download_file(self.bucket, self.prefix + name, str(path))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in {"404", "NoSuchKey", "NotFound"}:
                raise _missing(name) from exc
            raise


def location_for(place: str, settings: Settings) -> Location:
    """The folder, or with ``s3://bucket/prefix`` the S3 prefix (through the app's S3 endpoint and keys)."""
    if not place.startswith("s3://"):
        return FolderLocation(Path(place))
    bucket, _, prefix = place.removeprefix("s3://").partition("/")
    if not bucket:
        raise BackupError(f"Falta el bucket en {place}: usa s3://bucket/prefijo.")
    from app.storage.s3 import S3Storage  # as the storage factory does: boto3 is loaded only when S3 is used

    return S3Location(client=S3Storage.from_settings(settings, bucket=bucket).client, bucket=bucket, prefix=prefix)


def _check_apart_from_the_stores(place: str, settings: Settings) -> None:
    """A backup never goes into a photo store: the public one is served to anyone, and either would back itself up."""
    if place.startswith("s3://"):
        bucket = place.removeprefix("s3://").partition("/")[0]
        if settings.s3_bucket and bucket in {settings.s3_bucket, settings.s3_private_bucket}:
            raise BackupError(
                f"El bucket {bucket} guarda las fotos del sitio: los respaldos van en un bucket aparte, nunca público."
            )
        return
    folder = Path(place).resolve()
    for store in (settings.media_dir, settings.private_media_dir):
        store = Path(store).resolve()
        if folder.is_relative_to(store) or store.is_relative_to(folder):
            raise BackupError(
                f"{folder} se cruza con la carpeta de fotos {store}: los respaldos van en una carpeta aparte."
            )


def _missing(name: str) -> CorruptBackupError:
    return CorruptBackupError(f"Falta el archivo {name} del respaldo: está incompleto. No se restauró nada.", name=name)


# --- encryption (age, through pyrage) -----------------------------------------------------------

KEY_HELP = "Crea una con: python -m app.cli backup-key"


def new_key() -> tuple[str, str]:
    """A new age identity for BACKUP_KEY and its public recipient: (secret, public)."""
    identity = x25519.Identity.generate()
    return str(identity), str(identity.to_public())


def recipient_of(key: str) -> x25519.Recipient:
    """The public recipient of BACKUP_KEY (an age identity, or already a recipient)."""
    key = key.strip()
    try:
        if key.startswith("AGE-SECRET-KEY-"):
            return x25519.Identity.from_str(key).to_public()
        if key.startswith("age1"):
            return x25519.Recipient.from_str(key)
    except (pyrage.IdentityError, pyrage.RecipientError, ValueError):
        pass
    raise BackupError(f"BACKUP_KEY no es una clave age válida (AGE-SECRET-KEY-1… o age1…). {KEY_HELP}")


def identity_of(key: str) -> x25519.Identity:
    """The age identity that decrypts; a public recipient cannot."""
    key = key.strip()
    if key.startswith("age1"):
        raise BackupError(
            "BACKUP_KEY es la clave pública (age1…): sirve para respaldar, pero restaurar necesita la clave "
            "secreta (AGE-SECRET-KEY-1…)."
        )
    try:
        return x25519.Identity.from_str(key)
    except (pyrage.IdentityError, ValueError) as exc:
        raise BackupError(f"BACKUP_KEY no es una clave age válida (AGE-SECRET-KEY-1…). {KEY_HELP}") from exc


# --- files, checksums and the manifest ----------------------------------------------------------


def sha256_of(path: Path) -> str:
    """The SHA-256 (hex) of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class _Writer:
    """Puts files into a backup (encrypted when there is a recipient) and remembers their checksums."""

    location: Location
    work: Path
    recipient: x25519.Recipient | None
    files: list[dict[str, Any]] = field(default_factory=list)

    def put(self, name: str, path: Path) -> None:
        if self.recipient is not None:
            name += ENCRYPTED_SUFFIX
            sealed = self.work / "sealed"
            pyrage.encrypt_file(str(path), str(sealed), [self.recipient])
            path = sealed
        self.files.append({"name": name, "sha256": sha256_of(path), "size": path.stat().st_size})
        self.location.put_file(name, path)

    def put_object(self, name: str, storage: Storage, key: str) -> None:
        """Copy one stored object in, streamed through a file of ``work``; NotFoundError when it is gone."""
        plain = self.work / "plain"
        storage.get_file(key, plain)
        self.put(name, plain)


def _stores(settings: Settings) -> dict[str, Storage]:
    return {"public": get_storage(settings), "private": get_private_storage(settings)}


def _copy_store_objects(writer: _Writer, stores: dict[str, Storage], done: dict[str, set[str]]) -> None:
    """Every object of both stores not copied yet (a photo or clip deleted meanwhile is skipped)."""
    from app.core.errors import NotFoundError

    for area, storage in stores.items():
        for key in storage.list_keys():
            if key in done[area]:
                continue
            try:
                writer.put_object(f"{area}/{key}", storage, key)
            except NotFoundError:
                continue
            done[area].add(key)


# --- the database -------------------------------------------------------------------------------


def _is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError("DATABASE_URL apunta a una base SQLite en memoria: no hay nada que respaldar.")
    return Path(database)


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """The libpq address of a SQLAlchemy URL (without the password) and the environment carrying the password."""
    parsed = make_url(url)
    # The child (pg_dump, psql) inherits this process's environment (PATH, locale), not a setting read here.
    env = {**os.environ, "PGCONNECT_TIMEOUT": "10"}
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    address = parsed.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    return address, env


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise BackupError(
            f"No encontré {command[0]}: instala el cliente de PostgreSQL (postgresql-client, de la versión del "
            "servidor o una más nueva)."
        ) from exc
    if result.returncode != 0:
        detail = result.stderr.strip().splitlines()[-3:]
        raise BackupError(f"{what} falló: {' '.join(detail)}")


def _row_counts(connection: Connection) -> dict[str, int]:
    """Rows of every table, by name."""
    names = sorted(inspect(connection).get_table_names())
    return {name: connection.execute(select(func.count()).select_from(table(name))).scalar_one() for name in names}


def _dump_postgresql(url: str, target: Path) -> dict[str, int]:
    """pg_dump of one snapshot, shared with the row counts: they describe exactly what was dumped."""
    address, env = _libpq(url)
    engine = make_engine(url, statement_timeout_ms=0)
    try:
        with engine.connect() as connection:
            connection = connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar_one()
                _run(
                    ["pg_dump", "--format=custom", f"--snapshot={snapshot}", f"--file={target}", f"--dbname={address}"],
                    env,
                    "pg_dump",
                )
                return _row_counts(connection)
    finally:
        engine.dispose()


def _dump_sqlite(url: str, target: Path) -> dict[str, int]:
    """SQLite's online backup API into one self-contained file; the counts come from that copy."""
    source_path = _sqlite_path(url)
    if not source_path.is_file():
        raise BackupError(f"No existe la base SQLite {source_path}.")
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        source.close()
        copy.close()
    return _sqlite_counts(target)


def _sqlite_counts(path: Path) -> dict[str, int]:
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            return _row_counts(connection)
    finally:
        engine.dispose()


def _database_counts(url: str) -> dict[str, int]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return _row_counts(connection)
    finally:
        engine.dispose()


# --- backup -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BackupSummary:
    """What a backup or a restore wrote."""

    place: str
    database: str
    files: dict[str, int]
    encrypted: bool
    tables: dict[str, int]


@contextmanager
def _failures_explained(undone: str) -> Iterator[None]:
    """Database, S3 and disk failures as one Spanish message (no traceback, no address with a password)."""
    try:
        yield
    except OperationalError as exc:
        raise BackupError(
            f"La base de datos no respondió: revisa DATABASE_URL y que el servidor esté en marcha. {undone}"
        ) from exc
    except SQLAlchemyError as exc:
        raise BackupError(
            f"La base de datos rechazó la operación ({type(exc).__name__}): revisa los permisos del usuario de "
            f"DATABASE_URL. {undone}"
        ) from exc
    except ClientError as exc:
        error = exc.response.get("Error", {})
        raise BackupError(
            f"El almacenamiento S3 respondió {error.get('Code', '?')}: {error.get('Message', '')}. {undone}"
        ) from exc
    except BotoCoreError as exc:
        raise BackupError(f"No pude conectar con el almacenamiento S3 (S3_ENDPOINT_URL): {exc}. {undone}") from exc
    except OSError as exc:
        raise BackupError(f"Error de archivos: {exc.strerror or exc} ({exc.filename or ''}). {undone}") from exc


def create_backup(*, settings: Settings, dest: str, key: str | None = None) -> BackupSummary:
    """Back up the database and both photo stores to ``dest`` (a new folder or an empty S3 prefix).

    The stores are copied before and after the database snapshot, so every photo the snapshot refers
    to is in the backup, even one uploaded while it was being made.
    """
    with _failures_explained(
        "Lo que alcanzó a escribirse en el destino no tiene manifest.json: bórralo antes de reintentar."
    ):
        summary = _create_backup(settings=settings, dest=dest, key=key)
    try:
        _record_success(settings.database_url)
    except (ServiceError, SQLAlchemyError):  # the backup is whole: only the metrics will not know of it
        log.exception("backup written, but its success could not be recorded for the metrics")
    return summary


def _create_backup(*, settings: Settings, dest: str, key: str | None) -> BackupSummary:
    recipient = recipient_of(key) if key else None
    _check_apart_from_the_stores(dest, settings)
    location = location_for(dest, settings)
    if location.names():
        raise BackupError(f"{location.description} ya tiene archivos: cada respaldo va en una carpeta o prefijo nuevo.")
    if not _database_tables(settings.database_url):  # also fails fast, before any file is copied, when it is down
        raise BackupError("La base de datos no tiene tablas: revisa DATABASE_URL (no hay nada que respaldar).")
    stores = _stores(settings)
    sqlite = _is_sqlite(settings.database_url)
    kind = "sqlite" if sqlite else "postgresql"
    with tempfile.TemporaryDirectory(prefix="backup-") as folder:
        work = Path(folder)
        writer = _Writer(location=location, work=work, recipient=recipient)
        done: dict[str, set[str]] = {area: set() for area in AREAS}
        _copy_store_objects(writer, stores, done)
        dump = work / (SQLITE_FILE if sqlite else PG_DUMP_FILE)
        dump_database = _dump_sqlite if sqlite else _dump_postgresql
        tables = dump_database(settings.database_url, dump)
        writer.put(dump.name, dump)
        _copy_store_objects(writer, stores, done)
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": datetime.now(UTC).isoformat(),
            "database": {"kind": kind, "file": _database_entry(writer.files)},
            "encrypted": recipient is not None,
            "recipient": str(recipient) if recipient is not None else None,
            "tables": tables,
            "files": writer.files,
        }
        manifest_path = work / MANIFEST
        manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
        location.put_file(MANIFEST, manifest_path)
    log.info("backup written to %s: %d files", location.description, len(writer.files))
    return BackupSummary(
        place=location.description,
        database=kind,
        files={area: len(done[area]) for area in AREAS},
        encrypted=recipient is not None,
        tables=tables,
    )


def _database_entry(files: list[dict[str, Any]]) -> str:
    [name] = [entry["name"] for entry in files if entry["name"].startswith("database.")]
    return str(name)


# --- restore ------------------------------------------------------------------------------------


def _read_manifest(location: Location, work: Path) -> dict[str, Any]:
    path = work / MANIFEST
    try:
        location.fetch_file(MANIFEST, path)
    except CorruptBackupError as exc:
        raise BackupError(
            f"No hay {MANIFEST} en {location.description}: no es un respaldo, o quedó incompleto. No se restauró nada."
        ) from exc
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptBackupError(
            f"{MANIFEST} está dañado (no es JSON válido). No se restauró nada.", name=MANIFEST
        ) from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise BackupError(f"{MANIFEST} no es de un respaldo de este sitio (formato {FORMAT} versión {VERSION}).")
    _check_entries(manifest)
    return manifest


def _check_entries(manifest: dict[str, Any]) -> None:
    """Every name is one this module writes (no path leaves the backup), every checksum well formed."""
    suffix = ENCRYPTED_SUFFIX if manifest.get("encrypted") else ""
    database_names = {PG_DUMP_FILE + suffix, SQLITE_FILE + suffix}
    files = manifest.get("files")
    tables = manifest.get("tables")
    if not isinstance(files, list) or not isinstance(tables, dict):
        raise CorruptBackupError(f"{MANIFEST} está dañado (faltan files o tables).", name=MANIFEST)
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"[0-9a-f]{64}", str(entry.get("sha256"))):
            raise CorruptBackupError(f"{MANIFEST} está dañado (una entrada sin nombre o sin sha256).", name=MANIFEST)
        if name in database_names:
            continue
        match = _NAME.fullmatch(name[: len(name) - len(suffix)]) if name.endswith(suffix) else None
        try:
            valid = match is not None and check_key(match.group(2)) == match.group(2)
        except InvalidKeyError:
            valid = False
        if not valid:
            raise CorruptBackupError(f"{MANIFEST} nombra un archivo no válido: {name!r}.", name=MANIFEST)
    if sum(entry["name"] in database_names for entry in files) != 1:
        raise CorruptBackupError(f"{MANIFEST} no tiene exactamente una base de datos.", name=MANIFEST)


@dataclass(frozen=True)
class _Restored:
    """One file of the backup, fetched, checked and decrypted."""

    name: str  # as stored in the backup
    plain: Path

    @property
    def area_key(self) -> tuple[str, str] | None:
        match = _NAME.fullmatch(self.name.removesuffix(ENCRYPTED_SUFFIX))
        return (match.group(1), match.group(2)) if match else None


def _fetch_and_verify(location: Location, manifest: dict[str, Any], work: Path) -> list[Path]:
    """Every file, fetched into ``work`` and compared with its checksum before anything is written."""
    fetched = []
    for index, entry in enumerate(manifest["files"]):
        path = work / f"{index}.stored"
        location.fetch_file(entry["name"], path)
        if sha256_of(path) != entry["sha256"]:
            raise CorruptBackupError(
                f"El archivo {entry['name']} del respaldo está dañado: su suma de verificación (SHA-256) no "
                "coincide con la del manifiesto. No se restauró nada.",
                name=entry["name"],
            )
        fetched.append(path)
    return fetched


def _decrypt_all(
    manifest: dict[str, Any], fetched: list[Path], identity: x25519.Identity | None, work: Path
) -> list[_Restored]:
    restored = []
    for entry, path in zip(manifest["files"], fetched, strict=True):
        plain = path
        if identity is not None:
            plain = path.with_suffix(".plain")
            try:
                pyrage.decrypt_file(str(path), str(plain), [identity])
            except pyrage.DecryptError as exc:
                raise CorruptBackupError(
                    f"No pude descifrar {entry['name']} con BACKUP_KEY. No se restauró nada.", name=entry["name"]
                ) from exc
        restored.append(_Restored(name=entry["name"], plain=plain))
    return restored


def _identity_for(manifest: dict[str, Any], key: str | None) -> x25519.Identity | None:
    if not manifest.get("encrypted"):
        return None
    if not key:
        raise BackupError("El respaldo está cifrado: define BACKUP_KEY con su clave secreta (AGE-SECRET-KEY-1…).")
    identity = identity_of(key)
    if str(identity.to_public()) != manifest.get("recipient"):
        raise BackupError(
            f"BACKUP_KEY no es la clave de este respaldo: se cifró para {manifest.get('recipient')}. No se restauró nada."
        )
    return identity


def _record_success(url: str) -> None:
    """Write down in the backed-up database that a backup succeeded now, where the metrics read it."""
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            monitoring.record_backup(session)
    finally:
        engine.dispose()


def _database_tables(url: str) -> list[str]:
    if _is_sqlite(url) and not _sqlite_path(url).is_file():
        return []
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return sorted(inspect(connection).get_table_names())
    finally:
        engine.dispose()


def _empty_targets(settings: Settings, stores: dict[str, Storage], *, replace: bool) -> None:
    """Refuse a target holding anything, unless ``replace``: then empty the database and both stores."""
    tables = _database_tables(settings.database_url)
    keys = {area: storage.list_keys() for area, storage in stores.items()}
    if not replace:
        found = []
        if tables:
            found.append(f"la base de datos tiene {len(tables)} tablas")
        found += [
            f"las fotos {_AREA_NAMES[area]} tienen {len(listed)} archivos" for area, listed in keys.items() if listed
        ]
        if found:
            raise BackupError(
                f"El destino no está vacío ({'; '.join(found)}). Restaura en una base de datos y un almacenamiento "
                "vacíos, o usa --replace para reemplazar su contenido. No se restauró nada."
            )
        return
    for area, storage in stores.items():
        for key in keys[area]:
            storage.delete(key)
    if tables and not _is_sqlite(settings.database_url):
        engine = make_engine(settings.database_url, statement_timeout_ms=0)
        try:
            with engine.begin() as connection:
                connection.execute(text("DROP SCHEMA public CASCADE"))
                connection.execute(text("CREATE SCHEMA public"))
        finally:
            engine.dispose()
    # SQLite: the online backup API below overwrites the whole file.


_AREA_NAMES = {"public": "públicas", "private": "privadas"}


def _restore_database(url: str, dump: Path) -> None:
    if _is_sqlite(url):
        target = _sqlite_path(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        source = sqlite3.connect(f"file:{dump}?mode=ro", uri=True)
        destination = sqlite3.connect(target)
        try:
            source.backup(destination)
        finally:
            source.close()
            destination.close()
        return
    address, env = _libpq(url)
    _run(
        [
            "pg_restore",
            "--no-owner",
            "--no-acl",
            "--exit-on-error",
            "--single-transaction",
            f"--dbname={address}",
            str(dump),
        ],
        env,
        "pg_restore",
    )


def _content_type(key: str) -> str:
    return _CONTENT_TYPES.get(Path(key).suffix.lower(), "application/octet-stream")


def restore_backup(*, settings: Settings, src: str, key: str | None = None, replace: bool = False) -> BackupSummary:
    """Restore the backup at ``src`` into the configured database and stores.

    Every checksum is verified and every file decrypted first; the target must be empty unless
    ``replace``. The restored tables' row counts are compared with the manifest's at the end.
    """
    with _failures_explained("Revisa el destino antes de reintentar (con --replace si quedó a medias)."):
        return _restore_backup(settings=settings, src=src, key=key, replace=replace)


def _restore_backup(*, settings: Settings, src: str, key: str | None, replace: bool) -> BackupSummary:
    location = location_for(src, settings)
    sqlite = _is_sqlite(settings.database_url)
    with tempfile.TemporaryDirectory(prefix="restore-") as folder:
        work = Path(folder)
        manifest = _read_manifest(location, work)
        kind = manifest.get("database", {}).get("kind")
        if kind != ("sqlite" if sqlite else "postgresql"):
            raise BackupError(
                f"El respaldo es de una base {kind} y DATABASE_URL apunta a "
                f"{'SQLite' if sqlite else 'PostgreSQL'}: no se restauró nada."
            )
        identity = _identity_for(manifest, key)
        fetched = _fetch_and_verify(location, manifest, work)
        restored = _decrypt_all(manifest, fetched, identity, work)
        stores = _stores(settings)
        _empty_targets(settings, stores, replace=replace)
        [dump] = [item for item in restored if item.area_key is None]
        _restore_database(settings.database_url, dump.plain)
        counts = dict.fromkeys(AREAS, 0)
        for item in restored:
            if (area_key := item.area_key) is not None:
                area, object_key = area_key
                stores[area].put_file(object_key, item.plain, _content_type(object_key))
                counts[area] += 1
    _check_restored(settings, stores, manifest)
    log.info("backup restored from %s", location.description)
    return BackupSummary(
        place=location.description,
        database=kind,
        files=counts,
        encrypted=identity is not None,
        tables=manifest["tables"],
    )


def _check_restored(settings: Settings, stores: dict[str, Storage], manifest: dict[str, Any]) -> None:
    counts = _database_counts(settings.database_url)
    for name, expected in manifest["tables"].items():
        if counts.get(name) != expected:
            raise BackupError(
                f"Tras restaurar, la tabla {name} tiene {counts.get(name, 0)} filas y el respaldo dice {expected}."
            )
    for area, storage in stores.items():
        present = set(storage.list_keys())
        for entry in manifest["files"]:
            match = _NAME.fullmatch(entry["name"].removesuffix(ENCRYPTED_SUFFIX))
            if match and match.group(1) == area and match.group(2) not in present:
                raise BackupError(f"Tras restaurar, falta {entry['name']} en el almacenamiento.")
