"""Photos received in the wizard and processed by a worker (issue 37 §4): receive, process, refuse, dismiss, list.

A web worker never decodes a photo. :func:`receive_photo` makes only the cheap checks (ownership, empty, over
15 MB, the listing's MAX_PHOTOS counting the photos still processing), stores the upload as received in the
PRIVATE storage (``fotos-entrantes/``) and writes a ``procesando`` row (app.models.pending_photos) with its job
(``photos.process``) in the same transaction. The worker runs :func:`process_pending`: the photo pipeline stores
the variants under keys derived from the row's uid, then, under the listing lock, the photo is added with that
same uid (app.services.listing_photos.insert_photo, MAX_PHOTOS checked again, the review flags as for any new
photo) and the pending row deleted, in one commit; the raw file goes after it. A second run (a retry, a worker
killed midway) overwrites the same keys and finds the row gone, so it ends the same way.

A file the pipeline refuses becomes ``rechazada`` with its Spanish reason (:func:`refuse_pending`), the raw file
deleted; its owner reads why in the wizard and dismisses it (:func:`dismiss_pending`).
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from app.core.errors import ConflictError, InvalidInputError, NotFoundError, PhotoRejectedError
from app.db import commit, session_scope
from app.models import Listing, ListingPhoto, PendingPhoto, PendingPhotoPublic, PendingPhotoStatus, new_uid, utc_now
from app.models.pending_photos import PENDING_FAILURE_MAX, PENDING_NAME_MAX
from app.services import listing_photos
from app.services.listing_photos import FIELD, MAX_PHOTOS, NOT_SAVED, PHOTO_NOT_FOUND, PHOTO_PREFIX, TOO_MANY
from app.services.ownership import locked_owned_listing, locked_owned_media, owned_listing
from app.services.photos import check_size, delete_photo, store_photo
from app.storage import Storage
from app.task_queue import PHOTO, defer

INCOMING_PREFIX = "fotos-entrantes"
RAW_CONTENT_TYPE = "application/octet-stream"

BAD_FILE = "No recibimos ningún archivo: vuelve a elegir la foto."
PROCESSING_FAILED = "No pudimos procesar la foto. Vuelve a subirla."
STILL_PROCESSING = "Todavía estamos procesando tus fotos: espera a que terminen y vuelve a enviar tu publicación."


def incoming_key(pending_uid: str) -> str:
    """The upload as received, in the private storage (until processed or refused)."""
    return f"{INCOMING_PREFIX}/{pending_uid[:2]}/{pending_uid}"


def processing_count(session: Session, listing_uid: str) -> int:
    """How many photos of the listing are received and not processed yet."""
    return session.exec(
        select(func.count())
        .select_from(PendingPhoto)
        .where(PendingPhoto.listing_uid == listing_uid, PendingPhoto.status == PendingPhotoStatus.PROCESANDO)
    ).one()


def photo_count(session: Session, listing_uid: str) -> int:
    """The listing's photos, those still processing included (what MAX_PHOTOS and the photo step count)."""
    processed = session.exec(
        select(func.count()).select_from(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid)
    ).one()
    return processed + processing_count(session, listing_uid)


def list_pending(*, session: Session, owner_uid: str, uid: str) -> list[PendingPhotoPublic]:
    """The photos of the caller's listing ``uid`` still processing or refused, oldest first."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    rows = session.exec(
        select(PendingPhoto)
        .where(PendingPhoto.listing_uid == listing.uid)
        .order_by(col(PendingPhoto.created_at), col(PendingPhoto.uid))
    ).all()
    return [
        PendingPhotoPublic(uid=row.uid, status=row.status, file_name=row.file_name, failure=row.failure) for row in rows
    ]


def receive_photo(
    *, session: Session, private_storage: Storage, owner_uid: str, uid: str, data: bytes, file_name: str = ""
) -> str:
    """Take an upload for the caller's listing ``uid`` and queue its processing: the pending photo's uid.
    ``file_name``: the file's name as its owner knows it, shown beside a refusal.

    Refuses (InvalidInputError) past MAX_PHOTOS, counting the photos still processing, and an empty or too large
    file, before storing anything. If the database write fails, the stored file is deleted again. Blocking
    (storage): call it off the event loop.
    """
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    if photo_count(session, listing.uid) >= MAX_PHOTOS:
        raise InvalidInputError(TOO_MANY, field=FIELD)
    session.rollback()  # end the read transaction: nothing is held while the file is stored
    if not isinstance(data, bytes | bytearray):
        raise InvalidInputError(BAD_FILE, field=FIELD)
    check_size(bytes(data))
    pending_uid = new_uid()
    key = incoming_key(pending_uid)
    private_storage.put(key, bytes(data), RAW_CONTENT_TYPE)
    try:
        listing = locked_owned_listing(session=session, owner_uid=owner_uid, uid=uid)
        if photo_count(session, listing.uid) >= MAX_PHOTOS:
            raise InvalidInputError(TOO_MANY, field=FIELD)
        now = utc_now()
        session.add(
            PendingPhoto(
                uid=pending_uid,
                listing_uid=listing.uid,
                raw_key=key,
                file_name=str(file_name)[:PENDING_NAME_MAX],
                created_at=now,
                updated_at=now,
            )
        )
        listing.updated_at = now
        session.add(listing)
        session.flush()
        defer(session, PHOTO, pending_uid=pending_uid)
        commit(session, NOT_SAVED)
    except BaseException:
        session.rollback()
        private_storage.delete(key)
        raise
    return pending_uid


def _locked(session: Session, pending_uid: str) -> PendingPhoto | None:
    """The pending photo, its row locked until the transaction ends (SQLite: the write lock taken first)."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(
            update(PendingPhoto)
            .where(col(PendingPhoto.uid) == pending_uid)
            .values(updated_at=PendingPhoto.updated_at)
            .execution_options(synchronize_session=False)
        )
    return session.exec(select(PendingPhoto).where(PendingPhoto.uid == pending_uid).with_for_update()).first()


def refuse_pending(*, session: Session, private_storage: Storage, pending_uid: str, message: str) -> None:
    """Mark a photo still processing ``rechazada`` with ``message`` for its owner and delete its raw file;
    nothing for one that is gone or refused already."""
    pending = _locked(session, pending_uid)
    if pending is None or pending.status != PendingPhotoStatus.PROCESANDO:
        session.rollback()
        return
    key = pending.raw_key
    pending.status = PendingPhotoStatus.RECHAZADA
    pending.failure = message[:PENDING_FAILURE_MAX]
    pending.raw_key = None
    pending.updated_at = utc_now()
    session.add(pending)
    commit(session, NOT_SAVED)
    if key:
        private_storage.delete(key)


def process_pending(*, session: Session, storage: Storage, private_storage: Storage, pending_uid: str) -> None:
    """The worker's task: process the raw file, add the photo to its listing, delete the row and the raw file.

    Does nothing for a photo that is gone or not ``procesando`` (a second run). A refused file marks it
    ``rechazada`` with the pipeline's Spanish reason; so does a listing full meanwhile. Any other error propagates
    (the queue retries). Files written for a photo dismissed or a listing deleted meanwhile are deleted again.
    """
    found = (
        session.exec(
            select(PendingPhoto, col(Listing.owner_uid))
            .join(Listing, col(Listing.uid) == col(PendingPhoto.listing_uid))
            .where(PendingPhoto.uid == pending_uid)
        ).first()
        if isinstance(pending_uid, str) and pending_uid
        else None
    )
    if found is None or found[0].status != PendingPhotoStatus.PROCESANDO or not found[0].raw_key:
        session.rollback()
        return
    listing_uid, raw_key, owner_uid = found[0].listing_uid, found[0].raw_key, found[1]
    session.rollback()  # nothing is held while the photo is processed
    try:
        data = private_storage.get(raw_key)
    except NotFoundError:
        return  # another run finished (and deleted it) meanwhile, or the photo was dismissed
    try:
        stored = store_photo(storage=storage, data=data, prefix=PHOTO_PREFIX, name=pending_uid)
    except PhotoRejectedError as exc:
        refuse_pending(session=session, private_storage=private_storage, pending_uid=pending_uid, message=exc.message)
        return
    try:
        listing = locked_owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
        pending = _locked(session, pending_uid)
    except NotFoundError:  # the listing was deleted meanwhile
        pending = None
    if pending is None or pending.status != PendingPhotoStatus.PROCESANDO:
        session.rollback()
        if session.get(ListingPhoto, pending_uid) is None:  # not added by another run: these files belong to nobody
            delete_photo(storage=storage, photo=stored)
        session.rollback()
        return
    try:
        listing_photos.insert_photo(session, listing, stored, photo_uid=pending_uid)
        session.delete(pending)
        commit(session, NOT_SAVED)
    except InvalidInputError as exc:  # the listing is full
        session.rollback()
        delete_photo(storage=storage, photo=stored)
        refuse_pending(session=session, private_storage=private_storage, pending_uid=pending_uid, message=exc.message)
        return
    except BaseException:  # the write failed: no row points at these files; a retry writes them again
        session.rollback()
        delete_photo(storage=storage, photo=stored)
        raise
    private_storage.delete(raw_key)


def dismiss_pending(*, session: Session, private_storage: Storage, owner_uid: str, pending_uid: str) -> None:
    """Take away one of the caller's refused photos (what remains of it: its message)."""
    listing, pending = locked_owned_media(
        session=session, model=PendingPhoto, not_found=PHOTO_NOT_FOUND, owner_uid=owner_uid, media_uid=pending_uid
    )
    if pending.status != PendingPhotoStatus.RECHAZADA:
        session.rollback()
        raise ConflictError("Esta foto todavía se está procesando: espera a que termine.")
    key = pending.raw_key
    session.delete(pending)
    listing.updated_at = utc_now()
    session.add(listing)
    commit(session, NOT_SAVED)
    if key:
        private_storage.delete(key)


def delete_all_pending(*, session: Session, listing_uid: str) -> list[str]:
    """Delete every pending photo row of a listing (flushed, not committed); the raw files' keys, for the caller to
    delete once it has committed. No ownership check: the caller checked it already."""
    rows = session.exec(select(PendingPhoto).where(PendingPhoto.listing_uid == listing_uid)).all()
    keys = [row.raw_key for row in rows if row.raw_key]
    for row in rows:
        session.delete(row)
    session.flush()
    return keys


def requeue_processing() -> int:
    """Queue a job again for every photo still processing: the in-memory queue of the embedded default forgot
    them when the app stopped (their rows did not). Return how many."""
    with session_scope() as session:
        waiting = session.exec(
            select(PendingPhoto.uid).where(PendingPhoto.status == PendingPhotoStatus.PROCESANDO)
        ).all()
        for pending_uid in waiting:
            defer(session, PHOTO, pending_uid=pending_uid)
        commit(session)
    return len(waiting)
