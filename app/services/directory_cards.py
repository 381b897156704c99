"""The directory's cards and listing details from the versioned page cache (app.services.page_cache).

One place for every reader: the view of a public page (app.services.public_view),
which the interactive pages' state (app.states.public) and the served document
with the preview of their first screen (app.web.seo_api) both show, and the
state's filter form.
A query runs once per page or listing after each change of the listings, not
on every load, paging event or document.
"""

from __future__ import annotations

import dataclasses

from app.db import get_engine, read_scope
from app.models import ListingCard, ListingDetail
from app.models.filter_tabs import FilterTab
from app.models.listing_filters import NO_FILTERS, ListingFilters, ServiceOption, parse_filters
from app.services import city_filters, listings, page_cache
from app.settings import get_settings


async def featured(section: str) -> list[ListingCard]:
    """A section home's featured cards, from the cache while nothing changed."""

    def query() -> list[ListingCard]:
        with read_scope() as session:
            return listings.featured_cards(session=session, section=section)

    key = ("featured", section)
    return list(await page_cache.cached(key, get_engine(), query))


async def city_page(
    section: str, city_slug: str, tab: FilterTab, page: int, grouped: bool, filters: ListingFilters = NO_FILTERS
) -> listings.CardPage:
    """One page of a city's cards (narrowed by ``filters``), from the cache while nothing changed.

    The filters are part of the key, whole (commune, bounds and each service's uid): a page is never served
    for other filters.
    """
    result = await _cached_city_page(section, city_slug, tab, page, grouped, filters)
    return dataclasses.replace(result, cards=list(result.cards))


async def city_count(section: str, city_slug: str, tab: FilterTab, filters: ListingFilters) -> listings.CardPage:
    """How many of a city's listings ``filters`` match: :func:`city_page`'s first page without its cards (the
    filter form's count, which shows none of them).

    Counted alone, cached apart from the pages: a visitor changes several fields before applying them, and
    each change counts; a count costs about a third of a page of cards, and only the page applied is rendered.
    """

    def query() -> listings.CardPage:
        with read_scope() as session:
            return listings.city_total(session=session, section=section, city_slug=city_slug, tab=tab, filters=filters)

    settings = get_settings()
    key = ("city_total", section, city_slug, tab.slug, filters, settings.page_size, settings.timezone)
    return await page_cache.cached(key, get_engine(), query)


async def _cached_city_page(
    section: str, city_slug: str, tab: FilterTab, page: int, grouped: bool, filters: ListingFilters
) -> listings.CardPage:
    """The cached page itself, shared by every caller: its cards are frozen, its list is not (hand on a copy)."""

    def query() -> listings.CardPage:
        with read_scope() as session:
            return listings.city_cards(
                session=session,
                section=section,
                city_slug=city_slug,
                tab=tab,
                page=page,
                group_by_tier=grouped,
                filters=filters,
            )

    settings = get_settings()
    key = ("city_cards", section, city_slug, tab.slug, page, grouped, filters, settings.page_size, settings.timezone)
    return await page_cache.cached(key, get_engine(), query)


async def detail(uid: str) -> ListingDetail | None:
    """A public listing's detail page, from the cache while nothing changed; None when it is absent or not public.

    The detail is frozen (ListingCard), so every caller shares the one cached. "Not public" is not cached: it is
    asked every time.
    """

    def query() -> ListingDetail | None:
        with read_scope() as session:
            return listings.public_listing(session=session, uid=uid)

    settings = get_settings()
    # The WhatsApp greeting names the site; "available until" is in the site's time zone.
    key = ("detail", uid, settings.site_name, settings.timezone)
    return await page_cache.cached(key, get_engine(), query)


async def service_options() -> list[ServiceOption]:
    """The services catalogue as filters, from the cache while nothing changed."""

    def query() -> list[ServiceOption]:
        with read_scope() as session:
            return city_filters.service_options(session=session)

    return list(await page_cache.cached(("service_options",), get_engine(), query))


async def commune_counts(section: str, city_slug: str) -> list[city_filters.CommuneCount]:
    """The communes a city's public listings of ``section`` name, from the cache while nothing changed."""

    def query() -> list[city_filters.CommuneCount]:
        with read_scope() as session:
            return city_filters.commune_counts(session=session, section=section, city_slug=city_slug)

    return list(await page_cache.cached(("commune_counts", section, city_slug), get_engine(), query))


async def filters_from_query(city_slug: str, query: str) -> ListingFilters:
    """The valid filters of a city page's query string (app.models.listing_filters); the rest is ignored."""
    if not query:
        return NO_FILTERS
    return parse_filters(query, city_slug=city_slug, catalogue=await service_options())
