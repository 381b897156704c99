"""Favourites: the public cards of a visitor's saved listings, and the account copy for those who want one.

Which listings a visitor likes is private (issue 19 §2). By default the list
lives in the browser's local storage (assets/favourites.js) and the server
never learns it. The Favoritas page asks :func:`saved_cards` for the public
cards of the listings saved on the device: the call is stateless, writes
nothing and logs nothing about the visitor or the listings (app.web.api).

A signed-in user may keep the list in the account (``favoritas_en_cuenta``),
to see it on another device: :func:`keep_in_account` turns that on with the
device's list, :func:`replace_account_list` keeps the copy in step, and
:func:`stop_keeping` deletes every row the account had. Each takes the
caller's :class:`~app.core.actor.Actor` and touches that user's rows only.
Nobody else reads them: the advertiser's statistics get only a count per
listing (:func:`saves_by_listing`), never who.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError
from app.db import transaction
from app.models import Favourite, FavouritesInAccount, Listing, ListingCard, utc_now
from app.models.listings import DISPLAY_NAME_MAX
from app.services import listings

# How many favourites one list holds (device or account): far more than anyone keeps, small enough for one query.
MAX_FAVOURITES = 200
# A listing uid (app.models.base.new_uid, and the demo data's): letters and digits.
_UID = re.compile(r"[A-Za-z0-9]{1,40}")
LIST_REFUSED = "No pudimos leer tu lista de favoritas."
TOO_MANY = f"Puedes guardar hasta {MAX_FAVOURITES} favoritas."
NOT_IN_ACCOUNT = "Tus favoritas no se guardan en tu cuenta: activa la opción en la página Favoritas."


def clean_uids(raw: object) -> list[str]:
    """The listing uids of a list a browser sent: each a uid, duplicates dropped, order kept.

    Anything else (not a list, an entry that is not a uid, more than MAX_FAVOURITES) is refused
    with InvalidInputError: nothing is read or written with it.
    """
    if not isinstance(raw, list):
        raise InvalidInputError(LIST_REFUSED)
    if len(raw) > MAX_FAVOURITES:
        raise InvalidInputError(TOO_MANY)
    if not all(isinstance(uid, str) and _UID.fullmatch(uid) for uid in raw):
        raise InvalidInputError(LIST_REFUSED)
    return list(dict.fromkeys(raw))


def clean_names(raw: object, uids: list[str]) -> dict[str, str]:
    """The names a device kept with its saved ``uids`` (uid to name), to name the listings no longer public.

    ``raw`` must be an object (None: no names); a name that is not text of 1 to DISPLAY_NAME_MAX characters, or
    whose uid is not in ``uids``, is left out (that listing gets a plain text). Anything else is refused with
    InvalidInputError.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InvalidInputError(LIST_REFUSED)
    names = {}
    for uid in uids:
        name = raw.get(uid)
        if isinstance(name, str) and 0 < len(name.strip()) <= DISPLAY_NAME_MAX:
            names[uid] = name.strip()
    return names


@dataclass(frozen=True)
class SavedCards:
    """The Favoritas page's content: the public cards, then the saved listings that are no longer public."""

    cards: list[ListingCard]
    gone: list[str]


def saved_cards(*, session: Session, uids: list[str]) -> SavedCards:
    """The public cards of ``uids`` in the order given, and the uids that are no longer public (``gone``)."""
    found = {card.uid: card for card in listings.public_cards(session=session, uids=uids)}
    return SavedCards(
        cards=[found[uid] for uid in uids if uid in found], gone=[uid for uid in uids if uid not in found]
    )


@dataclass(frozen=True)
class AccountFavourites:
    """Whether the user keeps favourites in the account, and which (empty when not)."""

    in_account: bool
    uids: list[str]


def account_favourites(*, session: Session, actor: Actor) -> AccountFavourites:
    """The caller's own choice and list, newest saved first."""
    if session.get(FavouritesInAccount, actor.uid) is None:
        return AccountFavourites(in_account=False, uids=[])
    uids = session.exec(
        select(Favourite.listing_uid)
        .where(Favourite.user_uid == actor.uid)
        .order_by(col(Favourite.created_at).desc(), col(Favourite.listing_uid))
    ).all()
    return AccountFavourites(in_account=True, uids=list(uids))


def _write_list(session: Session, user_uid: str, uids: list[str]) -> list[str]:
    """Make the account's rows exactly ``uids`` (those that name a listing); the uids kept, in order."""
    existing = set(session.exec(select(Listing.uid).where(col(Listing.uid).in_(uids))).all()) if uids else set()
    kept = [uid for uid in uids if uid in existing]
    stored = {row.listing_uid: row for row in session.exec(select(Favourite).where(Favourite.user_uid == user_uid))}
    keep = set(kept)
    for listing_uid, row in stored.items():
        if listing_uid not in keep:
            session.delete(row)
    now = utc_now()
    # The device lists newest first: older entries get earlier times, so the account keeps that order.
    for position, uid in enumerate(kept):
        if uid not in stored:
            session.add(Favourite(user_uid=user_uid, listing_uid=uid, created_at=now - timedelta(seconds=position)))
    return kept


def _merge(session: Session, actor: Actor, uids: list[str]) -> list[str]:
    current = account_favourites(session=session, actor=actor)
    return _write_list(session, actor.uid, list(dict.fromkeys([*uids, *current.uids]))[:MAX_FAVOURITES])


def keep_in_account(*, session: Session, actor: Actor, uids: list[str]) -> list[str]:
    """Keep the caller's favourites in the account from now on, starting with the device's ``uids``
    merged with any already there; the account's list."""
    wanted = clean_uids(uids)
    with transaction(session):
        if session.get(FavouritesInAccount, actor.uid) is None:
            session.add(FavouritesInAccount(user_uid=actor.uid))
            session.flush()
        kept = _merge(session, actor, wanted)
    return kept


def merge_into_account(*, session: Session, actor: Actor, uids: list[str]) -> list[str] | None:
    """A device joining the account: its ``uids`` added to the account's list; the result, or None (nothing
    written) when the caller does not keep favourites in the account."""
    wanted = clean_uids(uids)
    with transaction(session):
        if session.get(FavouritesInAccount, actor.uid) is None:
            return None
        kept = _merge(session, actor, wanted)
    return kept


def replace_account_list(*, session: Session, actor: Actor, uids: list[str]) -> list[str]:
    """Make the account's list the device's ``uids`` (after a heart was pressed); the list kept.

    Refused with ConflictError when the caller does not keep favourites in the account: nothing is stored then.
    """
    wanted = clean_uids(uids)
    with transaction(session):
        if session.get(FavouritesInAccount, actor.uid) is None:
            raise ConflictError(NOT_IN_ACCOUNT)
        kept = _write_list(session, actor.uid, wanted)
    return kept


def stop_keeping(*, session: Session, actor: Actor) -> None:
    """Stop keeping the caller's favourites in the account: every row of theirs is deleted."""
    with transaction(session):
        session.exec(delete(Favourite).where(col(Favourite.user_uid) == actor.uid))
        session.exec(delete(FavouritesInAccount).where(col(FavouritesInAccount.user_uid) == actor.uid))


def saves_by_listing(*, session: Session, listing_uids: list[str]) -> dict[str, int]:
    """How many accounts keep each listing saved: a count, never who (listings nobody saved are left out)."""
    if not listing_uids:
        return {}
    rows = session.exec(
        select(Favourite.listing_uid, func.count())
        .where(col(Favourite.listing_uid).in_(listing_uids))
        .group_by(col(Favourite.listing_uid))
    ).all()
    return {uid: int(count) for uid, count in rows}
