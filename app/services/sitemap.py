"""What the sitemaps list: the public listings of each section and city, counted and paged in the database.

Read on every sitemap request (no cache here): a listing shows up in its city's sitemap as soon as
it is published and leaves it as soon as it is not public any more. The XML and the HTTP answers are
app.web.seo_api's; the URLs come from app.seo.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import seo
from app.core.geo import CITIES
from app.models import Listing
from app.services.city_filters import commune_counts
from app.services.listings import listing_path, public_conditions

# Sitemaps may hold 50,000 URLs; a city's first sitemap also lists its page and tabs.
SITEMAP_LISTINGS = 45_000

Entry = tuple[str, datetime | None]


@dataclass(frozen=True)
class CityStats:
    """How many public listings a city has in a section, and when the newest change among them was."""

    count: int
    lastmod: datetime | None


NO_LISTINGS = CityStats(0, None)


def _newest(*moments: datetime | None) -> datetime | None:
    present = [moment for moment in moments if moment is not None]
    return max(present) if present else None


def city_stats(
    *, session: Session, section: str | None = None, city_slug: str | None = None
) -> dict[tuple[str, str], CityStats]:
    """{(section, city_slug): CityStats} of public listings, one GROUP BY over the status-led indexes."""
    conditions = public_conditions(section)
    if city_slug is not None:
        conditions.append(col(Listing.city_slug) == city_slug)
    rows = session.exec(
        select(  # type: ignore[call-overload]  # sqlmodel types select() for at most four columns
            Listing.section,
            Listing.city_slug,
            func.count(),
            func.max(Listing.updated_at),
            func.max(Listing.published_at),
        )
        .where(*conditions)
        .group_by(Listing.section, Listing.city_slug)
    ).all()
    return {
        (str(sec), city): CityStats(count, _newest(updated, published)) for sec, city, count, updated, published in rows
    }


def city_listing_urls(*, session: Session, section: str, city_slug: str, page: int) -> list[Entry]:
    """(detail path, lastmod) of one page of a city's public listings, newest first (ix_publicacion_city_recent)."""
    rows = session.exec(
        select(Listing.uid, Listing.name_slug, Listing.updated_at, Listing.published_at)
        .where(*public_conditions(section), col(Listing.city_slug) == city_slug)
        .order_by(col(Listing.published_at).desc(), col(Listing.uid).desc())
        .offset((page - 1) * SITEMAP_LISTINGS)
        .limit(SITEMAP_LISTINGS)
    ).all()
    return [
        (
            listing_path(section=section, city_slug=city_slug, name_slug=name_slug or "", uid=uid),
            _newest(updated, published),
        )
        for uid, name_slug, updated, published in rows
    ]


def index_entries(*, session: Session, site_url: str) -> list[Entry]:
    """The sitemap index: the site-pages sitemap, then every page of every section's city sitemaps."""
    stats = city_stats(session=session)
    entries: list[Entry] = [(f"{site_url}{seo.SITEMAP_PREFIX}/paginas.xml", None)]
    for section in seo.SECTION_SITEMAP_SEGMENTS:
        for city in CITIES:
            found = stats.get((section, city.slug), NO_LISTINGS)
            pages = max(1, -(-found.count // SITEMAP_LISTINGS))
            entries += [
                (site_url + seo.city_sitemap_path(section, city.slug, n), found.lastmod) for n in range(1, pages + 1)
            ]
    return entries


def city_entries(*, session: Session, site_url: str, section: str, city_slug: str, page: int) -> list[Entry] | None:
    """One page of a city's sitemap (the first also lists the city page, its tabs and the page of each commune
    its listings name); None past the last page."""
    stats = city_stats(session=session, section=section, city_slug=city_slug)
    found = stats.get((section, city_slug), NO_LISTINGS)
    if page > 1 and (page - 1) * SITEMAP_LISTINGS >= found.count:
        return None
    details = city_listing_urls(session=session, section=section, city_slug=city_slug, page=page)
    entries: list[Entry] = []
    if page == 1:
        communes = [each.commune.id for each in commune_counts(session=session, section=section, city_slug=city_slug)]
        urls = seo.city_page_urls(section=section, city_slug=city_slug, site_url=site_url, communes=communes)
        entries += [(url, found.lastmod) for url in urls]
    return entries + [(site_url + path, moment) for path, moment in details]
