"""The demo data (app/seed.py) keeps the rules real data keeps: every listing in review has its item
in the review queue, and the queue counts exactly those; an advertiser with a public listing has a
reviewed identity; every listing names a commune of its city's area, which the directory offers."""

from __future__ import annotations

from sqlmodel import Session, func, select

from app.core.geo import city_communes
from app.models import Advertiser, Listing, ListingStatus, ProfileId
from app.seed import seed
from app.services.staff import review_queue
from app.storage.local import LocalStorage
from tests.factories import actor_of, make_staff
from tests.invariants import assert_every_listing_in_review_is_queued

LISTINGS = 600  # enough for the seed's 2 % pendiente to give several


def test_seeded_demo_data_puts_every_listing_in_review_in_the_queue(db: Session, tmp_path):
    seed(session=db, listings=LISTINGS, storage=LocalStorage(tmp_path / "media"))
    assert_every_listing_in_review_is_queued(db)

    in_review = db.exec(
        select(func.count()).select_from(Listing).where(Listing.status == ListingStatus.PENDIENTE)
    ).one()
    assert in_review > 1
    total, _ = review_queue.queue_size(db)
    assert total == in_review  # the overview's "Por revisar" counts every listing in review
    staff = make_staff(db, "revisora@example.cl", ProfileId.SECRETARIA)
    page = review_queue.list_queue(session=db, actor=actor_of(staff))
    assert len(page.items) == min(total, review_queue.PAGE_SIZE)
    assert all(item.identity and item.identity[0].published.startswith("RUT ") for item in page.items)

    public_owners = select(Listing.owner_uid).where(Listing.status == ListingStatus.PUBLICADA)
    unreviewed = db.exec(
        select(func.count())
        .select_from(Advertiser)
        .where(Advertiser.user_uid.in_(public_owners), Advertiser.identity_reviewed_at.is_(None))
    ).one()
    assert unreviewed == 0

    placed = db.exec(select(Listing.city_slug, Listing.commune).distinct()).all()
    outside = [(city, commune) for city, commune in placed if commune not in {c.name for c in city_communes(city)}]
    assert placed and outside == []
