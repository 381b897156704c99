"""The administrator's overview in a real browser: sign in, land on /admin/escorts, see the directory's figures.

The e2e database is shared by the whole run, so the expected figures are read from it in the test
(plain counts), never written as constants. The rows this test adds are removed at the end.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import distinct, func
from sqlmodel import Session, select

from app.core.geo import city_by_slug
from app.identity.local import LocalProvider
from app.models import (
    LISTING_STATUS_LABELS,
    Listing,
    ListingReview,
    ListingStatus,
    ListingVerification,
    ProfileId,
    Report,
    ReviewDecision,
    Tier,
    VerificationStatus,
    utc_now,
)
from app.services.staff.overview import number, time_ago
from tests.e2e.conftest import Site
from tests.e2e.second_factor import enrolled, pass_second_factor
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import make_account, make_listing, make_owner

pytestmark = pytest.mark.e2e
# A city no other test counts listings in; the listing stays pending, so no public page shows it.
CITY = "copiapo"


@pytest.fixture
def waiting(db: Session) -> Iterator[Report]:
    """A listing waiting in the review queue for five hours, and a fresh trafficking report; removed afterwards."""
    now = utc_now()
    owner = make_owner(db, "espera-resumen@example.cl")
    listing = make_listing(db, owner, name="Resumen Espera", city=CITY, status="pendiente", photos=0)
    review = ListingReview(listing_uid=listing.uid, created_at=now - timedelta(hours=5, minutes=10))
    report = Report(kind="trata", listing_uid=listing.uid, message="Prueba del resumen.", created_at=now)
    db.add_all([review, report])
    db.commit()
    yield report
    for row in (report, review):
        db.delete(row)
    db.commit()
    db.delete(listing)
    db.commit()
    db.delete(owner)
    db.commit()


def _status_counts(db: Session) -> dict[str, int]:
    counts = dict(db.exec(select(Listing.status, func.count()).group_by(Listing.status)).all())
    return {label: counts.get(status, 0) for status, label in LISTING_STATUS_LABELS.items()}


def _published_by_tier(db: Session) -> list[tuple[str, int]]:
    tiers = db.exec(select(Tier).order_by(Tier.display_order, Tier.name)).all()
    published = db.exec(select(Listing.tier_uid).where(Listing.status == ListingStatus.PUBLICADA)).all()
    return [(tier.name, published.count(tier.uid)) for tier in tiers]


def _busiest_city(db: Session) -> tuple[str, int]:
    slugs = db.exec(select(Listing.city_slug).where(Listing.status == ListingStatus.PUBLICADA)).all()
    slug, count = min(Counter(slugs).items(), key=lambda item: (-item[1], item[0]))
    return city_by_slug(slug).name, count


def _figure_of(table, page: Page, label: str):
    """The figure cell of the chart row labelled ``label``."""
    return (
        table.get_by_role("row")
        .filter(has=page.get_by_role("rowheader", name=label, exact=True))
        .get_by_role("cell")
        .first
    )


@pytest.mark.usefixtures("no_earlier_attempts")
def test_an_administrator_lands_on_the_overview_and_sees_the_figures(page: Page, site: Site, db, waiting):
    make_account(
        db,
        LocalProvider(engine=db.get_bind()),
        "jefa-resumen@correo.cl",
        profile=ProfileId.ADMINISTRADOR,
        password=PASSWORD,
    )
    enrolled(db, "jefa-resumen@correo.cl")
    sign_in(page, "jefa-resumen@correo.cl")
    pass_second_factor(page, db, "jefa-resumen@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    expect(page.get_by_role("heading", name="Administración", level=1)).to_be_visible()

    statuses = page.get_by_role("table", name="Publicaciones por estado")
    expect(statuses).to_be_visible()
    for label, count in _status_counts(db).items():
        expect(_figure_of(statuses, page, label)).to_have_text(number(count))

    # The queue holds listings waiting for review and verification requests (other tests leave some).
    pending = ListingReview.decision == ReviewDecision.PENDIENTE
    reviews, oldest_review = db.exec(
        select(func.count(distinct(ListingReview.listing_uid)), func.min(ListingReview.created_at)).where(pending)
    ).one()
    requested = ListingVerification.status == VerificationStatus.SOLICITADA
    requests, oldest_request = db.exec(
        select(func.count(), func.min(ListingVerification.created_at)).where(requested)
    ).one()
    queue = reviews + requests
    oldest = min(moment for moment in (oldest_review, oldest_request) if moment is not None)
    tile = page.locator(".overview-tile").filter(has=page.get_by_role("link", name="Por revisar"))
    expect(tile.locator(".overview-figure")).to_have_text(number(queue))
    expect(tile.locator(".overview-note")).to_have_text(f"La más antigua llegó {time_ago(oldest, utc_now())}")

    tiers = page.get_by_role("table", name="Publicadas por categoría")
    by_tier = _published_by_tier(db)
    expect(tiers.get_by_role("rowheader")).to_have_text([name for name, _ in by_tier])
    for name, count in by_tier:
        expect(_figure_of(tiers, page, name)).to_have_text(number(count))
    city, count = _busiest_city(db)
    cities = page.get_by_role("table", name=re.compile("^Publicadas por ciudad"))
    expect(cities.get_by_role("rowheader").first).to_have_text(city)
    expect(_figure_of(cities, page, city)).to_have_text(number(count))

    # The newest report is the trafficking one, marked as urgent, with its listing.
    newest = page.get_by_role("table", name=re.compile("reportes más recientes")).get_by_role("row").nth(1)
    expect(newest).to_contain_text("Urgente: Posible trata de personas o explotación")
    expect(newest).to_contain_text("Resumen Espera · Copiapó")
