"""What the directory's pages show besides their cards: headings, filter tabs and tier groups (pure).

The interactive page's state (app.states.public) and the preview of its first
screen in the served document (app.web.preview) both build them here, so
the two never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import groupby

from app.core.geo import place_name
from app.core.money import format_currency
from app.core.stored_values import StoredValue
from app.models import ListingCard
from app.models.filter_tabs import DEFAULT_TAB, FILTER_TABS, FilterTab
from app.models.listing_filters import NO_FILTERS, ListingFilters
from app.routes import city_path
from app.seo import place_heading
from app.services.listings import CardPage


@dataclass(frozen=True)
class TierGroup(StoredValue):
    """Cards of one tier on a city page."""

    name: str
    slug: str
    cards: tuple[ListingCard, ...]


@dataclass(frozen=True)
class TabLink(StoredValue):
    """A filter tab as shown on a city page."""

    slug: str
    label: str
    url: str
    active: bool


@dataclass(frozen=True)
class FilterChoice(StoredValue):
    """One choice of a filter (a commune, a service): its value in the URL and its label."""

    value: str
    label: str


def city_heading(
    *, section: str, city_name: str, kind: str, tab: FilterTab, filters: ListingFilters = NO_FILTERS
) -> str:
    """The h1 of a city page ("Escorts en Talca: Verificadas"); ``kind`` is "city" or "all".

    Filtered by a commune, the commune comes first: "Escorts en Providencia, Santiago".
    """
    heading = place_heading(section, place_name(city_name, filters.commune))
    if kind == "all":
        return f"Todas las {heading[0].lower()}{heading[1:]}"
    if tab.slug == DEFAULT_TAB.slug:
        return heading
    return f"{heading}: {tab.label}"


def tab_links(*, section: str, city_slug: str, active_slug: str, filters: ListingFilters = NO_FILTERS) -> list[TabLink]:
    """The filter tabs of a city, the active one marked; each keeps the page's filters."""
    return [
        TabLink(
            slug=tab.slug,
            label=tab.label,
            url=filters.url(city_path(section, city_slug, tab.slug)),
            active=tab.slug == active_slug,
        )
        for tab in FILTER_TABS
    ]


@dataclass(frozen=True)
class FilterChip(StoredValue):
    """A filter a city page applies, as shown above its cards: its label and the page's URL without it."""

    label: str  # "Tarifa hasta $130.000"
    url: str


def _years(age: int) -> str:
    return f"{age} años"


def filter_chips(filters: ListingFilters, path: str) -> list[FilterChip]:
    """The filters ``path`` shows with ``filters``, in the form's order; each links to the page without it."""
    chips: list[FilterChip] = []
    if filters.commune is not None:
        chips.append(FilterChip(label=f"Comuna: {filters.commune.name}", url=replace(filters, commune=None).url(path)))
    for label, value, text, without in (
        ("Tarifa desde", filters.price_min, format_currency, replace(filters, price_min=None)),
        ("Tarifa hasta", filters.price_max, format_currency, replace(filters, price_max=None)),
        ("Edad desde", filters.age_min, _years, replace(filters, age_min=None)),
        ("Edad hasta", filters.age_max, _years, replace(filters, age_max=None)),
    ):
        if value is not None:
            chips.append(FilterChip(label=f"{label} {text(value)}", url=without.url(path)))
    for service in filters.services:
        others = tuple(other for other in filters.services if other != service)
        chips.append(FilterChip(label=f"Servicio: {service.name}", url=replace(filters, services=others).url(path)))
    return chips


def tier_groups(cards: list[ListingCard]) -> list[TierGroup]:
    """Consecutive cards of the same tier under one heading (cards come sorted by tier)."""
    runs = groupby(cards, key=lambda card: (card.tier_name, card.tier_slug))
    return [TierGroup(name=name, slug=slug, cards=tuple(run)) for (name, slug), run in runs]


def _thousands(number: int) -> str:
    """``number`` the Chilean way: 1.000, 19.250."""
    return f"{number:,}".replace(",", ".")


def count_label(result: CardPage) -> str:
    """How many listings a city page's filters match: "1 aviso", "250 avisos", past the count's cap
    "Más de 1.000 avisos", filtered "Más de 200 avisos" (the count stops there)."""
    if not result.exact:
        return f"Más de {_thousands(result.cap)} avisos"
    return "1 aviso" if result.total == 1 else f"{_thousands(result.total)} avisos"


def apply_label(result: CardPage) -> str:
    """The filter form's button: "Ver 250 avisos", "Ver más de 1.000 avisos"."""
    label = count_label(result)
    return "Ver " + label[0].lower() + label[1:]


def published_label(result: CardPage) -> str:
    """An SSG page's description: "1 aviso publicado", "250 avisos publicados", "Más de 1.000 avisos publicados"."""
    return count_label(result) + (" publicado" if result.exact and result.total == 1 else " publicados")


def page_label(result: CardPage) -> str:
    """The pager's "Página 2 de 5"; past the count's cap the last page is not known: "Página 2"."""
    if not result.exact:
        return f"Página {result.page}"
    return f"Página {result.page} de {result.page_count}"
