"""The video clips of an advertiser's own listing: start (upload), process, retry, delete, list; and who may see one.

Every function that takes ``owner_uid`` looks the listing (or the clip, joined to its listing) up together with
the owner's id: a missing clip and someone else's give the same NotFoundError.

An upload is probed (app.services.video_processing.probe_clip) before anything is stored, so a refused file
(VideoRejectedError) leaves nothing behind. The original then goes to the PRIVATE storage and the row is written
``procesando``, with the processing task enqueued in the same transaction (:func:`enqueue_processing`). A worker
runs :func:`process_clip`: the served MP4 and its poster are stored under keys derived from the clip's uid, so a
second run, or a run after a crash midway, overwrites what the first left and ends the same way.

Like a photo, a clip waits for staff (``approved`` false) until its listing's review approves it: a clip is
approved with its listing once it is ready (app.services.staff.reviews); a refused edit deletes the ready clips it
brought. A clip added to a listing that has been public marks the listing's edit as pending (``revision_at``), as
a photo does. Only an approved, ready clip of a public listing is public (:func:`public_media`); its owner and
staff may fetch any of its files meanwhile (:func:`private_media`).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import ColumnElement, func, update
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError, NotFoundError, VideoRejectedError
from app.db import commit
from app.models import (
    STAFF_PROFILES,
    ClipStatus,
    Listing,
    ListingVideo,
    ListingVideoPublic,
    clip_may_move,
    new_uid,
    utc_now,
)
from app.models.videos import CLIP_FAILURE_MAX, CLIP_MAX_BYTES, CLIPS_PER_LISTING
from app.services.listing_photos import REVIEWED_STATUSES, stored_under, variant_key
from app.services.listings import photo_url, poster_url, public_conditions
from app.services.ownership import locked_owned_listing, locked_owned_media, owned_listing
from app.services.photos import WIDTHS, store_photo
from app.services.video_processing import ClipInfo, poster_frame, probe_clip, transcode_clip
from app.storage import Storage
from app.task_queue import VIDEO, defer

VIDEO_PREFIX = "videos"
VIDEO_CONTENT_TYPE = "video/mp4"
ORIGINAL_CONTENT_TYPE = "application/octet-stream"
FIELD = "video"

CLIP_NOT_FOUND = "No encontramos ese video."
TOO_MANY = f"Una publicación puede tener como máximo {CLIPS_PER_LISTING} videos: borra uno antes de subir otro."
TOO_BIG = f"El video pesa más de {CLIP_MAX_BYTES // (1024 * 1024)} MB: recórtalo o comprímelo y vuelve a subirlo."
NOT_SAVED = "No pudimos guardar el video. Inténtalo de nuevo en unos minutos."
PROCESSING_FAILED = "No pudimos procesar el video. Reintenta o súbelo de nuevo."
NO_RETRY = "Este video no se puede procesar otra vez: bórralo y sube otro."


def original_key(clip_uid: str) -> str:
    """The upload as received, in the private storage (until processed)."""
    return f"{VIDEO_PREFIX}/{clip_uid[:2]}/{clip_uid}-original"


def video_key(clip_uid: str) -> str:
    """The served MP4, in the public storage."""
    return f"{VIDEO_PREFIX}/{clip_uid[:2]}/{clip_uid}.mp4"


def poster_name(clip_uid: str) -> str:
    """The poster's name: its files are ``videos/<2>/<name>-<width>.webp`` (app.services.photos.store_photo)."""
    return f"{clip_uid}-poster"


def poster_widths(clip: ListingVideo) -> list[int]:
    """The poster's stored widths, narrowest first (empty until the clip is ready)."""
    return sorted(int(part) for part in clip.poster_widths.split(",") if part.strip().isdigit())


def poster_keys(clip: ListingVideo) -> list[str]:
    """The poster's stored files, narrowest first."""
    return [variant_key(clip.poster_stem, width) for width in poster_widths(clip)] if clip.poster_stem else []


def public_keys(clip: ListingVideo) -> list[str]:
    """Every file of the clip in the public storage: its MP4 and poster, recorded or derived from its uid (what a
    run that never finished may have left in the standard widths)."""
    stem = f"{VIDEO_PREFIX}/{clip.uid[:2]}/{poster_name(clip.uid)}"
    widths = sorted(set(poster_widths(clip)) | set(WIDTHS))
    return [video_key(clip.uid), *(variant_key(stem, width) for width in widths)]


def delete_served_files(*, storage: Storage, clips: list[ListingVideo]) -> None:
    """Delete the public files (MP4, poster) of these clips, after their rows are gone: a ready clip has no others."""
    for clip in clips:
        for key in public_keys(clip):
            storage.delete(key)


def delete_clip_files(*, storage: Storage, private_storage: Storage, clips: list[ListingVideo]) -> None:
    """Delete every stored file of these clips, the private original too (after their rows are gone)."""
    delete_served_files(storage=storage, clips=clips)
    for clip in clips:
        private_storage.delete(original_key(clip.uid))


def enqueue_processing(session: Session, clip_uid: str) -> None:
    """Ask a worker to process the clip, in the transaction that wrote it (nothing is enqueued if it rolls back)."""
    defer(session, VIDEO, clip_uid=clip_uid)


def _poster_url(clip: ListingVideo) -> str:
    return poster_url(clip.poster_stem, poster_widths(clip)) if clip.poster_stem else ""


def clip_public(clip: ListingVideo) -> ListingVideoPublic:
    """What the owner (and staff) see of a clip: the addresses work with their session until it is approved."""
    return ListingVideoPublic(
        uid=clip.uid,
        listing_uid=clip.listing_uid,
        position=clip.position,
        status=clip.status,
        approved=clip.approved,
        video_url=photo_url(clip.video_key) if clip.video_key and clip.status == ClipStatus.LISTA else "",
        poster_url=_poster_url(clip) if clip.status == ClipStatus.LISTA else "",
        duration_s=clip.duration_s,
        width=clip.width,
        height=clip.height,
        failure=clip.failure,
    )


def _ordered(session: Session, listing_uid: str) -> list[ListingVideo]:
    return list(
        session.exec(
            select(ListingVideo)
            .where(ListingVideo.listing_uid == listing_uid)
            .order_by(col(ListingVideo.position), col(ListingVideo.created_at), col(ListingVideo.uid))
        ).all()
    )


def _count(session: Session, listing_uid: str) -> int:
    return session.exec(
        select(func.count()).select_from(ListingVideo).where(ListingVideo.listing_uid == listing_uid)
    ).one()


def list_clips(*, session: Session, owner_uid: str, uid: str) -> list[ListingVideoPublic]:
    """The clips of the caller's listing ``uid``, in order."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    return [clip_public(clip) for clip in _ordered(session, listing.uid)]


def start_clip(*, session: Session, private_storage: Storage, owner_uid: str, uid: str, source: Path) -> str:
    """Take an uploaded clip (the file ``source``) for the caller's listing ``uid``: its uid.

    Refuses it past CLIPS_PER_LISTING, and probes it (VideoRejectedError: empty, too large, not a clip we take)
    before storing anything. The original goes to ``private_storage``; the row is written ``procesando`` and its
    processing enqueued in the same transaction. If the database write fails, the stored original is deleted
    again. Blocking (probe, storage): call it off the event loop.
    """
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    if _count(session, listing.uid) >= CLIPS_PER_LISTING:
        raise InvalidInputError(TOO_MANY, field=FIELD)
    session.rollback()  # end the read transaction: nothing is held while the file is probed and stored
    info = probe_clip(source)
    clip_uid = new_uid()
    key = original_key(clip_uid)
    private_storage.put_file(key, source, ORIGINAL_CONTENT_TYPE)
    try:
        listing = locked_owned_listing(session=session, owner_uid=owner_uid, uid=uid)
        clips = _ordered(session, listing.uid)
        if len(clips) >= CLIPS_PER_LISTING:
            raise InvalidInputError(TOO_MANY, field=FIELD)
        now = utc_now()
        session.add(
            ListingVideo(
                uid=clip_uid,
                listing_uid=listing.uid,
                position=max((clip.position for clip in clips), default=-1) + 1,
                status=ClipStatus.PROCESANDO,
                approved=False,
                original_key=key,
                duration_s=info.duration_s,
                width=info.width,
                height=info.height,
                created_at=now,
                updated_at=now,
            )
        )
        if listing.status in REVIEWED_STATUSES:
            listing.revision_at = now  # the edit waits for review, as with a new photo
        listing.updated_at = now
        session.add(listing)
        session.flush()
        enqueue_processing(session, clip_uid)
        commit(session, NOT_SAVED)
    except BaseException:
        session.rollback()
        private_storage.delete(key)
        raise
    return clip_uid


def _locked_clip(session: Session, clip_uid: str) -> ListingVideo | None:
    """The clip, its row locked until the transaction ends (SQLite: the write lock taken first)."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(
            update(ListingVideo)
            .where(col(ListingVideo.uid) == clip_uid)
            .values(updated_at=ListingVideo.updated_at)
            .execution_options(synchronize_session=False)
        )
    return session.exec(select(ListingVideo).where(ListingVideo.uid == clip_uid).with_for_update()).first()


def fail_clip(*, session: Session, private_storage: Storage, clip_uid: str, message: str, keep_original: bool) -> None:
    """Mark a clip in processing ``fallida`` with ``message`` for its owner; nothing for a clip in any other state.

    ``keep_original``: the file may still be processed (a worker's failure after its last retry), so the owner may
    retry; without it (the file was refused) the original is deleted and only deleting the clip remains.
    """
    clip = _locked_clip(session, clip_uid)
    if clip is None or not clip_may_move(clip.status, ClipStatus.FALLIDA):
        session.rollback()
        return
    key = clip.original_key
    clip.status = ClipStatus.FALLIDA
    clip.failure = message[:CLIP_FAILURE_MAX]
    clip.updated_at = utc_now()
    if not keep_original:
        clip.original_key = None
    session.add(clip)
    commit(session, NOT_SAVED)
    if key and not keep_original:
        private_storage.delete(key)


@dataclass(frozen=True)
class ServedClip:
    """What processing stored for visitors: the MP4's key, the poster's stem and widths, and what the clip is."""

    info: ClipInfo
    video_key: str
    poster_stem: str
    poster_widths: str  # comma separated, as ListingVideo.poster_widths
    keys: tuple[str, ...]  # every file written


def store_served(*, storage: Storage, source: Path, name: str) -> ServedClip:
    """Transcode ``source`` and store what visitors get under keys derived from ``name`` (a clip's uid): the MP4
    and its poster in the photo sizes. VideoRejectedError, with nothing stored, for a file processing refuses.
    CPU-bound and blocking: a worker's task (and the demo data's, app.seed)."""
    with tempfile.TemporaryDirectory(prefix="clip-") as folder:
        target = Path(folder) / "clip.mp4"
        info = transcode_clip(source, target)
        poster = poster_frame(target)
        storage.put_file(video_key(name), target, VIDEO_CONTENT_TYPE)
    stored = store_photo(storage=storage, data=poster, prefix=VIDEO_PREFIX, name=poster_name(name))
    largest = stored.variants[-1]
    return ServedClip(
        info=info,
        video_key=video_key(name),
        poster_stem=largest.key.removesuffix(f"-{largest.width}.webp"),
        poster_widths=",".join(str(variant.width) for variant in stored.variants),
        keys=(video_key(name), *(variant.key for variant in stored.variants)),
    )


def process_clip(*, session: Session, storage: Storage, private_storage: Storage, clip_uid: str) -> None:
    """The worker's task: transcode the clip's original, store the MP4 and its poster, mark it ``lista``.

    Does nothing for a clip that is gone or not ``procesando`` (a second run, a retry not asked for). Keys derive
    from the clip's uid, so what a crashed run left is overwritten. A refused file marks it ``fallida`` with the
    Spanish reason and deletes the original; any other error propagates (the queue retries). If the clip was
    deleted while it was processed, the files just written are deleted again.
    """
    clip = session.get(ListingVideo, clip_uid) if isinstance(clip_uid, str) and clip_uid else None
    if clip is None or clip.status != ClipStatus.PROCESANDO or not clip.original_key:
        session.rollback()
        return
    source_key = clip.original_key
    session.rollback()  # nothing is held while the clip is transcoded
    with tempfile.TemporaryDirectory(prefix="clip-") as folder:
        source = Path(folder) / "original"
        try:
            private_storage.get_file(source_key, source)
        except NotFoundError:
            # Another run finished (and deleted it) meanwhile, or the clip was deleted: nothing to do either way.
            session.rollback()
            return
        try:
            served = store_served(storage=storage, source=source, name=clip_uid)
        except VideoRejectedError as exc:
            fail_clip(
                session=session,
                private_storage=private_storage,
                clip_uid=clip_uid,
                message=exc.message,
                keep_original=False,
            )
            return
    clip = _locked_clip(session, clip_uid)
    if clip is None or clip.status != ClipStatus.PROCESANDO:
        session.rollback()
        if clip is None:  # deleted meanwhile: its files went with it, these came after
            for key in served.keys:
                storage.delete(key)
        return
    now = utc_now()
    clip.status = ClipStatus.LISTA
    clip.video_key, clip.poster_stem, clip.poster_widths = served.video_key, served.poster_stem, served.poster_widths
    clip.duration_s, clip.width, clip.height = served.info.duration_s, served.info.width, served.info.height
    clip.original_key = None
    clip.failure = ""
    clip.updated_at = now
    session.add(clip)
    commit(session, NOT_SAVED)
    private_storage.delete(source_key)


def retry_clip(*, session: Session, owner_uid: str, clip_uid: str) -> None:
    """Process a failed clip of the caller's again (its original is still kept); ConflictError otherwise."""
    listing, clip = locked_owned_media(
        session=session, model=ListingVideo, not_found=CLIP_NOT_FOUND, owner_uid=owner_uid, media_uid=clip_uid
    )
    if not clip_may_move(clip.status, ClipStatus.PROCESANDO) or not clip.original_key:
        session.rollback()
        raise ConflictError(NO_RETRY)
    now = utc_now()
    clip.status = ClipStatus.PROCESANDO
    clip.failure = ""
    clip.updated_at = now
    listing.updated_at = now
    session.add_all([clip, listing])
    session.flush()
    enqueue_processing(session, clip.uid)
    commit(session, NOT_SAVED)


def delete_clip(*, session: Session, storage: Storage, private_storage: Storage, owner_uid: str, clip_uid: str) -> None:
    """Delete one of the caller's clips and every file of it; the rest move up."""
    listing, clip = locked_owned_media(
        session=session, model=ListingVideo, not_found=CLIP_NOT_FOUND, owner_uid=owner_uid, media_uid=clip_uid
    )
    session.delete(clip)
    session.flush()
    for position, other in enumerate(_ordered(session, listing.uid)):
        if other.position != position:
            other.position = position
            session.add(other)
    listing.updated_at = utc_now()
    session.add(listing)
    commit(session, NOT_SAVED)
    # After the commit: a failed commit must not leave a row pointing at deleted files.
    delete_clip_files(storage=storage, private_storage=private_storage, clips=[clip])


def delete_all_clips(*, session: Session, listing_uid: str) -> list[ListingVideo]:
    """Delete every clip row of a listing (flushed, not committed) and return them; the caller deletes their files
    with ``delete_clip_files`` once it has committed. No ownership check: the caller checked it already."""
    clips = _ordered(session, listing_uid)
    for clip in clips:
        session.delete(clip)
    session.flush()
    return clips


# --- review: clips follow their listing's photos (app.services.staff.reviews) -----------------------------


def approve_ready_clips(session: Session, listing_uid: str) -> None:
    """Staff approved the listing: its ready clips, which the reviewer could play, are approved (flushed)."""
    for clip in session.exec(
        select(ListingVideo).where(
            ListingVideo.listing_uid == listing_uid,
            ListingVideo.approved == False,  # noqa: E712
            ListingVideo.status == ClipStatus.LISTA,
        )
    ):
        clip.approved = True
        session.add(clip)
    session.flush()


def drop_refused_clips(session: Session, listing_uid: str) -> list[ListingVideo]:
    """Staff refused the listing's edit: the ready clips it brought are deleted (flushed; their files go after the
    commit, ``delete_served_files``). A clip still processing was not seen and stays for the next review."""
    clips = list(
        session.exec(
            select(ListingVideo).where(
                ListingVideo.listing_uid == listing_uid,
                ListingVideo.approved == False,  # noqa: E712
                ListingVideo.status == ClipStatus.LISTA,
            )
        )
    )
    for clip in clips:
        session.delete(clip)
    session.flush()
    return clips


def clips_by_listing(session: Session, listing_uids: set[str]) -> dict[str, list[ListingVideo]]:
    """The clips of each of these listings, in order (one query; the review queue's page)."""
    found: dict[str, list[ListingVideo]] = {uid: [] for uid in listing_uids}
    for clip in session.exec(
        select(ListingVideo)
        .where(col(ListingVideo.listing_uid).in_(listing_uids))
        .order_by(col(ListingVideo.position), col(ListingVideo.created_at), col(ListingVideo.uid))
    ):
        found[clip.listing_uid].append(clip)
    return found


def clip_stamp(clips: list[ListingVideo]) -> list[list[object]]:
    """What a reviewer sees of a listing's clips (in order), for its version stamp (app.services.staff.reviews)."""
    return [[clip.uid, clip.status.value, bool(clip.approved), clip.position] for clip in clips]


def review_stamp(session: Session, listing_uid: str) -> list[list[object]]:
    """:func:`clip_stamp` of a listing's clips, read."""
    return clip_stamp(_ordered(session, listing_uid))


# --- who may fetch a clip's files (the /media route) ----------------------------------------------------------


def _key_matches(key: str) -> ColumnElement[bool]:
    """Clips stored under ``key``: as their MP4, or as one stored width of their poster."""
    return stored_under(
        key, whole=ListingVideo.video_key, stem=ListingVideo.poster_stem, widths=ListingVideo.poster_widths
    )


def public_media(*, session: Session, key: str) -> bool:
    """True when ``key`` is a file of an approved, ready clip of a public listing (anyone may load it)."""
    found = session.exec(
        select(ListingVideo.uid)
        .join(Listing, col(Listing.uid) == col(ListingVideo.listing_uid))
        .where(
            _key_matches(key),
            ListingVideo.approved == True,  # noqa: E712
            ListingVideo.status == ClipStatus.LISTA,
            *public_conditions(None),
        )
        .limit(1)
    ).first()
    return found is not None


def private_media(*, session: Session, key: str, actor: Actor) -> bool:
    """True when ``actor`` may fetch the clip's file under ``key`` although it is not public: its owner, or staff."""
    query = (
        select(col(ListingVideo.uid))
        .join(Listing, col(Listing.uid) == col(ListingVideo.listing_uid))
        .where(_key_matches(key))
    )
    if actor.profile_uid not in STAFF_PROFILES:
        query = query.where(Listing.owner_uid == actor.uid)
    return session.exec(query.limit(1)).first() is not None
