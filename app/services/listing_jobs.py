"""The listings' clock: expiry and upgrades, run every minute by the ``listings.clock`` task (app.tasks).

- :func:`expire_listings`: a publicada or pausada listing whose ``expires_at`` passed expires (:func:`expire`,
  which the owner resuming a paused listing whose time ran out uses too);
- :func:`app.services.upgrades.apply_upgrades`: approved upgrades start and end on their dates;
- :func:`warn_expiring`: owners of listings expiring within 3 days are told by e-mail (once per period);
- :func:`app.services.upgrades.expire_unpaid_upgrades`: upgrade requests unpaid for 7 days expire.

Every notice they send is recorded once under a unique key (app.services.notices), so two workers
running the same job at the same moment send it once.

Both are idempotent and lock the rows they change, so several workers running them side by side do
no harm (on PostgreSQL a worker skips listings another one is expiring).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import or_
from sqlmodel import Session, col, select

from app.content.notices import NoticeKind
from app.core.dates import format_date
from app.db import commit, session_scope
from app.models import ActorKind, Listing, ListingReview, ListingStatus, ReviewDecision, utc_now
from app.services import notices
from app.services.listing_lifecycle import ensure_transition
from app.services.staff import reviews
from app.services.upgrades import apply_upgrades, expire_unpaid_upgrades
from app.settings import get_settings

log = logging.getLogger(__name__)

CLOCK_EVERY_SECONDS = 60
EXPIRING_STATUSES = (ListingStatus.PUBLICADA, ListingStatus.PAUSADA)
# The owner of a listing is told this long before it expires.
EXPIRY_WARNING = timedelta(days=3)
DATE_FORMAT = "D [de] MMMM [de] YYYY"
EXPIRED_BEFORE_REVIEW = "La publicación venció antes de la revisión. Renuévala y la revisaremos completa."


def _drop_pending_review(session: Session, listing: Listing, now: datetime) -> None:
    """An expired listing waits for nothing: its edit is dropped and its pending reviews closed (no reviewer)."""
    listing.revision = None
    listing.revision_at = None
    reviews.close_reviews(
        session,
        listing.uid,
        decision=ReviewDecision.RECHAZADA,
        reason=EXPIRED_BEFORE_REVIEW,
        reviewer=None,
        now=now,
        record=False,
    )


def expire(*, session: Session, listing: Listing, now: datetime) -> None:
    """End a publicada or pausada listing's period (the lifecycle's ``system`` move to expirada); commits nothing.

    An edit waiting for review is dropped and its review closed with a reason the owner reads (they renew it,
    and the whole listing is reviewed then), and the owner is told, once per period.
    """
    listing.status = ensure_transition(listing.status, ListingStatus.EXPIRADA, ActorKind.SYSTEM)
    listing.updated_at = now
    _drop_pending_review(session, listing, now)
    session.add(listing)
    notices.notify_owner(
        session=session, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key=_expiry_key(listing), now=now
    )


def expire_listings(*, session: Session, now: datetime | None = None) -> int:
    """Move published and paused listings whose time ran out to expirada; return how many.

    Expired listings still holding an edit or a pending review (rows from before every expiry went through
    :func:`expire`) are cleaned up too, without being counted.
    """
    now = now or utc_now()
    due = session.exec(
        select(Listing)
        .where(
            col(Listing.status).in_(EXPIRING_STATUSES),
            col(Listing.expires_at).is_not(None),
            col(Listing.expires_at) <= now,
        )
        .order_by(Listing.uid)
        .with_for_update(skip_locked=True)
    ).all()
    for listing in due:
        expire(session=session, listing=listing, now=now)
    waiting = select(ListingReview.listing_uid).where(ListingReview.decision == ReviewDecision.PENDIENTE)
    stale = session.exec(
        select(Listing)
        .where(
            Listing.status == ListingStatus.EXPIRADA,
            or_(
                col(Listing.revision_at).is_not(None), col(Listing.revision).is_not(None), col(Listing.uid).in_(waiting)
            ),
        )
        .order_by(Listing.uid)
        .with_for_update(skip_locked=True)
    ).all()
    for listing in stale:
        _drop_pending_review(session, listing, now)
        session.add(listing)
    commit(session)
    return len(due)


def _expiry_key(listing: Listing) -> str:
    """The listing's current period: a renewed listing expiring again is news again."""
    return f"{listing.uid}:{listing.expires_at:%Y%m%dT%H%M%S}"


def warn_expiring(*, session: Session, now: datetime | None = None) -> int:
    """Tell the owners of published and paused listings that expire within EXPIRY_WARNING; return how many
    were told. Each period is told once (the notice's key), whichever worker runs first."""
    now = now or utc_now()
    expiring = session.exec(
        select(Listing)
        .where(
            col(Listing.status).in_(EXPIRING_STATUSES),
            col(Listing.expires_at) > now,
            col(Listing.expires_at) <= now + EXPIRY_WARNING,
        )
        .order_by(Listing.uid)
    ).all()
    told = 0
    for listing in expiring:
        expires = format_date(listing.expires_at.astimezone(ZoneInfo(get_settings().timezone)), DATE_FORMAT)  # type: ignore[union-attr]  # filtered
        status = notices.notify_owner(
            session=session,
            listing=listing,
            kind=NoticeKind.LISTING_EXPIRING,
            key=_expiry_key(listing),
            now=now,
            expires=expires,
        )
        told += status is not None
    commit(session)
    return told


class ClockRun(NamedTuple):
    """What one run of the clock jobs changed."""

    expired: int
    upgraded: int
    warned: int = 0
    unpaid: int = 0


def run_clock_jobs(now: datetime | None = None) -> ClockRun:
    """One run of the clock jobs, each in its own transaction on the app's database."""
    now = now or utc_now()
    with session_scope() as session:
        expired = expire_listings(session=session, now=now)
    with session_scope() as session:
        upgraded = apply_upgrades(session=session, now=now)
    with session_scope() as session:
        warned = warn_expiring(session=session, now=now)
    with session_scope() as session:
        unpaid = expire_unpaid_upgrades(session=session, now=now)
    return ClockRun(expired=expired, upgraded=upgraded, warned=warned, unpaid=unpaid)
