"""Ownership checks: a listing id from a client is only ever looked up together with the caller's id.

A listing that does not exist and a listing of someone else give the same
NotFoundError, so a client cannot learn which ids exist by trying them.
"""

from __future__ import annotations

from sqlmodel import Session, select

from app.core.errors import NotFoundError
from app.models import Listing

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
