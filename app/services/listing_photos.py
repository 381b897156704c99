"""The photos of an advertiser's own listing: add (processed), list, reorder, choose the cover, delete, copy.

Every function that takes ``owner_uid`` looks the listing (or the photo, joined
to its listing) up together with the owner's id: a missing photo and someone
else's give the same NotFoundError.

Uploads are received by app.services.photo_uploads and processed by a worker,
which runs the photo pipeline (app/services/photos.py) before the listing is
locked and then adds the photo here (:func:`insert_photo`). The listing row is
locked while photos are counted and positions written, so concurrent uploads
can neither pass MAX_PHOTOS nor share a position. Positions always stay 0..n-1;
position 0 is the cover.

A photo added to a listing that has been published (publicada or pausada)
waits for staff review (``approved`` false): the listing enters the review
queue (``revision_at``) and a verified badge is suspended until staff approve
(``verified_at`` is kept). Photos of drafts and of listings waiting for
review are approved with the whole listing when it is sent.

Demo photos (seed data) have only a ``path`` into a shared pool of
placeholders and no ``stem``: their files belong to no listing, so deleting or
copying such a photo never deletes or duplicates the file.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from sqlalchemy import ColumnElement, and_, func, or_
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.errors import InvalidInputError
from app.db import commit
from app.models import STAFF_PROFILES, Listing, ListingPhoto, ListingStatus, new_uid, utc_now
from app.services.listings import photo_url, public_conditions
from app.services.ownership import locked_owned_media, owned_listing
from app.services.photos import CONTENT_TYPE, StoredPhoto, StoredVariant
from app.storage import Storage

MAX_PHOTOS = 12
# The size a listing's ``path`` points at (cards and the detail page's default src).
DEFAULT_WIDTH = 800
PHOTO_PREFIX = "photos"
FIELD = "photos"
# Statuses whose listing has been public: new photos there wait for staff review.
REVIEWED_STATUSES = frozenset({ListingStatus.PUBLICADA.value, ListingStatus.PAUSADA.value})

PHOTO_NOT_FOUND = "No encontramos esa foto."
TOO_MANY = f"Una publicación puede tener como máximo {MAX_PHOTOS} fotos: borra una antes de subir otra."
NOT_SAVED = "No pudimos guardar la foto. Inténtalo de nuevo en unos minutos."
BAD_OFFSET = "Solo puedes mover la foto un lugar antes o después."

# Staff may look at the photos of any listing (review, support).

_VARIANT_KEY = re.compile(r"^(.+)-(\d+)\.webp$")


class OwnerPhoto(BaseModel):
    """What the owner sees of one of their photos (their own data: the URL works with their session)."""

    uid: str
    url: str
    position: int
    is_cover: bool
    approved: bool


def _owner_photo(photo: ListingPhoto) -> OwnerPhoto:
    return OwnerPhoto(
        uid=photo.uid,
        url=photo_url(photo.path),
        position=photo.position,
        is_cover=photo.position == 0,
        approved=photo.approved,
    )


def widths_of(photo: ListingPhoto) -> list[int]:
    """The stored widths of a pipeline photo, narrowest first (empty for demo photos)."""
    return sorted(int(part) for part in photo.widths.split(",") if part.strip().isdigit())


def variant_key(stem: str, width: int) -> str:
    """The storage key of one width of a pipeline photo."""
    return f"{stem}-{width}.webp"


def parse_variant_key(key: str) -> tuple[str, int] | None:
    """(stem, width) of a pipeline key such as ``photos/ab/abc-800.webp``, or None."""
    match = _VARIANT_KEY.match(key)
    if match is None or len(match.group(2)) > 5:
        return None
    return match.group(1), int(match.group(2))


def photo_variant_urls(photo: ListingPhoto) -> list[tuple[str, int]]:
    """(url, width) of every stored size, narrowest first, for srcset; a demo photo has its one file."""
    if photo.stem:
        return [(photo_url(variant_key(photo.stem, width)), width) for width in widths_of(photo)]
    return [(photo_url(photo.path), photo.width)]


def photo_variant_keys(photo: ListingPhoto) -> list[str]:
    """The files that belong to this photo alone (none for a demo photo of the shared pool)."""
    if not photo.stem:
        return []
    return [variant_key(photo.stem, width) for width in widths_of(photo)]


def delete_photo_files(*, storage: Storage, photos: list[ListingPhoto]) -> None:
    """Delete the stored files of these photos (after their rows are gone: a reader never finds a row without files)."""
    for photo in photos:
        for key in photo_variant_keys(photo):
            storage.delete(key)


def _ordered(session: Session, listing_uid: str) -> list[ListingPhoto]:
    return list(
        session.exec(
            select(ListingPhoto)
            .where(ListingPhoto.listing_uid == listing_uid)
            .order_by(col(ListingPhoto.position), col(ListingPhoto.created_at), col(ListingPhoto.uid))
        ).all()
    )


def _renumber(session: Session, photos: list[ListingPhoto]) -> None:
    """Write positions 0..n-1 in the given order."""
    for position, photo in enumerate(photos):
        if photo.position != position:
            photo.position = position
            session.add(photo)


def _count(session: Session, listing_uid: str) -> int:
    return session.exec(
        select(func.count()).select_from(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid)
    ).one()


def list_photos(*, session: Session, owner_uid: str, uid: str) -> list[OwnerPhoto]:
    """The photos of the caller's listing ``uid``, cover first."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    return [_owner_photo(photo) for photo in _ordered(session, listing.uid)]


def _default_variant(stored: StoredPhoto) -> StoredVariant:
    """The 800-wide variant, or the largest when the photo is narrower."""
    fitting = [variant for variant in stored.variants if variant.width <= DEFAULT_WIDTH]
    return fitting[-1] if fitting else stored.variants[0]


def insert_photo(session: Session, listing: Listing, stored: StoredPhoto, *, photo_uid: str) -> ListingPhoto:
    """Add ``stored`` as the last photo of ``listing`` (locked by the caller) with the review flags; flushed.

    InvalidInputError(TOO_MANY) when the listing already has MAX_PHOTOS.
    """
    count = _count(session, listing.uid)
    if count >= MAX_PHOTOS:
        raise InvalidInputError(TOO_MANY, field=FIELD)
    largest = stored.variants[-1]
    now = utc_now()
    needs_review = listing.status in REVIEWED_STATUSES
    photo = ListingPhoto(
        uid=photo_uid,
        listing_uid=listing.uid,
        position=count,
        path=_default_variant(stored).key,
        stem=largest.key.removesuffix(f"-{largest.width}.webp"),
        widths=",".join(str(variant.width) for variant in stored.variants),
        phash=stored.phash,
        width=largest.width,
        height=largest.height,
        approved=not needs_review,
        created_at=now,
    )
    session.add(photo)
    if needs_review:
        listing.revision_at = now
        listing.verified = False
    listing.updated_at = now
    session.add(listing)
    session.flush()
    return photo


def delete_listing_photo(*, session: Session, storage: Storage, owner_uid: str, photo_uid: str) -> None:
    """Delete one of the caller's photos and its stored files of every width; the rest move up."""
    listing, photo = locked_owned_media(
        session=session, model=ListingPhoto, not_found=PHOTO_NOT_FOUND, owner_uid=owner_uid, media_uid=photo_uid
    )
    session.delete(photo)
    session.flush()
    _renumber(session, _ordered(session, listing.uid))
    listing.updated_at = utc_now()
    session.add(listing)
    commit(session, NOT_SAVED)
    # After the commit: a failed commit must not leave a row pointing at deleted files.
    delete_photo_files(storage=storage, photos=[photo])


def move_photo(*, session: Session, owner_uid: str, photo_uid: str, offset: int) -> None:
    """Move one of the caller's photos one place earlier (-1) or later (+1); the ends stay put."""
    if type(offset) is not int or offset not in (-1, 1):
        raise InvalidInputError(BAD_OFFSET, field=FIELD)
    listing, photo = locked_owned_media(
        session=session, model=ListingPhoto, not_found=PHOTO_NOT_FOUND, owner_uid=owner_uid, media_uid=photo_uid
    )
    photos = _ordered(session, listing.uid)
    index = next(i for i, item in enumerate(photos) if item.uid == photo.uid)
    target = min(max(index + offset, 0), len(photos) - 1)
    photos.insert(target, photos.pop(index))
    _renumber(session, photos)
    listing.updated_at = utc_now()  # a change of the owner's: staff may not republish over it unseen
    session.add(listing)
    commit(session, NOT_SAVED)


def set_cover(*, session: Session, owner_uid: str, photo_uid: str) -> None:
    """Make one of the caller's photos the cover (position 0); the ones before it move down one."""
    listing, photo = locked_owned_media(
        session=session, model=ListingPhoto, not_found=PHOTO_NOT_FOUND, owner_uid=owner_uid, media_uid=photo_uid
    )
    photos = [item for item in _ordered(session, listing.uid) if item.uid != photo.uid]
    _renumber(session, [photo, *photos])
    listing.updated_at = utc_now()
    session.add(listing)
    commit(session, NOT_SAVED)


def delete_all_photos(*, session: Session, listing_uid: str) -> list[ListingPhoto]:
    """Delete every photo row of a listing (flushed, not committed) and return them.

    The caller deletes their files with ``delete_photo_files`` once it has committed, so a failed
    commit leaves no row without its files. No ownership check: the caller checked it already.
    """
    photos = _ordered(session, listing_uid)
    for photo in photos:
        session.delete(photo)
    session.flush()
    return photos


def copy_photos(*, session: Session, storage: Storage, from_listing_uid: str, to_listing_uid: str) -> None:
    """Give ``to_listing_uid`` a copy of every photo of ``from_listing_uid``, stored under new random keys.

    Flushed, not committed; no ownership check (the caller checked both listings).
    The copies are approved: the copy is a new draft, reviewed as a whole when sent.
    If a file cannot be copied, the files already copied are deleted again.
    """
    written: list[str] = []
    try:
        for photo in _ordered(session, from_listing_uid):
            copy = ListingPhoto(
                listing_uid=to_listing_uid,
                position=photo.position,
                path=photo.path,
                width=photo.width,
                height=photo.height,
                widths=photo.widths,
                phash=photo.phash,
                approved=True,
            )
            if photo.stem:
                uid = new_uid()
                copy.stem = f"{PHOTO_PREFIX}/{uid[:2]}/{uid}"
                copy.path = copy.stem + photo.path.removeprefix(photo.stem)
                for width in widths_of(photo):
                    key = variant_key(copy.stem, width)
                    storage.put(key, storage.get(variant_key(photo.stem, width)), CONTENT_TYPE)
                    written.append(key)
            session.add(copy)
        session.flush()
    except BaseException:
        for key in written:
            storage.delete(key)
        raise


def stored_under(key: str, *, whole: Any, stem: Any, widths: Any) -> ColumnElement[bool]:
    """Rows whose file is ``key``: as their ``whole`` file's key, or as one stored width (of the comma-separated
    ``widths``) of their pipeline image ``stem`` (a photo's sizes, a clip's poster's)."""
    condition = col(whole) == key
    parsed = parse_variant_key(key)
    if parsed is not None:
        key_stem, width = parsed
        in_widths = ("," + col(widths) + ",").contains(f",{width},")
        condition = or_(condition, and_(col(stem) == key_stem, in_widths))
    return condition


def _key_matches(key: str) -> ColumnElement[bool]:
    """Photos stored under ``key``: as their ``path``, or as one stored width of their ``stem``."""
    return stored_under(key, whole=ListingPhoto.path, stem=ListingPhoto.stem, widths=ListingPhoto.widths)


def public_media(*, session: Session, key: str) -> bool:
    """True when ``key`` is an approved photo of a public listing (anyone may load it, caches may keep it)."""
    found = session.exec(
        select(ListingPhoto.uid)
        .join(Listing, col(Listing.uid) == col(ListingPhoto.listing_uid))
        .where(_key_matches(key), ListingPhoto.approved == True, *public_conditions(None))  # noqa: E712
        .limit(1)
    ).first()
    return found is not None


def private_media(*, session: Session, key: str, actor: Actor) -> bool:
    """True when ``actor`` may see the photo under ``key`` although it is not public: its owner, or staff."""
    query = (
        select(col(ListingPhoto.uid))
        .join(Listing, col(Listing.uid) == col(ListingPhoto.listing_uid))
        .where(_key_matches(key))
    )
    if actor.profile_uid not in STAFF_PROFILES:
        query = query.where(Listing.owner_uid == actor.uid)
    return session.exec(query.limit(1)).first() is not None
