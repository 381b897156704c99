"""Photos processed on the task queue (issue 37 §4), on SQLite and PostgreSQL: an upload is stored privately and
queued, never processed by the web worker; the job adds the photo, deletes its row and raw file, and ends the same
way run twice, after a crash, or after its photo or listing went away; a refused photo waits, with its message,
for its owner to dismiss it; the last failed attempt refuses it; the wizard's steps count photos still processing,
and sending to review waits for them."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest
from sqlmodel import Session, select

from app import tasks
from app.core.errors import ConflictError, NotFoundError
from app.models import ListingPhoto, ListingStatus, PendingPhoto, PendingPhotoStatus
from app.services import listing_drafts, my_listings, photo_uploads
from app.services.listing_photos import list_photos
from app.storage.local import LocalStorage, PrivateLocalStorage
from app.task_queue import PHOTO
from tests.factories import make_listing, make_owner
from tests.photo_samples import TEXT_AS_JPG, jpeg_with_gps
from tests.waits import queued_jobs

pytestmark = pytest.mark.integration

DRAFT = ListingStatus.BORRADOR.value


@pytest.fixture
def db(db_on_both) -> Session:
    return db_on_both


@pytest.fixture
def stores(storage, private_storage) -> tuple[LocalStorage, PrivateLocalStorage]:
    return storage, private_storage


@pytest.fixture
def enqueued() -> Callable[[], list[dict]]:
    """What the photo jobs waiting in the queue were given (the real queue of the test's database)."""
    return lambda: queued_jobs(PHOTO.name)


def _receive(db, stores, owner, listing, data=None) -> str:
    return photo_uploads.receive_photo(
        session=db,
        private_storage=stores[1],
        owner_uid=owner.uid,
        uid=listing.uid,
        data=data or jpeg_with_gps(),
        file_name="playa.jpg",
    )


def _process(db, stores, uid) -> None:
    photo_uploads.process_pending(session=db, storage=stores[0], private_storage=stores[1], pending_uid=uid)


def _pending(db, uid) -> PendingPhoto | None:
    db.expire_all()
    return db.get(PendingPhoto, uid)


def test_an_upload_is_stored_privately_and_queued_then_the_job_adds_it_once(db, stores, enqueued):
    owner = make_owner(db, "fotos@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    pending = _pending(db, uid)
    assert pending.status == PendingPhotoStatus.PROCESANDO and pending.file_name == "playa.jpg"
    assert stores[1].list_keys() == [photo_uploads.incoming_key(uid)] and stores[0].list_keys() == []
    assert pending.raw_key == f"fotos-entrantes/{uid[:2]}/{uid}"
    assert enqueued() == [{"pending_uid": uid}]
    assert list_photos(session=db, owner_uid=owner.uid, uid=listing.uid) == []
    [shown] = photo_uploads.list_pending(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert (shown.uid, shown.status) == (uid, PendingPhotoStatus.PROCESANDO)
    _process(db, stores, uid)
    assert _pending(db, uid) is None and stores[1].list_keys() == []
    [photo] = list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert photo.uid == uid and photo.is_cover
    files = stores[0].list_keys()
    assert files and all(key.startswith(f"photos/{uid[:2]}/{uid}-") for key in files)
    _process(db, stores, uid)  # a second run (retry_stalled_jobs after a killed worker): nothing changes
    assert stores[0].list_keys() == files and len(list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)) == 1


def test_a_crash_midway_loses_nothing_and_the_next_run_ends_the_same(db, stores, enqueued, monkeypatch):
    owner = make_owner(db, "caida@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    real_insert = photo_uploads.listing_photos.insert_photo

    def dies(*args, **kwargs):
        raise RuntimeError("worker killed")

    monkeypatch.setattr(photo_uploads.listing_photos, "insert_photo", dies)
    with pytest.raises(RuntimeError):
        _process(db, stores, uid)
    assert _pending(db, uid).status == PendingPhotoStatus.PROCESANDO
    assert stores[0].list_keys() == [] and stores[1].list_keys() == [photo_uploads.incoming_key(uid)]
    monkeypatch.setattr(photo_uploads.listing_photos, "insert_photo", real_insert)
    _process(db, stores, uid)
    assert [photo.uid for photo in list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)] == [uid]
    assert stores[1].list_keys() == []


def test_a_refused_photo_shows_its_message_until_its_owner_dismisses_it(db, stores, enqueued):
    owner = make_owner(db, "rechazo@example.cl")
    intruder = make_owner(db, "intrusa@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing, TEXT_AS_JPG)
    with pytest.raises(ConflictError, match="todavía se está procesando"):
        photo_uploads.dismiss_pending(session=db, private_storage=stores[1], owner_uid=owner.uid, pending_uid=uid)
    _process(db, stores, uid)
    [shown] = photo_uploads.list_pending(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert shown.status == PendingPhotoStatus.RECHAZADA and "no es una foto válida" in shown.failure
    assert stores[0].list_keys() == [] and stores[1].list_keys() == []
    for who, pending_uid in ((intruder.uid, uid), (owner.uid, "no-existe"), (owner.uid, None)):
        with pytest.raises(NotFoundError, match="No encontramos esa foto"):
            photo_uploads.dismiss_pending(session=db, private_storage=stores[1], owner_uid=who, pending_uid=pending_uid)
    with pytest.raises(NotFoundError):
        photo_uploads.list_pending(session=db, owner_uid=intruder.uid, uid=listing.uid)
    photo_uploads.dismiss_pending(session=db, private_storage=stores[1], owner_uid=owner.uid, pending_uid=uid)
    assert photo_uploads.list_pending(session=db, owner_uid=owner.uid, uid=listing.uid) == []


def test_the_last_failed_attempt_refuses_the_photo_and_deletes_its_file(db, stores, enqueued, monkeypatch):
    owner = make_owner(db, "reintento@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    monkeypatch.setattr(tasks, "get_storage", lambda: stores[0])
    monkeypatch.setattr(tasks, "get_private_storage", lambda: stores[1])

    def broken(**kwargs):
        raise OSError("almacenamiento caído")

    monkeypatch.setattr(photo_uploads, "process_pending", broken)
    first = SimpleNamespace(job=SimpleNamespace(attempts=0))
    with pytest.raises(OSError):
        tasks.process_photo(first, pending_uid=uid)
    assert _pending(db, uid).status == PendingPhotoStatus.PROCESANDO  # retried later, its file kept
    last = SimpleNamespace(job=SimpleNamespace(attempts=tasks.PHOTO_RETRY.max_attempts))
    with pytest.raises(OSError):
        tasks.process_photo(last, pending_uid=uid)
    pending = _pending(db, uid)
    assert (pending.status, pending.failure) == (PendingPhotoStatus.RECHAZADA, photo_uploads.PROCESSING_FAILED)
    assert stores[1].list_keys() == []


def test_files_of_a_photo_dismissed_or_a_listing_deleted_meanwhile_are_deleted(db, stores, enqueued, monkeypatch):
    owner = make_owner(db, "borrada@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    real_store = photo_uploads.store_photo

    def store_then_listing_deleted(**kwargs):
        stored = real_store(**kwargs)
        with Session(db.get_bind()) as other:
            my_listings.delete_listing(session=other, storage=stores[0], owner_uid=owner.uid, uid=listing.uid)
        return stored

    monkeypatch.setattr(photo_uploads, "store_photo", store_then_listing_deleted)
    monkeypatch.setattr(my_listings, "get_private_storage", lambda: stores[1])
    _process(db, stores, uid)
    assert stores[0].list_keys() == [] and stores[1].list_keys() == []
    db.expire_all()
    assert db.exec(select(ListingPhoto)).all() == [] and db.exec(select(PendingPhoto)).all() == []


def test_the_photo_step_counts_photos_processing_and_sending_waits_for_them(db, stores, enqueued, catalogue):
    owner = make_owner(db, "asistente@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    assert photo_uploads.photo_count(db, listing.uid) == 1
    db.rollback()
    with pytest.raises(ConflictError, match="Todavía estamos procesando tus fotos"):
        listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=listing.uid)
    _process(db, stores, uid)
    assert photo_uploads.processing_count(db, listing.uid) == 0


def test_photos_still_processing_are_queued_again_at_start(db, stores, enqueued):
    """The embedded queue forgets its jobs when the app stops; the rows of photos processing stay and are queued."""
    owner = make_owner(db, "reinicio@example.cl")
    listing = make_listing(db, owner, status=DRAFT, photos=0)
    uid = _receive(db, stores, owner, listing)
    refused = _receive(db, stores, owner, listing, TEXT_AS_JPG)
    _process(db, stores, refused)
    assert photo_uploads.requeue_processing() == 1
    assert enqueued().count({"pending_uid": uid}) == 2 and {"pending_uid": refused} in enqueued()
