"""The photo service of an advertiser's listing, on SQLite and PostgreSQL, with photos on local disk
(and on S3 for the metadata check): add (received, then processed as the worker does), list, reorder,
cover, delete, copy; ownership; the 12-photo limit under concurrent uploads; bad uploads leaving
nothing behind; review of photos added to a published listing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from app.core.errors import InvalidInputError, NotFoundError, PhotoRejectedError, StorageError
from app.db import make_engine
from app.models import Listing, ListingPhoto, ListingStatus, PendingPhoto, PendingPhotoStatus, utc_now
from app.services import listing_photos, listings
from app.services.listing_photos import (
    MAX_PHOTOS,
    copy_photos,
    delete_all_photos,
    delete_listing_photo,
    delete_photo_files,
    list_photos,
    move_photo,
    photo_variant_urls,
    set_cover,
)
from app.services.photo_uploads import process_pending, receive_photo
from tests.factories import make_listing, make_owner
from tests.integration.conftest import stored_keys
from tests.photo_samples import BAD_UPLOADS, TEXT_AS_JPG, assert_no_metadata, heic_with_gps, jpeg_with_gps

pytestmark = pytest.mark.integration

DRAFT = ListingStatus.BORRADOR.value


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request):
    """A migrated database of this test's own, on each backend."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    engine = make_engine(url)
    yield engine
    engine.dispose()


@pytest.fixture
def db(engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        yield session


@pytest.fixture
def owner(db):
    return make_owner(db, "duena@example.cl")


@pytest.fixture
def draft(db, owner) -> Listing:
    return make_listing(db, owner, status=DRAFT, photos=0)


def _photo(size: tuple[int, int] = (900, 600)) -> bytes:
    return jpeg_with_gps(size)


def _rows(db: Session, listing_uid: str) -> list[ListingPhoto]:
    db.expire_all()
    return list(
        db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid).order_by(ListingPhoto.position))
    )


def _keys_of(rows: list[ListingPhoto]) -> list[str]:
    return sorted(f"{row.stem}-{width}.webp" for row in rows if row.stem for width in row.widths.split(","))


def _receive(db, private_storage, owner_uid, listing_uid, data) -> str:
    return receive_photo(session=db, private_storage=private_storage, owner_uid=owner_uid, uid=listing_uid, data=data)


@pytest.fixture
def add(db, storage, private_storage):
    """Upload a photo and process it as the worker does: the photo as its owner sees it (None if refused)."""

    def add(owner, listing, data=None, storage=storage) -> listing_photos.OwnerPhoto | None:
        uid = _receive(db, private_storage, owner.uid, listing.uid, data or _photo())
        process_pending(session=db, storage=storage, private_storage=private_storage, pending_uid=uid)
        photos = list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)
        return next((photo for photo in photos if photo.uid == uid), None)

    return add


def test_add_list_move_cover_and_delete(db, storage, owner, draft, add):
    first, second, third = (add(owner, draft) for _ in range(3))
    assert [p.uid for p in list_photos(session=db, owner_uid=owner.uid, uid=draft.uid)] == [
        first.uid,
        second.uid,
        third.uid,
    ]
    assert first.is_cover and not second.is_cover and first.approved
    rows = _rows(db, draft.uid)
    assert [row.position for row in rows] == [0, 1, 2]
    assert all(row.widths == "400,800,900" and row.width == 900 and row.height == 600 for row in rows)
    assert all(row.path == f"{row.stem}-800.webp" and row.phash for row in rows)
    assert first.url == f"/media/{rows[0].path}"
    assert stored_keys(storage) == _keys_of(rows)

    def order() -> list[str]:
        return [p.uid for p in list_photos(session=db, owner_uid=owner.uid, uid=draft.uid)]

    move_photo(session=db, owner_uid=owner.uid, photo_uid=third.uid, offset=-1)
    assert order() == [first.uid, third.uid, second.uid]
    move_photo(session=db, owner_uid=owner.uid, photo_uid=first.uid, offset=-1)  # already first: stays
    move_photo(session=db, owner_uid=owner.uid, photo_uid=second.uid, offset=1)  # already last: stays
    assert order() == [first.uid, third.uid, second.uid]
    move_photo(session=db, owner_uid=owner.uid, photo_uid=first.uid, offset=1)
    assert order() == [third.uid, first.uid, second.uid]
    set_cover(session=db, owner_uid=owner.uid, photo_uid=second.uid)
    assert order() == [second.uid, third.uid, first.uid]
    listed = list_photos(session=db, owner_uid=owner.uid, uid=draft.uid)
    assert [(p.position, p.is_cover) for p in listed] == [(0, True), (1, False), (2, False)]
    with pytest.raises(InvalidInputError, match="un lugar antes o después"):
        move_photo(session=db, owner_uid=owner.uid, photo_uid=first.uid, offset=2)

    delete_listing_photo(session=db, storage=storage, owner_uid=owner.uid, photo_uid=third.uid)
    assert order() == [second.uid, first.uid]
    rows = _rows(db, draft.uid)
    assert [row.position for row in rows] == [0, 1]
    assert stored_keys(storage) == _keys_of(rows)  # every width of the deleted photo is gone


def test_a_narrow_photo_points_at_its_largest_width(db, storage, owner, draft, add):
    add(owner, draft, _photo((700, 500)))
    (row,) = _rows(db, draft.uid)
    assert row.widths == "400,700" and row.path == f"{row.stem}-700.webp"
    assert photo_variant_urls(row) == [(f"/media/{row.stem}-400.webp", 400), (f"/media/{row.stem}-700.webp", 700)]


def test_another_owner_reaches_none_of_the_photos(db, storage, private_storage, owner, draft, add):
    photos = [add(owner, draft) for _ in range(2)]
    intruder = make_owner(db, "intrusa@example.cl")
    own_listing = make_listing(db, intruder, status=DRAFT, photos=0)
    before_rows = [(row.uid, row.position, row.path) for row in _rows(db, draft.uid)]
    before_files = stored_keys(storage)

    for listing_uid in (draft.uid, "no-existe", "", None, 42, "x" * 500):
        with pytest.raises(NotFoundError, match="No encontramos esa publicación"):
            list_photos(session=db, owner_uid=intruder.uid, uid=listing_uid)
        with pytest.raises(NotFoundError, match="No encontramos esa publicación"):
            _receive(db, private_storage, intruder.uid, listing_uid, _photo())
    for photo_uid in (photos[1].uid, "no-existe", "", None, 42, "x" * 500):
        with pytest.raises(NotFoundError, match="No encontramos esa foto"):
            delete_listing_photo(session=db, storage=storage, owner_uid=intruder.uid, photo_uid=photo_uid)
        with pytest.raises(NotFoundError, match="No encontramos esa foto"):
            move_photo(session=db, owner_uid=intruder.uid, photo_uid=photo_uid, offset=-1)
        with pytest.raises(NotFoundError, match="No encontramos esa foto"):
            set_cover(session=db, owner_uid=intruder.uid, photo_uid=photo_uid)

    assert [(row.uid, row.position, row.path) for row in _rows(db, draft.uid)] == before_rows
    assert _rows(db, own_listing.uid) == []
    assert stored_keys(storage) == before_files and private_storage.list_keys() == []


def test_a_thirteenth_photo_is_refused_before_it_is_stored(db, storage, private_storage, owner, add):
    full = make_listing(db, owner, status=DRAFT, photos=MAX_PHOTOS - 1)
    add(owner, full)
    for data in (_photo(), TEXT_AS_JPG):  # not even looked at: no "not an image" answer
        with pytest.raises(InvalidInputError) as refused:
            add(owner, full, data)
        assert type(refused.value) is InvalidInputError and refused.value.field == "photos"
        assert "como máximo 12 fotos" in refused.value.message
    assert len(_rows(db, full.uid)) == MAX_PHOTOS
    assert private_storage.list_keys() == []


def _pending(db, listing_uid) -> list[PendingPhoto]:
    db.expire_all()
    return list(db.exec(select(PendingPhoto).where(PendingPhoto.listing_uid == listing_uid)))


@pytest.mark.parametrize("case", list(BAD_UPLOADS))
def test_a_bad_upload_is_refused_and_leaves_nothing_while_the_rest_of_the_batch_is_kept(
    db, storage, private_storage, owner, draft, case, add
):
    make, reason, message = BAD_UPLOADS[case]
    kept = add(owner, draft)
    files_before = stored_keys(storage)
    if reason == "too_large":  # refused as it arrives, before anything is stored
        with pytest.raises(PhotoRejectedError, match=message):
            add(owner, draft, make())
        assert _pending(db, draft.uid) == []
    else:  # refused by the worker: the owner reads why
        assert add(owner, draft, make()) is None
        [refused] = _pending(db, draft.uid)
        assert refused.status == PendingPhotoStatus.RECHAZADA and message in refused.failure
        assert refused.raw_key is None
    assert stored_keys(storage) == files_before and private_storage.list_keys() == []
    assert [row.uid for row in _rows(db, draft.uid)] == [kept.uid]
    last = add(owner, draft)
    rows = _rows(db, draft.uid)
    assert [row.uid for row in rows] == [kept.uid, last.uid] and [row.position for row in rows] == [0, 1]
    assert stored_keys(storage) == _keys_of(rows)


def test_a_failed_database_write_deletes_the_stored_files(db, storage, private_storage, owner, draft, monkeypatch):
    def failing_commit():
        raise OperationalError("COMMIT", {}, Exception("conexión perdida"))

    monkeypatch.setattr(db, "commit", failing_commit)
    with pytest.raises(StorageError, match="No pudimos guardar la foto"):
        _receive(db, private_storage, owner.uid, draft.uid, _photo())
    monkeypatch.undo()
    assert private_storage.list_keys() == [] and _pending(db, draft.uid) == []
    uid = _receive(db, private_storage, owner.uid, draft.uid, _photo())
    monkeypatch.setattr(db, "commit", failing_commit)
    with pytest.raises(StorageError, match="No pudimos guardar la foto"):
        process_pending(session=db, storage=storage, private_storage=private_storage, pending_uid=uid)
    monkeypatch.undo()
    assert _rows(db, draft.uid) == [] and stored_keys(storage) == []
    assert [row.uid for row in _pending(db, draft.uid)] == [uid]  # kept for the retry, with its file
    assert len(private_storage.list_keys()) == 1


def test_concurrent_uploads_stop_at_exactly_twelve(engine, db, storage, private_storage, owner):
    listing = make_listing(db, owner, status=DRAFT, photos=9)
    uploads = 6
    data = _photo((600, 400))
    barrier = threading.Barrier(uploads)
    outcomes: list[object] = []

    def upload() -> None:
        with Session(engine, expire_on_commit=False) as session:
            barrier.wait()
            try:
                outcomes.append(_receive(session, private_storage, owner.uid, listing.uid, data))
            except InvalidInputError as error:
                outcomes.append(error)

    threads = [threading.Thread(target=upload) for _ in range(uploads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    refused = [outcome for outcome in outcomes if isinstance(outcome, InvalidInputError)]
    assert len(outcomes) == uploads and len(refused) == uploads - (MAX_PHOTOS - 9)
    assert all("como máximo 12 fotos" in error.message for error in refused)
    assert len(private_storage.list_keys()) == MAX_PHOTOS - 9  # the refused uploads' files were deleted again
    for uid in outcomes:
        if isinstance(uid, str):
            process_pending(session=db, storage=storage, private_storage=private_storage, pending_uid=uid)
    rows = _rows(db, listing.uid)
    assert [row.position for row in rows] == list(range(MAX_PHOTOS))
    assert stored_keys(storage) == _keys_of(rows) and private_storage.list_keys() == []


@pytest.mark.parametrize("status", [ListingStatus.PUBLICADA.value, ListingStatus.PAUSADA.value])
def test_a_photo_added_to_a_published_listing_waits_for_review_and_suspends_the_badge(db, storage, owner, status, add):
    verified_at = utc_now() - timedelta(days=3)
    listing = make_listing(db, owner, status=status, photos=2, verified=True, verified_at=verified_at)
    added = add(owner, listing)
    assert not added.approved
    db.expire_all()
    stored = db.get(Listing, listing.uid)
    assert stored.revision_at is not None and stored.verified is False
    assert stored.verified_at.replace(tzinfo=None) == verified_at.replace(tzinfo=None)  # restored on approval
    if status == ListingStatus.PUBLICADA.value:
        public = listings.public_listing(session=db, uid=listing.uid)
        assert public.photos == tuple(f"/media/photos/demo/placeholder-{i:02d}.jpg" for i in range(2))
        assert added.url not in public.photos
    # The owner still sees it, marked as waiting.
    owned = list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert [(p.uid, p.approved) for p in owned][-1] == (added.uid, False)


@pytest.mark.parametrize(
    "status", [ListingStatus.BORRADOR.value, ListingStatus.PENDIENTE.value, ListingStatus.RECHAZADA.value]
)
def test_a_photo_added_to_an_unpublished_listing_is_reviewed_with_the_listing(db, storage, owner, status, add):
    listing = make_listing(db, owner, status=status, photos=0)
    assert add(owner, listing).approved
    db.expire_all()
    stored = db.get(Listing, listing.uid)
    assert stored.revision_at is None


@pytest.mark.parametrize("backend", ["local", "s3"])
@pytest.mark.parametrize("make", [jpeg_with_gps, heic_with_gps], ids=["jpeg", "heic"])
def test_gps_tagged_uploads_are_stored_without_any_metadata(request, db, owner, draft, backend, make, add):
    storage = request.getfixturevalue("s3_storage") if backend == "s3" else request.getfixturevalue("storage")
    add(owner, draft, make(), storage=storage)
    rows = _rows(db, draft.uid)
    assert stored_keys(storage) == _keys_of(rows)
    for key in _keys_of(rows):
        assert_no_metadata(storage.get(key))


def test_copy_duplicates_the_files_and_delete_all_removes_only_the_listings_own(db, storage, owner, draft, add):
    storage.put("photos/demo/placeholder-00.jpg", b"demo", "image/jpeg")
    demo = ListingPhoto(listing_uid=draft.uid, position=0, path="photos/demo/placeholder-00.jpg", width=600)
    db.add(demo)
    db.commit()
    add(owner, draft)
    add(owner, draft)
    copy = make_listing(db, owner, status=DRAFT, photos=0, city="temuco")

    copy_photos(session=db, storage=storage, from_listing_uid=draft.uid, to_listing_uid=copy.uid)
    db.commit()
    originals, copies = _rows(db, draft.uid), _rows(db, copy.uid)
    assert [row.position for row in copies] == [0, 1, 2] and all(row.approved for row in copies)
    assert copies[0].path == demo.path and copies[0].stem is None  # the shared demo file is not duplicated
    for original, duplicate in zip(originals[1:], copies[1:], strict=True):
        assert duplicate.stem != original.stem and duplicate.widths == original.widths
        assert duplicate.path == f"{duplicate.stem}-800.webp"
        for width in original.widths.split(","):
            assert storage.get(f"{duplicate.stem}-{width}.webp") == storage.get(f"{original.stem}-{width}.webp")
    assert stored_keys(storage) == sorted(["photos/demo/placeholder-00.jpg", *_keys_of(originals), *_keys_of(copies)])

    gone = delete_all_photos(session=db, listing_uid=draft.uid)
    assert stored_keys(storage) == sorted(["photos/demo/placeholder-00.jpg", *_keys_of(originals), *_keys_of(copies)])
    db.commit()  # the files go only after the caller's commit
    delete_photo_files(storage=storage, photos=gone)
    assert _rows(db, draft.uid) == []
    assert stored_keys(storage) == sorted(["photos/demo/placeholder-00.jpg", *_keys_of(copies)])


def test_variant_urls_of_a_demo_photo_are_its_one_file():
    photo = ListingPhoto(listing_uid="x", position=0, path="photos/demo/placeholder-03.jpg", width=600, height=800)
    assert photo_variant_urls(photo) == [("/media/photos/demo/placeholder-03.jpg", 600)]
    assert listing_photos.parse_variant_key("photos/ab/abc-800.webp") == ("photos/ab/abc", 800)
    assert listing_photos.parse_variant_key("photos/demo/placeholder-03.jpg") is None
