"""Data invariants the tests check over a whole database (demo data, fixtures, after a decision)."""

from __future__ import annotations

from sqlalchemy import and_, or_
from sqlmodel import Session, select

from app.models import Listing, ListingReview, ListingStatus, ReviewDecision
from app.services.listing_revisions import REVISED_STATUSES


def listings_in_review_without_queue_item(session: Session) -> list[str]:
    """Names of the listings waiting for review (pendiente, or public with an edit sent) that have no
    pending item in the review queue, so nobody could decide them."""
    queued = select(ListingReview.listing_uid).where(ListingReview.decision == ReviewDecision.PENDIENTE)
    rows = session.exec(
        select(Listing.display_name, Listing.uid).where(
            or_(
                Listing.status == ListingStatus.PENDIENTE,
                and_(Listing.status.in_(REVISED_STATUSES), Listing.revision_at.is_not(None)),
            ),
            Listing.uid.not_in(queued),
        )
    ).all()
    return [f"{name or 'Sin nombre'} ({uid})" for name, uid in rows]


def assert_every_listing_in_review_is_queued(session: Session) -> None:
    """Every listing in review has its item in the review queue."""
    missing = listings_in_review_without_queue_item(session)
    assert not missing, f"En revisión sin elemento en la cola: {', '.join(missing)}"
