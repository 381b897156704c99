"""What the directory's pages show besides their cards: headings, filter tabs and tier groups (pure).

The interactive page's state (app.states.public) and the preview of its first
screen in the served document (app.web.preview) both build them here, so
the two never disagree.
"""

from __future__ import annotations

from pydantic import BaseModel

from app.models import ListingCard, Section
from app.models.filter_tabs import DEFAULT_TAB, FILTER_TABS, FilterTab
from app.routes import city_path


class TierGroup(BaseModel):
    """Cards of one tier on a city page."""

    name: str
    slug: str
    cards: list[ListingCard]


class TabLink(BaseModel):
    """A filter tab as shown on a city page."""

    slug: str
    label: str
    url: str
    active: bool


def home_heading(section: str) -> str:
    """The h1 of a section's home."""
    return "Escorts trans en Chile" if section == Section.TRANS.value else "Escorts en Chile"


def city_heading(*, section: str, city_name: str, kind: str, tab: FilterTab) -> str:
    """The h1 of a city page ("Escorts en Talca: Verificadas"); ``kind`` is "city" or "all"."""
    prefix = "Escorts trans" if section == Section.TRANS.value else "Escorts"
    if kind == "all":
        return f"Todas las {prefix.lower()} en {city_name}"
    if tab.slug == DEFAULT_TAB.slug:
        return f"{prefix} en {city_name}"
    return f"{prefix} en {city_name}: {tab.label}"


def tab_links(*, section: str, city_slug: str, active_slug: str) -> list[TabLink]:
    """The filter tabs of a city, the active one marked."""
    return [
        TabLink(
            slug=tab.slug,
            label=tab.label,
            url=city_path(section, city_slug, tab.slug),
            active=tab.slug == active_slug,
        )
        for tab in FILTER_TABS
    ]


def tier_groups(cards: list[ListingCard]) -> list[TierGroup]:
    """Consecutive cards of the same tier under one heading (cards come sorted by tier)."""
    groups: list[TierGroup] = []
    for card in cards:
        if not groups or groups[-1].slug != card.tier_slug:
            groups.append(TierGroup(name=card.tier_name, slug=card.tier_slug, cards=[]))
        groups[-1].cards.append(card)
    return groups
