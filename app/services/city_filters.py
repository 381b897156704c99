"""What the city page's filters offer: the services catalogue and the communes a city's listings name.

The rules of the filters themselves (query string, validation, SQL) are app.models.listing_filters'.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.geo import Commune, city_communes
from app.core.text import slugify
from app.models import AdvertiserService, Listing
from app.models.listing_filters import ServiceOption
from app.services.listings import public_conditions


@dataclass(frozen=True)
class CommuneCount:
    """A commune of a city with how many public listings name it."""

    commune: Commune
    count: int


def service_options(*, session: Session) -> list[ServiceOption]:
    """The services catalogue as filters, by name (a name whose slug repeats an earlier one is left out)."""
    rows = session.exec(select(AdvertiserService.uid, AdvertiserService.name).order_by(AdvertiserService.name)).all()
    options: dict[str, ServiceOption] = {}
    for uid, name in rows:
        slug = slugify(name)
        if slug and slug not in options:
            options[slug] = ServiceOption(slug=slug, uid=uid, name=name)
    return list(options.values())


def commune_counts(*, session: Session, section: str | None, city_slug: str) -> list[CommuneCount]:
    """The communes of a city's area that its public listings (of ``section``; None: both) name, alphabetically.

    One GROUP BY over the city's public listings; names that are not a commune of the city's area
    (``city_communes``) are left out: such a listing shows in its city, under no commune.
    """
    rows = session.exec(
        select(Listing.commune, func.count())
        .where(*public_conditions(section), col(Listing.city_slug) == city_slug)
        .group_by(Listing.commune)
    ).all()
    counts = dict(rows)
    named = [commune for commune in city_communes(city_slug) if counts.get(commune.name)]
    return [CommuneCount(commune, counts[commune.name]) for commune in sorted(named, key=lambda each: each.id)]
