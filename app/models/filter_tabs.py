"""The city page's filter tabs, defined as data.

Each tab has the URL segment it lives at (/escorts/{city}/{slug}), its
Spanish label, the rule in words, and the SQL condition that implements the
rule. "Now" is an aware UTC time; "today" is the Chilean calendar day (America/Santiago).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import ColumnElement, and_, or_, select
from sqlmodel import col

from app.models.catalogues import Tier
from app.models.listings import Listing

NEW_LISTING_DAYS = 7
MATURE_MIN_AGE = 35
VIP_TIER_SLUGS = ("diamante", "ruby")


@dataclass(frozen=True)
class Clock:
    """The moment a query is evaluated at: UTC now and the Chilean date today."""

    now: datetime
    today: date


@dataclass(frozen=True)
class FilterTab:
    """One filter tab: where it lives, what it is called and what it selects."""

    slug: str
    label: str
    rule: str
    condition: Callable[[Clock], ColumnElement[bool] | None]


def _vip(c: Clock) -> ColumnElement[bool]:
    vip_tiers = select(col(Tier.uid)).where(col(Tier.slug).in_(VIP_TIER_SLUGS))
    return or_(col(Listing.tier_uid).in_(vip_tiers), col(Listing.vip_until) > c.now)


FILTER_TABS: tuple[FilterTab, ...] = (
    FilterTab("todas", "Todas", "Every published listing of the city.", lambda c: None),
    FilterTab(
        "lo-nuevo",
        "Lo Nuevo",
        f"Published in the last {NEW_LISTING_DAYS} days.",
        lambda c: col(Listing.published_at) >= c.now - timedelta(days=NEW_LISTING_DAYS),
    ),
    FilterTab("vip", "VIP", "Tier Diamante or Ruby, or a VIP upgrade in force (vip_until after now).", _vip),
    FilterTab(
        "estrellas-xxx",
        "Estrellas XXX",
        "Marked as adult-film actress (actrizPorno).",
        lambda c: col(Listing.porn_actress) == True,  # noqa: E712
    ),
    FilterTab(
        "de-pasada",
        "De pasada",
        "Visiting this city today: visiting_from <= today <= visiting_until.",
        lambda c: and_(col(Listing.visiting_from) <= c.today, col(Listing.visiting_until) >= c.today),
    ),
    FilterTab(
        "disponible-ahora",
        "Disponible AHORA",
        "The available-now window is open: available_until is after now.",
        lambda c: col(Listing.available_until) > c.now,
    ),
    FilterTab("verificadas", "Verificadas", "Photos verified by staff.", lambda c: col(Listing.verified) == True),  # noqa: E712
    FilterTab("culonas", "Culonas", "Self-declared curvy figure.", lambda c: col(Listing.curvy) == True),  # noqa: E712
    FilterTab("maduras", "Maduras", f"Age {MATURE_MIN_AGE} or more.", lambda c: col(Listing.age) >= MATURE_MIN_AGE),
    FilterTab("video", "Video", "Has a video.", lambda c: col(Listing.has_video) == True),  # noqa: E712
)

TABS_BY_SLUG: dict[str, FilterTab] = {tab.slug: tab for tab in FILTER_TABS}
DEFAULT_TAB = FILTER_TABS[0]


def tab_by_slug(slug: str | None) -> FilterTab | None:
    """The tab living at this URL segment, or None."""
    return TABS_BY_SLUG.get(slug or "")
