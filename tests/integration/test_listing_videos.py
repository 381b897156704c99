"""Listings' clips on SQLite and PostgreSQL: start (probe first, original kept privately, row procesando, processing
enqueued), process (MP4 and poster stored, original gone; twice, after a crash, for a deleted clip), a refused file,
retry, delete, review (approved with the listing, dropped with a refused edit), the Video tab, the privacy export
and account deletion; and migration 0018's triggers that keep publicacion.has_video."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from app.core.errors import InvalidInputError, NotFoundError, VideoRejectedError
from app.db import make_engine, migrate
from app.models import ClipStatus, Listing, ListingReview, ListingStatus, ListingVideo, utc_now
from app.services import listing_videos, my_listings, privacy
from app.services.staff import reviews
from app.storage.local import LocalStorage, PrivateLocalStorage
from app.task_queue import VIDEO
from tests.conftest import fresh_pg_database
from tests.factories import actor_of, make_listing, make_owner, ready_clip
from tests.video_samples import h264_mp4
from tests.waits import queued_jobs

pytestmark = pytest.mark.integration


@pytest.fixture
def db(db_on_both) -> Session:
    return db_on_both


@pytest.fixture
def stores(tmp_path) -> tuple[LocalStorage, PrivateLocalStorage]:
    return LocalStorage(tmp_path / "media"), PrivateLocalStorage(tmp_path / "private")


@pytest.fixture
def enqueued() -> Callable[[], list[tuple[str, dict]]]:
    """What the clip processing jobs waiting in the queue were given (the real queue of the test's database)."""
    return lambda: [(VIDEO.name, arguments) for arguments in queued_jobs(VIDEO.name)]


@pytest.fixture(scope="module")
def clip_file(tmp_path_factory) -> Path:
    return h264_mp4(tmp_path_factory.mktemp("clips"), size="320x240", seconds=1)


def _start(db, stores, owner, listing, source) -> str:
    return listing_videos.start_clip(
        session=db, private_storage=stores[1], owner_uid=owner.uid, uid=listing.uid, source=source
    )


def _process(db, stores, uid) -> None:
    listing_videos.process_clip(session=db, storage=stores[0], private_storage=stores[1], clip_uid=uid)


def _clip(db, uid) -> ListingVideo | None:
    db.expire_all()
    return db.get(ListingVideo, uid)


def test_start_then_process_stores_the_mp4_and_poster_and_drops_the_original(db, stores, enqueued, clip_file):
    owner = make_owner(db, "clips@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    uid = _start(db, stores, owner, listing, clip_file)
    clip = _clip(db, uid)
    assert clip.status == ClipStatus.PROCESANDO and not clip.approved
    assert stores[1].list_keys() == [listing_videos.original_key(uid)] and stores[0].list_keys() == []
    assert enqueued() == [(VIDEO.name, {"clip_uid": uid})]
    _process(db, stores, uid)
    clip = _clip(db, uid)
    assert clip.status == ClipStatus.LISTA and clip.original_key is None
    assert stores[1].list_keys() == []
    public = stores[0].list_keys()
    assert listing_videos.video_key(uid) in public and any(key.endswith(".webp") for key in public)
    assert stores[0].get(listing_videos.video_key(uid))[4:8] == b"ftyp"
    _process(db, stores, uid)  # a second run: nothing changes
    assert stores[0].list_keys() == public and _clip(db, uid).status == ClipStatus.LISTA
    shown = listing_videos.list_clips(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert [c.uid for c in shown] == [uid] and shown[0].video_url.endswith(".mp4") and shown[0].poster_url


def test_a_crash_midway_is_overwritten_by_the_next_run(db, stores, enqueued, clip_file, monkeypatch):
    owner = make_owner(db, "crash@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    uid = _start(db, stores, owner, listing, clip_file)
    real_poster = listing_videos.poster_frame

    def dies(path):
        raise RuntimeError("worker killed")

    monkeypatch.setattr(listing_videos, "poster_frame", dies)
    with pytest.raises(RuntimeError):
        _process(db, stores, uid)
    assert _clip(db, uid).status == ClipStatus.PROCESANDO
    monkeypatch.setattr(listing_videos, "poster_frame", real_poster)
    _process(db, stores, uid)
    assert _clip(db, uid).status == ClipStatus.LISTA
    assert stores[0].list_keys().count(listing_videos.video_key(uid)) == 1


def test_refusals_store_nothing(db, stores, enqueued, clip_file, tmp_path):
    owner = make_owner(db, "refused@example.cl")
    other = make_owner(db, "other@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    fake = tmp_path / "foto.mp4"
    fake.write_bytes(b"not a video at all" * 100)
    with pytest.raises(VideoRejectedError):
        _start(db, stores, owner, listing, fake)
    with pytest.raises(NotFoundError):
        _start(db, stores, other, listing, clip_file)
    assert stores[1].list_keys() == [] and enqueued() == []
    for _ in range(2):
        _start(db, stores, owner, listing, clip_file)
    with pytest.raises(InvalidInputError) as refused:
        _start(db, stores, owner, listing, clip_file)
    assert refused.value.message == listing_videos.TOO_MANY
    assert len(stores[1].list_keys()) == 2


def test_a_refused_transcode_fails_the_clip_which_can_only_be_deleted(db, stores, enqueued, clip_file, monkeypatch):
    owner = make_owner(db, "fails@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    uid = _start(db, stores, owner, listing, clip_file)

    def refuses(source, target):
        raise VideoRejectedError("El video está dañado.", reason="damaged")

    monkeypatch.setattr(listing_videos, "transcode_clip", refuses)
    _process(db, stores, uid)
    clip = _clip(db, uid)
    assert (clip.status, clip.failure, clip.original_key) == (ClipStatus.FALLIDA, "El video está dañado.", None)
    assert stores[1].list_keys() == []
    with pytest.raises(Exception, match="no se puede procesar"):
        listing_videos.retry_clip(session=db, owner_uid=owner.uid, clip_uid=uid)
    with pytest.raises(NotFoundError):
        listing_videos.delete_clip(
            session=db, storage=stores[0], private_storage=stores[1], owner_uid="someone", clip_uid=uid
        )
    listing_videos.delete_clip(
        session=db, storage=stores[0], private_storage=stores[1], owner_uid=owner.uid, clip_uid=uid
    )
    assert _clip(db, uid) is None


def test_a_failure_that_kept_the_original_may_be_retried(db, stores, enqueued, clip_file):
    owner = make_owner(db, "retry@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    uid = _start(db, stores, owner, listing, clip_file)
    listing_videos.fail_clip(
        session=db,
        private_storage=stores[1],
        clip_uid=uid,
        message=listing_videos.PROCESSING_FAILED,
        keep_original=True,
    )
    assert _clip(db, uid).status == ClipStatus.FALLIDA
    listing_videos.retry_clip(session=db, owner_uid=owner.uid, clip_uid=uid)
    assert _clip(db, uid).status == ClipStatus.PROCESANDO and enqueued()[-1] == (
        VIDEO.name,
        {"clip_uid": uid},
    )
    _process(db, stores, uid)
    assert _clip(db, uid).status == ClipStatus.LISTA


def test_a_clip_deleted_while_processed_leaves_no_file(db, stores, enqueued, clip_file, monkeypatch):
    owner = make_owner(db, "gone@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    uid = _start(db, stores, owner, listing, clip_file)
    real = listing_videos.poster_frame

    def deleted_meanwhile(path):
        listing_videos.delete_clip(
            session=db, storage=stores[0], private_storage=stores[1], owner_uid=owner.uid, clip_uid=uid
        )
        return real(path)

    monkeypatch.setattr(listing_videos, "poster_frame", deleted_meanwhile)
    _process(db, stores, uid)
    assert _clip(db, uid) is None and stores[0].list_keys() == [] and stores[1].list_keys() == []
    _process(db, stores, uid)  # the task again, for a clip that is gone: nothing


def _video_tab(db) -> set[str]:
    db.expire_all()
    return {listing.uid for listing in db.exec(select(Listing).where(Listing.has_video == True))}  # noqa: E712


def test_a_clip_of_a_published_listing_waits_for_review_then_shows_in_the_video_tab(
    db, stores, enqueued, clip_file, staff
):
    owner = make_owner(db, "review@example.cl")
    listing = make_listing(db, owner)
    uid = _start(db, stores, owner, listing, clip_file)
    _process(db, stores, uid)
    db.expire_all()
    assert db.get(Listing, listing.uid).revision_at is not None  # the edit waits, as with a new photo
    key = listing_videos.video_key(uid)
    assert not listing_videos.public_media(session=db, key=key)
    assert listing_videos.private_media(session=db, key=key, actor=actor_of(owner))
    assert listing_videos.private_media(session=db, key=key, actor=actor_of(staff))
    assert not listing_videos.private_media(session=db, key=key, actor=actor_of(make_owner(db, "x@example.cl")))
    assert listing.uid not in _video_tab(db)
    db.add(ListingReview(listing_uid=listing.uid))
    db.commit()
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=listing.uid)
    assert _clip(db, uid).approved and listing.uid in _video_tab(db)
    assert listing_videos.public_media(session=db, key=key)
    poster = listing_videos.poster_keys(_clip(db, uid))[0]
    assert listing_videos.public_media(session=db, key=poster)


def test_a_refused_edit_deletes_the_ready_clip_it_brought(db, stores, enqueued, clip_file, staff):
    owner = make_owner(db, "refusal@example.cl")
    listing = make_listing(db, owner)
    uid = _start(db, stores, owner, listing, clip_file)
    _process(db, stores, uid)
    db.add(ListingReview(listing_uid=listing.uid))
    db.commit()
    reviews.reject_listing(
        session=db, storage=stores[0], actor=actor_of(staff), listing_uid=listing.uid, reason="Video ajeno"
    )
    assert _clip(db, uid) is None and stores[0].list_keys() == []
    assert listing.uid not in _video_tab(db)


def test_the_video_tab_is_exactly_the_listings_with_an_approved_ready_clip(db):
    owner = make_owner(db, "tab@example.cl")
    shown = make_listing(db, owner, name="Con video", has_video=True)
    waiting = make_listing(db, owner, name="Sin aprobar")
    processing = make_listing(db, owner, name="Procesando")
    db.add_all(
        [
            ready_clip(waiting.uid, approved=False),
            ready_clip(processing.uid, approved=True, status=ClipStatus.PROCESANDO),
        ]
    )
    db.commit()
    plain = make_listing(db, owner, name="Sin video", has_video=False)
    plain.has_video = True  # nobody but the database decides it
    db.add(plain)
    db.commit()
    assert _video_tab(db) == {shown.uid}
    clip = db.exec(select(ListingVideo).where(ListingVideo.listing_uid == shown.uid)).one()
    db.delete(clip)
    db.commit()
    assert _video_tab(db) == set()


def test_the_export_and_deletion_take_the_clips(db, stores, enqueued, clip_file, tmp_path):
    owner = make_owner(db, "mine@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    ready = _start(db, stores, owner, listing, clip_file)
    _process(db, stores, ready)
    waiting = _start(db, stores, owner, listing, clip_file)
    privacy.write_zip(
        session=db,
        storage=stores[0],
        private_storage=stores[1],
        user_uid=owner.uid,
        now=listing.created_at,
        path=tmp_path / "datos.zip",
    )
    archive = zipfile.ZipFile(tmp_path / "datos.zip")
    data = json.loads(archive.read(privacy.EXPORT_FILE))
    clips = {clip["uid"]: clip for clip in data["publicaciones"][0]["videos"]}
    assert set(clips) == {ready, waiting} and "original_key" not in clips[ready]
    assert archive.read(clips[ready]["archivo"]) == stores[0].get(listing_videos.video_key(ready))
    assert clips[waiting]["archivo"] is None
    # What deleting the listing, the account or a stale draft does (each goes through remove_listing_rows).
    removed = my_listings.remove_listing_rows(session=db, listing=db.get(Listing, listing.uid), note="", now=utc_now())
    db.commit()
    removed.remove(storage=stores[0], private=stores[1])
    assert db.exec(select(ListingVideo)).all() == []
    assert stores[0].list_keys() == [] and stores[1].list_keys() == []


# --- migration 0018 ---------------------------------------------------------------------------------------------

USER = (
    "INSERT INTO usuarios (uid, email, display_name, profile_uid, activo, ban, online, created_at, updated_at)"
    " VALUES ('u', 'u@example.cl', '', 'profesor', true, false, false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)
LISTING = (
    "INSERT INTO publicacion (uid, owner_uid, section, commune, description, phone, whatsapp, has_video,"
    " verified, porn_actress, curvy, status, created_at, updated_at)"
    " VALUES (:uid, 'u', 'mujeres', 'Talca', '', '', '', true, false, false, false, 'publicada',"
    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)
CLIP = (
    "INSERT INTO publicacion_video (uid, listing_uid, position, status, approved, poster_widths, duration_s, width,"
    " height, failure, created_at, updated_at)"
    " VALUES (:uid, :listing, 0, :status, :approved, '', 1, 1, 1, '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)


def _flags(engine) -> dict[str, bool]:
    with engine.connect() as conn:
        return {uid: bool(flag) for uid, flag in conn.execute(text("SELECT uid, has_video FROM publicacion"))}


def _check_migration(url: str) -> None:
    migrate(url, "0017")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text(USER))
            for uid in ("a", "b"):
                conn.execute(text(LISTING), {"uid": uid})
        migrate(url, "0018")
        engine.dispose()
        assert _flags(engine) == {"a": False, "b": False}  # the checkbox's word is gone: no clip exists
        with engine.begin() as conn:
            conn.execute(text(CLIP), {"uid": "c1", "listing": "a", "status": "procesando", "approved": True})
            conn.execute(text(CLIP), {"uid": "c2", "listing": "b", "status": "lista", "approved": False})
        assert _flags(engine) == {"a": False, "b": False}
        with engine.begin() as conn:
            conn.execute(text("UPDATE publicacion_video SET status = 'lista' WHERE uid = 'c1'"))
            conn.execute(text("UPDATE publicacion SET has_video = true WHERE uid = 'b'"))  # corrected at once
        assert _flags(engine) == {"a": True, "b": False}
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM publicacion_video WHERE uid = 'c1'"))
            conn.execute(text("UPDATE publicacion_video SET approved = true WHERE uid = 'c2'"))
        assert _flags(engine) == {"a": False, "b": True}
        migrate(url, "0017", downgrade=True)
        engine.dispose()
        with engine.begin() as conn:  # no trigger left behind to read a table that is gone
            conn.execute(text(LISTING), {"uid": "c"})
        assert _flags(engine)["c"] is True
        migrate(url)
    finally:
        engine.dispose()


def test_migration_0018_on_sqlite(tmp_path):
    _check_migration(f"sqlite:///{tmp_path / 'm.db'}")


def test_migration_0018_on_postgresql():
    with fresh_pg_database("clips") as url:
        _check_migration(url)
