"""Backups that restore (issue 20 §3), through ``python -m app.cli backup`` and ``restore``, on PostgreSQL with
photos in S3 (SeaweedFS, the backup under an s3:// prefix) and on SQLite with photos on local disk (the backup
in a folder): listings with photos, an approved verification, a pending one with its private photo and audit
entries, and clips (a ready, approved one and one still being processed, whose original waits in the private
store) are backed up, everything is wiped, and the restore brings back the public pages, the private photo, the
clip a visitor plays and the original a worker then processes, every file and every table's row count. A corrupted or missing file is refused by its checksum before
anything is written; an encrypted backup restores only with its key, which is never written beside it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import func, inspect, select, table
from sqlmodel import Session
from starlette.testclient import TestClient

from app.cli import main as cli
from app.db import get_engine
from app.identity.sessions import SESSION_COOKIE
from app.models import (
    ClipStatus,
    Listing,
    ListingPhoto,
    ListingStatus,
    ListingVerification,
    ListingVideo,
    ProfileId,
    utc_now,
)
from app.services import listing_videos, listings, verification
from app.services.backup import new_key
from app.settings import get_settings
from app.storage.factory import get_private_storage, get_storage
from app.storage.s3 import S3Storage
from tests.conftest import create_pg_database, drop_pg_database
from tests.factories import actor_of, add_photo, make_listing, make_owner, make_staff, open_session
from tests.integration.conftest import stored_keys
from tests.photo_samples import jpeg_with_gps
from tests.ports import free_port
from tests.video_samples import h264_mp4

pytestmark = pytest.mark.integration

CITY = "temuco"
NAMES = ("Respaldada Uno", "Verificada Dos", "Pendiente Tres")


@dataclass
class Site:
    """The app as configured for one test: its database kind, and where its backups go."""

    kind: str  # "postgresql-s3" or "sqlite-local"
    dest: str
    monkeypatch: pytest.MonkeyPatch
    backup_root: Path | None = None  # the local folder of ``dest``
    backup_client: object | None = None  # the S3 client and bucket of ``dest``
    backup_bucket: str = ""
    backup_prefix: str = ""
    extra_databases: list[str] = field(default_factory=list)

    @property
    def postgresql(self) -> bool:
        return self.kind == "postgresql-s3"

    def reconfigure(self, **env: str) -> None:
        """Change the app's environment and start from fresh settings and a fresh engine."""
        get_engine().dispose()
        for name, value in env.items():
            self.monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        get_engine.cache_clear()

    def backup_files(self) -> dict[str, bytes]:
        """Every file of the backup at ``dest``, by name."""
        if self.backup_root is not None:
            return {
                path.relative_to(self.backup_root).as_posix(): path.read_bytes()
                for path in self.backup_root.rglob("*")
                if path.is_file()
            }
        client = self.backup_client
        listing = client.list_objects_v2(Bucket=self.backup_bucket, Prefix=self.backup_prefix)
        return {
            item["Key"][len(self.backup_prefix) :]: client.get_object(Bucket=self.backup_bucket, Key=item["Key"])[
                "Body"
            ].read()
            for item in listing.get("Contents", [])
        }

    def rewrite(self, name: str, data: bytes | None) -> None:
        """Replace (or with None delete) one file of the backup: damage done after it was written."""
        if self.backup_root is not None:
            path = self.backup_root / name
            if data is None:
                path.unlink()
            else:
                path.write_bytes(data)
            return
        key = self.backup_prefix + name
        if data is None:
            self.backup_client.delete_object(Bucket=self.backup_bucket, Key=key)
        else:
            self.backup_client.put_object(Bucket=self.backup_bucket, Key=key, Body=data)


@pytest.fixture(params=["postgresql-s3", "sqlite-local"])
def site(request, tmp_path, monkeypatch):
    """The app on PostgreSQL with S3 photos and an S3 backup prefix, or on SQLite with photos and backups on disk."""
    monkeypatch.setenv("OUTBOX_DIR", str(tmp_path / "outbox"))
    monkeypatch.setenv("SMTP_HOST", "")
    monkeypatch.delenv("BACKUP_KEY", raising=False)
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    if request.param == "postgresql-s3":
        endpoint = request.getfixturevalue("s3_server")
        bucket = f"fotos-{uuid.uuid4().hex[:10]}"
        monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("pg_url"))
        monkeypatch.setenv("S3_ENDPOINT_URL", endpoint)
        monkeypatch.setenv("S3_BUCKET", bucket)
        monkeypatch.setenv("S3_ACCESS_KEY", "test-access")
        monkeypatch.setenv("S3_SECRET_KEY", "test-secret")
        get_settings.cache_clear()
        client = get_private_storage().client
        backups = f"respaldos-{uuid.uuid4().hex[:10]}"
        for name in (bucket, get_settings().s3_private_bucket, backups):
            client.create_bucket(Bucket=name)
        prefix = "diarios/2026-11-26/"
        current = Site(
            kind=request.param,
            dest=f"s3://{backups}/{prefix}",
            monkeypatch=monkeypatch,
            backup_client=client,
            backup_bucket=backups,
            backup_prefix=prefix,
        )
    else:
        monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("sqlite_url"))
        root = tmp_path / "respaldos" / "2026-11-26"
        current = Site(kind=request.param, dest=str(root), monkeypatch=monkeypatch, backup_root=root)
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield current
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()
    for url in current.extra_databases:
        drop_pg_database(url)


@dataclass(frozen=True)
class Seeded:
    listing_uids: list[str]
    verified_uid: str
    pending_request_uid: str
    staff_uid: str


def _published_with_photos(
    db: Session, owner, name: str, photos: int, clip: Path | None = None, processed: bool = True
) -> Listing:
    """A public listing in CITY whose photos (and ``clip``: processed and approved, or still waiting for a worker)
    went through the real pipeline into the configured stores."""
    listing = make_listing(db, owner, name=name, city=CITY, status=ListingStatus.BORRADOR.value, photos=0)
    for index in range(photos):
        add_photo(
            session=db,
            storage=get_storage(),
            owner_uid=owner.uid,
            uid=listing.uid,
            data=jpeg_with_gps((900 + 10 * index, 600)),
        )
    if clip is not None:
        clip_uid = listing_videos.start_clip(
            session=db, private_storage=get_private_storage(), owner_uid=owner.uid, uid=listing.uid, source=clip
        )
        if processed:
            listing_videos.process_clip(
                session=db, storage=get_storage(), private_storage=get_private_storage(), clip_uid=clip_uid
            )
            listing_videos.approve_ready_clips(db, listing.uid)  # as the listing's review does
    listing = db.get(Listing, listing.uid)
    listing.status = ListingStatus.PUBLICADA.value
    listing.published_at = listing.ranked_at = utc_now()
    db.add(listing)
    db.commit()
    return listing


def _seed(clips: Path | None = None) -> Seeded:
    """Listings with photos, an approved verification (its audit entry) and a pending one with its private photo;
    with ``clips`` (a clip file), the first listing has it ready and approved, the last one still processing."""
    with Session(get_engine(), expire_on_commit=False) as db:
        owner = make_owner(db, "duena@example.cl")
        staff = make_staff(db, "admin@example.cl", ProfileId.ADMINISTRADOR)
        made = [
            _published_with_photos(db, owner, name, photos, clip=clips if index != 1 else None, processed=index == 0)
            for index, (name, photos) in enumerate(zip(NAMES, (2, 1, 1), strict=True))
        ]
        private = get_private_storage()
        for listing in made[1:]:
            verification.request_verification(
                session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps()
            )
        requests = {row.listing_uid: row for row in db.exec(select(ListingVerification)).scalars()}
        verification.approve_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=requests[made[1].uid].uid
        )
        return Seeded(
            listing_uids=[listing.uid for listing in made],
            verified_uid=made[1].uid,
            pending_request_uid=requests[made[2].uid].uid,
            staff_uid=staff.uid,
        )


def _row_counts() -> dict[str, int]:
    with get_engine().connect() as connection:
        names = inspect(connection).get_table_names()
        return {name: connection.execute(select(func.count()).select_from(table(name))).scalar_one() for name in names}


def _photo_files() -> dict[str, dict[str, bytes]]:
    """Every file of both stores, with its bytes."""
    stores = {"public": get_storage(), "private": get_private_storage()}
    return {area: {key: storage.get(key) for key in stored_keys(storage)} for area, storage in stores.items()}


def _wipe(site: Site) -> None:
    """Lose everything: both stores emptied, and the database replaced by an empty one (PostgreSQL) or deleted."""
    for storage in (get_storage(), get_private_storage()):
        for key in stored_keys(storage):
            storage.delete(key)
    if site.postgresql:
        empty = create_pg_database("t")
        site.extra_databases.append(empty)
        site.reconfigure(DATABASE_URL=empty)
    else:
        get_engine().dispose()
        path = Path(get_settings().database_url.split("///", 1)[1])
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
        site.reconfigure()
    assert _photo_files() == {"public": {}, "private": {}}


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _api():
    from app.app import app as reflex_app
    from app.web.api import build_api

    return build_api(reflex_app)


@pytest.fixture(scope="module")
def clip_file(tmp_path_factory) -> Path:
    return h264_mp4(tmp_path_factory.mktemp("backup-clip"), size="320x240", seconds=1)


def test_backup_wipe_and_restore_bring_everything_back(site, capsys, clip_file):
    seeded = _seed(clips=clip_file)
    counts, files = _row_counts(), _photo_files()
    assert counts["auditoria"] >= 1 and counts["publicacion_foto"] == 4 and counts["verificacion_publicacion"] == 2
    assert counts["publicacion_video"] == 2
    with Session(get_engine(), expire_on_commit=False) as db:
        clips = {clip.status: clip for clip in db.exec(select(ListingVideo)).scalars()}
    ready, waiting = clips[ClipStatus.LISTA], clips[ClipStatus.PROCESANDO]
    assert ready.approved and ready.video_key in files["public"]
    assert all(key in files["public"] for key in listing_videos.poster_keys(ready))
    assert set(files["private"]) >= {waiting.original_key} and len(files["private"]) == 2
    assert len(files["public"]) >= 4 * 3 + 2

    code, out, err = _run(capsys, "backup", site.dest)
    assert code == 0, err
    assert "Respaldo completo" in out and "2 privadas" in out and "sin cifrar" in out
    backup = site.backup_files()
    manifest = json.loads(backup["manifest.json"])
    database = manifest["database"]["file"]
    if site.postgresql:  # pg_dump's custom format, and SQLite's own file format
        assert database == "database.pgdump" and backup[database].startswith(b"PGDMP")
    else:
        assert database == "database.sqlite3" and backup[database].startswith(b"SQLite format 3\x00")
    assert manifest["tables"] == counts
    assert {entry["name"] for entry in manifest["files"]} == set(backup) - {"manifest.json"}
    for entry in manifest["files"]:
        assert entry["sha256"] == hashlib.sha256(backup[entry["name"]]).hexdigest()
    assert {f"public/{key}" for key in files["public"]} | {f"private/{key}" for key in files["private"]} == (
        set(backup) - {"manifest.json", database}
    )

    _wipe(site)
    code, out, err = _run(capsys, "restore", site.dest)
    assert code == 0, err
    assert "Restaurado desde" in out

    assert _row_counts() == counts
    assert _photo_files() == files
    with Session(get_engine(), expire_on_commit=False) as db:
        assert listings.public_listing(session=db, uid=seeded.verified_uid).verified
        photo_keys = [photo.path for photo in db.exec(select(ListingPhoto)).scalars()]
        token = open_session(db, seeded.staff_uid)
    with TestClient(_api(), base_url="http://localhost") as http:
        page = http.get(f"/escorts-ssg/{CITY}")
        assert page.status_code == 200
        assert page.text.count('data-testid="listing-card"') == len(NAMES)
        for name in NAMES:
            assert name in page.text
        for key in photo_keys:
            assert listings.photo_url(key) in page.text
            served = http.get(f"/media/{key}")
            assert served.status_code == 200 and served.content == files["public"][key]
        private = http.get(f"/privado/verificacion/{seeded.pending_request_uid}", cookies={SESSION_COOKIE: token})
        assert private.status_code == 200
        [photo_key] = [key for key in files["private"] if key != waiting.original_key]
        assert private.content == files["private"][photo_key]
        played = http.get(f"/media/{ready.video_key}", headers={"Range": "bytes=0-99"})  # a visitor's player
        assert played.status_code == 206 and played.content == files["public"][ready.video_key][:100]
        assert played.headers["content-type"] == "video/mp4"
    if site.postgresql:  # S3 keeps each object's type: the restored clip is still a video to a browser
        assert (
            get_storage().client.head_object(Bucket=get_settings().s3_bucket, Key=ready.video_key)["ContentType"]
            == "video/mp4"
        )
    with Session(get_engine(), expire_on_commit=False) as db:  # the restored original is processed as before
        listing_videos.process_clip(
            session=db, storage=get_storage(), private_storage=get_private_storage(), clip_uid=waiting.uid
        )
        assert db.get(ListingVideo, waiting.uid).status == ClipStatus.LISTA
    assert get_private_storage().list_keys() == [key for key in files["private"] if key != waiting.original_key]


def test_a_target_that_is_not_empty_is_refused_unless_replace_is_given(site, capsys):
    _seed()
    counts, files = _row_counts(), _photo_files()
    assert _run(capsys, "backup", site.dest)[0] == 0

    with Session(get_engine(), expire_on_commit=False) as db:  # the site goes on after the backup
        _published_with_photos(db, make_owner(db, "nueva@example.cl"), "Posterior Cuatro", 1)
    after = _row_counts(), _photo_files()
    code, _out, err = _run(capsys, "restore", site.dest)
    assert code == 1
    assert "no está vacío" in err and "--replace" in err and "No se restauró nada" in err
    assert (_row_counts(), _photo_files()) == after  # untouched

    code, _out, err = _run(capsys, "restore", "--replace", site.dest)
    assert code == 0, err
    assert _row_counts() == counts
    assert _photo_files() == files


def test_a_second_backup_into_the_same_place_is_refused(site, capsys):
    _seed()
    assert _run(capsys, "backup", site.dest)[0] == 0
    written = site.backup_files()
    code, _out, err = _run(capsys, "backup", site.dest)
    assert code == 1 and "ya tiene archivos" in err
    assert site.backup_files() == written


@pytest.mark.parametrize("damaged", ["photo", "database", "missing"])
def test_a_corrupted_or_missing_file_is_found_by_its_checksum_before_anything_is_written(site, capsys, damaged):
    _seed()
    assert _run(capsys, "backup", site.dest)[0] == 0
    backup = site.backup_files()
    manifest = json.loads(backup["manifest.json"])
    if damaged == "database":
        name = manifest["database"]["file"]
    else:
        name = next(entry["name"] for entry in manifest["files"] if entry["name"].startswith("public/"))
    if damaged == "missing":
        site.rewrite(name, None)
    else:
        data = bytearray(backup[name])
        data[len(data) // 2] ^= 0x01  # one flipped bit, same size
        site.rewrite(name, bytes(data))

    _wipe(site)
    code, _out, err = _run(capsys, "restore", site.dest)
    assert code == 1
    assert name in err and "No se restauró nada" in err
    if damaged == "missing":
        assert "Falta el archivo" in err
    else:
        assert "suma de verificación" in err
    assert _photo_files() == {"public": {}, "private": {}}
    if site.postgresql:
        assert _row_counts() == {}
    else:
        assert not Path(get_settings().database_url.split("///", 1)[1]).exists() or _row_counts() == {}


def test_an_encrypted_backup_restores_with_its_key_only_and_the_key_is_not_beside_it(site, capsys):
    _seed()
    counts, files = _row_counts(), _photo_files()
    secret, public = new_key()
    site.monkeypatch.setenv("BACKUP_KEY", secret)
    code, out, err = _run(capsys, "backup", site.dest)
    assert code == 0, err
    assert "cifrado con BACKUP_KEY" in out and secret not in out + err

    backup = site.backup_files()
    manifest = json.loads(backup["manifest.json"])
    assert manifest["encrypted"] is True and manifest["recipient"] == public
    for name, data in backup.items():
        assert secret.encode() not in data and secret.lower().encode() not in data, name
        if name != "manifest.json":
            assert name.endswith(".age") and data.startswith(b"age-encryption.org/v1\n"), name
    plain_photos = [data for area in files.values() for data in area.values()]
    assert not any(photo in data for photo in plain_photos for data in backup.values())
    if site.backup_root is not None:
        assert secret not in "".join(os.listdir(site.backup_root))

    _wipe(site)
    site.monkeypatch.delenv("BACKUP_KEY")
    code, _out, err = _run(capsys, "restore", site.dest)
    assert code == 1 and "El respaldo está cifrado" in err
    site.monkeypatch.setenv("BACKUP_KEY", new_key()[0])
    code, _out, err = _run(capsys, "restore", site.dest)
    assert code == 1 and "no es la clave de este respaldo" in err
    site.monkeypatch.setenv("BACKUP_KEY", public)
    code, _out, err = _run(capsys, "restore", site.dest)
    assert code == 1 and "clave secreta" in err
    assert _photo_files() == {"public": {}, "private": {}}

    site.monkeypatch.setenv("BACKUP_KEY", secret)
    code, out, err = _run(capsys, "restore", site.dest)
    assert code == 0, err
    assert secret not in out + err
    assert _row_counts() == counts
    assert _photo_files() == files


def test_a_backup_made_with_the_public_key_alone_restores_with_the_secret_one(
    tmp_path, sqlite_url, monkeypatch, capsys
):
    """The machine that makes backups may hold only the public half (age1…): it can write them, never read them."""
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    secret, public = new_key()
    monkeypatch.setenv("BACKUP_KEY", public)
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        counts = _row_counts()
        assert _run(capsys, "backup", str(tmp_path / "respaldo"))[0] == 0
        get_engine().dispose()
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'restaurada.db'}")
        monkeypatch.setenv("BACKUP_KEY", secret)
        get_settings.cache_clear()
        get_engine.cache_clear()
        code, _out, err = _run(capsys, "restore", str(tmp_path / "respaldo"))
        assert code == 0, err
        assert _row_counts() == counts
    finally:
        get_engine().dispose()
        get_settings.cache_clear()
        get_engine.cache_clear()


def test_a_manifest_naming_a_path_outside_the_backup_is_refused(tmp_path, sqlite_url, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        folder = tmp_path / "respaldo"
        assert _run(capsys, "backup", str(folder))[0] == 0
        (tmp_path / "secreto.txt").write_text("no")
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["files"].append(
            {"name": "public/../../secreto.txt", "sha256": hashlib.sha256(b"no").hexdigest(), "size": 2}
        )
        (folder / "manifest.json").write_text(json.dumps(manifest))
        get_engine().dispose()
        monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'restaurada.db'}")
        get_settings.cache_clear()
        get_engine.cache_clear()
        code, _out, err = _run(capsys, "restore", str(folder))
        assert code == 1 and "no válido" in err
        assert not (tmp_path / "media").exists() or not any((tmp_path / "media").rglob("*"))
    finally:
        get_engine().dispose()
        get_settings.cache_clear()
        get_engine.cache_clear()


def test_no_manifest_means_no_backup(tmp_path, sqlite_url, monkeypatch, capsys):
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    get_settings.cache_clear()
    (tmp_path / "a-medias").mkdir()
    shutil.copyfile(Path(sqlite_url.split("///", 1)[1]), tmp_path / "a-medias" / "database.sqlite3")
    code, _out, err = _run(capsys, "restore", str(tmp_path / "a-medias"))
    get_settings.cache_clear()
    assert code == 1 and "No hay manifest.json" in err


def test_list_keys_walks_a_whole_bucket_past_one_page(s3_storage):
    """S3 lists 1000 objects per request: a store with more must be listed whole (the backup walks it)."""
    assert isinstance(s3_storage, S3Storage)
    client = s3_storage.client
    keys = [f"photos/ab/p{index:04d}.webp" for index in range(1005)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda key: client.put_object(Bucket=s3_storage.bucket, Key=key, Body=b"x"), keys))
    assert s3_storage.list_keys() == keys


def test_an_unreachable_database_or_bucket_is_one_spanish_line(tmp_path, monkeypatch, capsys, s3_server):
    monkeypatch.setenv("DATABASE_URL", f"postgresql+psycopg://postgres:clave@127.0.0.1:{free_port()}/nadie")
    monkeypatch.setenv("DB_CONNECT_TIMEOUT_S", "2")
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    monkeypatch.setenv("S3_ENDPOINT_URL", s3_server)
    monkeypatch.setenv("S3_ACCESS_KEY", "test-access")
    monkeypatch.setenv("S3_SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    try:
        code, _out, err = _run(capsys, "backup", str(tmp_path / "respaldo"))
        assert code == 1 and "La base de datos no respondió" in err and "clave" not in err
        assert not (tmp_path / "respaldo").exists()  # checked before any file was copied
        code, _out, err = _run(capsys, "backup", f"s3://no-existe-{uuid.uuid4().hex[:8]}/diario")
        assert code == 1 and "NoSuchBucket" in err
    finally:
        get_settings.cache_clear()


def test_the_commands_of_the_documentation_as_processes(tmp_path, sqlite_url):
    """`python -m app.cli backup DEST` and `restore SRC` as an operator runs them, the key in the environment."""
    secret, _public = new_key()
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith(("S3_", "DATABASE_URL"))},
        "DATABASE_URL": sqlite_url,
        "MEDIA_DIR": str(tmp_path / "media"),
        "PRIVATE_MEDIA_DIR": str(tmp_path / "private"),
        "BACKUP_KEY": secret,
    }
    (tmp_path / "media" / "photos" / "ab").mkdir(parents=True)
    (tmp_path / "media" / "photos" / "ab" / "foto-400.webp").write_bytes(b"RIFF-foto")
    folder = str(tmp_path / "respaldo")

    def run(*argv: str, **changes: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "app.cli", *argv]
        return subprocess.run(command, env={**env, **changes}, capture_output=True, text=True, timeout=300, check=False)

    made = run("backup", folder)
    assert made.returncode == 0, made.stderr
    assert "cifrado con BACKUP_KEY" in made.stdout and secret not in made.stdout + made.stderr
    restored = run(
        "restore",
        folder,
        DATABASE_URL=f"sqlite:///{tmp_path / 'nueva.db'}",
        MEDIA_DIR=str(tmp_path / "media2"),
        PRIVATE_MEDIA_DIR=str(tmp_path / "private2"),
    )
    assert restored.returncode == 0, restored.stderr
    assert (tmp_path / "media2" / "photos" / "ab" / "foto-400.webp").read_bytes() == b"RIFF-foto"
    refused = run("restore", folder)  # the original site is not empty
    assert refused.returncode == 1 and "no está vacío" in refused.stderr and "Traceback" not in refused.stderr


def test_a_backup_never_goes_into_a_photo_store(site, capsys):
    settings = get_settings()
    if site.postgresql:
        places = [f"s3://{settings.s3_bucket}/respaldo", f"s3://{settings.s3_private_bucket}/respaldo"]
    else:
        places = [str(settings.media_dir / "respaldo"), str(settings.private_media_dir), str(settings.media_dir.parent)]
    for place in places:
        code, _out, err = _run(capsys, "backup", place)
        assert code == 1 and ("bucket aparte" in err or "carpeta aparte" in err), place
    assert _photo_files() == {"public": {}, "private": {}}
