"""The city page's filter tabs, defined as data.

Each tab has the URL segment it lives at (/escorts/{city}/{slug}), its
Spanish label, the rule in words, and the SQL condition that implements the
rule. "Now" is an aware UTC time; "today" is the Chilean calendar day (America/Santiago).

A condition names the moment only through bound parameters (``now``, ``today``, ``new_since``; their values
are :meth:`Clock.params`), so a statement built with it once serves every moment (app.services.listings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import ColumnElement, and_, bindparam, or_, select
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

    def params(self) -> dict[str, datetime | date]:
        """The values of the moment's bound parameters in the tabs' conditions."""
        return {"now": self.now, "today": self.today, "new_since": self.now - timedelta(days=NEW_LISTING_DAYS)}


@dataclass(frozen=True)
class FilterTab:
    """One filter tab: where it lives, what it is called and what it selects (its condition, or None for every
    listing, with the moment as bound parameters: see the module)."""

    slug: str
    label: str
    rule: str
    condition: Callable[[], ColumnElement[bool] | None]


def _vip() -> ColumnElement[bool]:
    # One comparison a slug, not IN (...): an IN list is an expanding parameter, rendered into the SQL at each
    # execution.
    vip_tiers = select(col(Tier.uid)).where(or_(*(col(Tier.slug) == slug for slug in VIP_TIER_SLUGS)))
    return or_(col(Listing.tier_uid).in_(vip_tiers), col(Listing.vip_until) > bindparam("now"))


FILTER_TABS: tuple[FilterTab, ...] = (
    FilterTab("todas", "Todas", "Every published listing of the city.", lambda: None),
    FilterTab(
        "lo-nuevo",
        "Lo Nuevo",
        f"Published in the last {NEW_LISTING_DAYS} days.",
        lambda: col(Listing.published_at) >= bindparam("new_since"),
    ),
    FilterTab("vip", "VIP", "Tier Diamante or Ruby, or a VIP upgrade in force (vip_until after now).", _vip),
    FilterTab(
        "estrellas-xxx",
        "Estrellas XXX",
        "Marked as adult-film actress (actrizPorno).",
        lambda: col(Listing.porn_actress) == True,  # noqa: E712
    ),
    FilterTab(
        "de-pasada",
        "De pasada",
        "Visiting this city today: visiting_from <= today <= visiting_until.",
        lambda: and_(
            col(Listing.visiting_from) <= bindparam("today"), col(Listing.visiting_until) >= bindparam("today")
        ),
    ),
    FilterTab(
        "disponible-ahora",
        "Disponible AHORA",
        "The available-now window is open: available_until is after now.",
        lambda: col(Listing.available_until) > bindparam("now"),
    ),
    FilterTab("verificadas", "Verificadas", "Photos verified by staff.", lambda: col(Listing.verified) == True),  # noqa: E712
    FilterTab("culonas", "Culonas", "Self-declared curvy figure.", lambda: col(Listing.curvy) == True),  # noqa: E712
    FilterTab("maduras", "Maduras", f"Age {MATURE_MIN_AGE} or more.", lambda: col(Listing.age) >= MATURE_MIN_AGE),
    FilterTab("video", "Video", "Has a video.", lambda: col(Listing.has_video) == True),  # noqa: E712
)

TABS_BY_SLUG: dict[str, FilterTab] = {tab.slug: tab for tab in FILTER_TABS}
DEFAULT_TAB = FILTER_TABS[0]


def tab_by_slug(slug: str | None) -> FilterTab | None:
    """The tab living at this URL segment, or None."""
    return TABS_BY_SLUG.get(slug or "")
