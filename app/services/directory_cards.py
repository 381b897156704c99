"""The directory's cards and listing details from the versioned page cache (app.services.page_cache).

One place for both readers: the interactive pages' state (app.states.public)
and the preview of their first screen in the served document (app.seo_api).
A query runs once per page or listing after each change of the listings, not
on every load, paging event or document.
"""

from __future__ import annotations

import dataclasses

from app.db import get_engine, session_scope
from app.models import ListingCard, ListingDetail
from app.models.filter_tabs import FilterTab
from app.services import listings, page_cache
from app.settings import get_settings


def _copies(cards: list[ListingCard]) -> list[ListingCard]:
    """Cards of the caller's own: what is cached is shared by every visitor and must never change.

    Every field but ``photos`` is a str, int or bool, so copying that list is enough (and 4x cheaper than deep).
    """
    return [card.model_copy(update={"photos": list(card.photos)}) for card in cards]


async def featured(section: str) -> list[ListingCard]:
    """A section home's featured cards, from the cache while nothing changed."""

    def query() -> list[ListingCard]:
        with session_scope() as session:
            return listings.featured_cards(session=session, section=section)

    key = ("featured", section)
    return _copies(await page_cache.cached(key, get_engine(), query))


async def city_page(section: str, city_slug: str, tab: FilterTab, page: int, grouped: bool) -> listings.CardPage:
    """One page of a city's cards, from the cache while nothing changed."""

    def query() -> listings.CardPage:
        with session_scope() as session:
            return listings.city_cards(
                session=session, section=section, city_slug=city_slug, tab=tab, page=page, group_by_tier=grouped
            )

    settings = get_settings()
    key = ("city_cards", section, city_slug, tab.slug, page, grouped, settings.page_size, settings.timezone)
    result = await page_cache.cached(key, get_engine(), query)
    return dataclasses.replace(result, cards=_copies(result.cards))


async def detail(uid: str) -> ListingDetail | None:
    """A public listing's detail page, from the cache while nothing changed; None when it is absent or not public.

    The copy is the caller's own: its lists (``photos``, ``services``, ``rates``) are copied too; every other
    field, and each rate's (label, price) tuple, is immutable. "Not public" is not cached: it is asked every time.
    """

    def query() -> ListingDetail | None:
        with session_scope() as session:
            return listings.public_listing(session=session, uid=uid)

    settings = get_settings()
    # The WhatsApp greeting names the site; "available until" is in the site's time zone.
    key = ("detail", uid, settings.site_name, settings.timezone)
    found = await page_cache.cached(key, get_engine(), query)
    if found is None:
        return None
    return found.model_copy(
        update={"photos": list(found.photos), "services": list(found.services), "rates": list(found.rates)}
    )
