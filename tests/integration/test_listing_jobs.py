"""The listings' clock on both databases: published and paused listings expire when their time runs out,
approved upgrades start and end on their dates, and running the jobs again changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.models import (
    AppService,
    Listing,
    ListingReview,
    ListingStatus,
    ListingUpgrade,
    ReviewDecision,
    UpgradeStatus,
    utc_now,
)
from app.services import listing_jobs, my_listings
from app.services.staff import review_queue
from app.services.users import create_user
from tests.factories import actor_of, make_listing, make_owner


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _status(db: Session, uid: str) -> ListingStatus:
    listing = db.get(Listing, uid)
    db.refresh(listing)
    return listing.status


def test_published_and_paused_listings_expire_once_their_time_passed(db):
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    published = make_listing(db, owner, name="Publicada", expires_at=now - timedelta(minutes=1))
    paused = make_listing(db, owner, name="Pausada", status="pausada", expires_at=now)
    running = make_listing(db, owner, name="Vigente", expires_at=now + timedelta(days=1))
    forever = make_listing(db, owner, name="Sin fecha")
    others = {
        status: make_listing(db, owner, status=status, expires_at=now - timedelta(days=1))
        for status in (
            "borrador",
            "pendiente",
            "rechazada",
        )
    }
    assert listing_jobs.expire_listings(session=db, now=now) == 2
    assert _status(db, published.uid) == _status(db, paused.uid) == ListingStatus.EXPIRADA
    assert _status(db, running.uid) == _status(db, forever.uid) == ListingStatus.PUBLICADA
    for status, listing in others.items():
        assert _status(db, listing.uid) == status
    assert listing_jobs.expire_listings(session=db, now=now) == 0  # idempotent
    assert listing_jobs.expire_listings(session=db, now=now + timedelta(days=1)) == 1
    assert _status(db, running.uid) == ListingStatus.EXPIRADA


def test_run_clock_jobs_expires_and_applies_upgrades_in_the_app_database(db):
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    expiring = make_listing(db, owner, name="Vence", expires_at=now + timedelta(hours=1))
    vip = make_listing(db, owner, name="VIP")
    service = AppService(name="VIP", price_clp=19990, duration_days=15, effect="vip")
    db.add(service)
    db.flush()
    upgrade = ListingUpgrade(
        listing_uid=vip.uid,
        app_service_uid=service.uid,
        requested_by_uid=owner.uid,
        amount_clp=19990,
        status=UpgradeStatus.ACTIVA,
        starts_at=now + timedelta(minutes=30),
        ends_at=now + timedelta(days=15),
    )
    db.add(upgrade)
    db.commit()
    # (expired, upgraded, owners warned of an expiry in 3 days, unpaid requests expired)
    assert listing_jobs.run_clock_jobs(now) == (0, 0, 1, 0)
    assert listing_jobs.run_clock_jobs(now + timedelta(minutes=30)) == (0, 1, 0, 0)
    db.refresh(vip)
    assert vip.vip_until == now + timedelta(days=15)
    assert listing_jobs.run_clock_jobs(now + timedelta(hours=1)) == (1, 0, 0, 0)
    assert _status(db, expiring.uid) == ListingStatus.EXPIRADA
    assert listing_jobs.run_clock_jobs(now + timedelta(days=15)) == (0, 1, 0, 0)
    db.refresh(vip)
    db.refresh(upgrade)
    assert vip.vip_until is None and upgrade.status == UpgradeStatus.VENCIDA
    assert listing_jobs.run_clock_jobs(now + timedelta(days=15)) == (0, 0, 0, 0)


def _with_pending_edit(db: Session, listing: Listing, at) -> None:
    listing.revision = json.dumps({"listing": {"description": "Cambio sin revisar"}})
    listing.revision_at = at
    db.add(listing)
    db.add(ListingReview(listing_uid=listing.uid, created_at=at))
    db.commit()


def test_an_expiring_listing_drops_its_pending_edit_and_leaves_the_queue_with_a_reason(db):
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, name="Editada", status="pausada", expires_at=now - timedelta(minutes=1))
    _with_pending_edit(db, listing, now - timedelta(hours=2))
    staff = create_user(session=db, data={"email": "revisora@example.cl", "profile_uid": "secretaria"})
    assert review_queue.list_queue(session=db, actor=actor_of(staff)).total == 1

    assert listing_jobs.expire_listings(session=db, now=now) == 1
    db.refresh(listing)
    assert listing.status == ListingStatus.EXPIRADA
    assert listing.revision is None and listing.revision_at is None
    review = db.exec(select(ListingReview).where(ListingReview.listing_uid == listing.uid)).one()
    assert review.decision == ReviewDecision.RECHAZADA and review.decided_at == now and review.reviewer_uid is None
    assert review_queue.list_queue(session=db, actor=actor_of(staff)).total == 0
    (row,) = my_listings.list_my_listings(session=db, owner_uid=owner.uid, now=now)
    assert row.rejection_reason == listing_jobs.EXPIRED_BEFORE_REVIEW and not row.pending_revision
    assert listing_jobs.EXPIRED_BEFORE_REVIEW.startswith("La publicación venció antes de la revisión.")


def test_an_expired_listing_still_holding_a_pending_review_is_cleaned_up_without_being_counted(db):
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    # Rows left like this before every expiry went through listing_jobs.expire.
    stale = make_listing(db, owner, name="Vencida antes", status="expirada")
    _with_pending_edit(db, stale, now - timedelta(days=1))
    waiting = make_listing(db, owner, name="En revisión", status="pendiente")
    db.add(ListingReview(listing_uid=waiting.uid))
    db.commit()

    assert listing_jobs.expire_listings(session=db, now=now) == 0
    db.refresh(stale)
    assert stale.revision is None and stale.revision_at is None
    decisions = dict(db.exec(select(ListingReview.listing_uid, ListingReview.decision)).all())
    assert decisions == {stale.uid: ReviewDecision.RECHAZADA, waiting.uid: ReviewDecision.PENDIENTE}
    assert _status(db, waiting.uid) == ListingStatus.PENDIENTE
