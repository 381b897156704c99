"""Ownership checks: a listing id from a client is only ever looked up together with the caller's id.

A listing that does not exist and a listing of someone else give the same
NotFoundError, so a client cannot learn which ids exist by trying them.
"""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.core.errors import NotFoundError
from app.models import Listing, ListingPhoto, ListingVideo, PendingPhoto

# A listing's media row: a photo, a clip or a photo still processing (each has its uid and its listing's).
Media = TypeVar("Media", ListingPhoto, ListingVideo, PendingPhoto)

NOT_FOUND_MESSAGE = "No encontramos esa publicación entre las tuyas."


def owned_listing(*, session: Session, owner_uid: str, uid: object, for_update: bool = False) -> Listing:
    """The caller's listing ``uid``, or NotFoundError (also for someone else's, or a malformed id)."""
    if not isinstance(uid, str) or not uid or len(uid) > 40 or not owner_uid:
        raise NotFoundError(NOT_FOUND_MESSAGE)
    query = select(Listing).where(Listing.uid == uid, Listing.owner_uid == owner_uid)
    if for_update:
        query = query.with_for_update()
    listing = session.exec(query).first()
    if listing is None:
        raise NotFoundError(NOT_FOUND_MESSAGE)
    return listing


def locked_owned_listing(*, session: Session, owner_uid: str, uid: object) -> Listing:
    """The caller's listing, locked until the transaction ends (what changes its photos or clips holds it).

    PostgreSQL locks the row (SELECT … FOR UPDATE). SQLite ignores FOR UPDATE,
    so a no-op write to the row comes first: it takes SQLite's single write lock
    (waiting up to the busy timeout) and starts the transaction on the latest data.
    """
    if session.get_bind().dialect.name == "sqlite" and isinstance(uid, str):
        session.execute(
            update(Listing)
            .where(col(Listing.uid) == uid, col(Listing.owner_uid) == owner_uid)
            .values(updated_at=Listing.updated_at)
            .execution_options(synchronize_session=False)
        )
    return owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)


def locked_owned_media(
    *, session: Session, model: type[Media], owner_uid: str, media_uid: object, not_found: str
) -> tuple[Listing, Media]:
    """The caller's photo or clip ``media_uid`` and its listing, the listing locked; NotFoundError(``not_found``)
    for a missing or foreign one, or one deleted by a concurrent request while this one waited for the lock."""
    if not isinstance(media_uid, str) or not media_uid or len(media_uid) > 40 or not owner_uid:
        raise NotFoundError(not_found)
    listing_uid = session.exec(
        select(model.listing_uid)
        .join(Listing, col(Listing.uid) == col(model.listing_uid))
        .where(model.uid == media_uid, Listing.owner_uid == owner_uid)
    ).first()
    if listing_uid is None:
        raise NotFoundError(not_found)
    try:
        listing = locked_owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
    except NotFoundError as exc:
        raise NotFoundError(not_found) from exc
    media = session.exec(select(model).where(model.uid == media_uid, model.listing_uid == listing.uid)).first()
    if media is None:
        session.rollback()
        raise NotFoundError(not_found)
    return listing, media
