"""One builder of a public page's view (home, city, tab, commune, all, detail) for both of its renderings.

The interactive page's state (app.states.public) and the served document with the preview of its
first screen (app.web.seo_api) both call :func:`build_public_view` and only map its fields to their
output: which page a path shows, the canonical redirect of a stale detail URL, the head tags (title,
canonical, breadcrumbs), the heading, the filter tabs and chips, the cards or the listing's detail.
So the app and the document never disagree on any of them.

Cards and details come from the versioned page cache (app.services.directory_cards), which opens its
own sessions: a query runs once per page or listing after each change of the listings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app import seo
from app.models import ListingCard, ListingDetail
from app.models.filter_tabs import DEFAULT_TAB, FilterTab, tab_by_slug
from app.models.listing_filters import NO_FILTERS, ListingFilters
from app.routes import PublicView, city_name, is_pretty_detail_path, resolve_public_path
from app.services import directory_cards, directory_view
from app.services.directory_view import FilterChip, TabLink, TierGroup
from app.services.listings import CardPage
from app.settings import get_settings

MISSING_HEADING = "Publicación no disponible"


@dataclass(frozen=True)
class Redirect:
    """The path is not this page's canonical spelling: the browser goes to ``location``."""

    location: str


@dataclass(frozen=True)
class NotFound:
    """Nothing public at the path (a listing absent or no longer public): what the page says instead."""

    section: str
    heading: str
    tags: seo.HeadTags


@dataclass(frozen=True)
class PublicPageView:
    """What a public page shows.

    ``kind``: "home", "city" (a filter tab, a commune when ``filters`` name one), "all" or "detail".
    ``tags``: the head's title, description, canonical and breadcrumbs. ``featured``: a home's cards;
    ``listings``: one page of a city's cards, by tier in ``groups`` on a tab ("city"); ``detail``: the
    listing of a detail page. Cards are None when the caller did not ask for them.
    """

    kind: str
    section: str
    tags: seo.HeadTags
    heading: str
    city_slug: str = ""
    city_name: str = ""
    tab: FilterTab = DEFAULT_TAB
    filters: ListingFilters = NO_FILTERS
    tabs: list[TabLink] = field(default_factory=list)
    chips: list[FilterChip] = field(default_factory=list)
    featured: list[ListingCard] | None = None
    listings: CardPage | None = None
    groups: list[TierGroup] | None = None
    detail: ListingDetail | None = None

    @property
    def total_label(self) -> str:
        """How many listings the city page's filters match: "250 avisos" ("" without listings)."""
        return directory_view.count_label(self.listings) if self.listings else ""

    @property
    def page_label(self) -> str:
        """The pager's "Página 2 de 5" ("" without listings)."""
        return directory_view.page_label(self.listings) if self.listings else ""


async def build_public_view(
    *, path: str, query: str = "", page: int = 1, with_listings: bool = True
) -> PublicPageView | Redirect | NotFound:
    """The view of the public page at ``path`` (its query string ``query`` carries a city's filters).

    ``page``: which page of a city's cards; ``with_listings`` False leaves a home's and a city's cards
    out (the document of a first visit shows the 18+ notice in their place); a detail is always read,
    its head tags need it. A path of the site that is not a page's canonical spelling (app.routes
    :func:`resolve_public_path`), or a detail URL naming a stale city or name, is a :class:`Redirect`.
    """
    view = resolve_public_path(path)
    if view.kind == "redirect":
        return Redirect(view.redirect_to)
    if view.kind == "detail":
        return await _detail_view(view, path)
    if view.kind == "home":
        settings = get_settings()
        return PublicPageView(
            kind="home",
            section=view.section,
            tags=seo.home_tags(section=view.section, site_url=settings.site_url, site_name=settings.site_name),
            heading=seo.home_heading(view.section),
            featured=await directory_cards.featured(view.section) if with_listings else None,
        )
    return await _city_view(view, path, query, page, with_listings)


async def _city_view(view: PublicView, path: str, query: str, page: int, with_listings: bool) -> PublicPageView:
    settings = get_settings()
    filters = await directory_cards.filters_from_query(view.city_slug, query)
    tab = tab_by_slug(view.tab_slug) or DEFAULT_TAB
    name = city_name(view.city_slug)
    listings = groups = None
    if with_listings:
        grouped = view.kind == "city"
        listings = await directory_cards.city_page(view.section, view.city_slug, tab, page, grouped, filters)
        groups = directory_view.tier_groups(listings.cards) if grouped else None
    return PublicPageView(
        kind=view.kind,
        section=view.section,
        tags=seo.city_tags(view=view, site_url=settings.site_url, site_name=settings.site_name, filters=filters),
        heading=directory_view.city_heading(
            section=view.section, city_name=name, kind=view.kind, tab=tab, filters=filters
        ),
        city_slug=view.city_slug,
        city_name=name,
        tab=tab,
        filters=filters,
        tabs=directory_view.tab_links(
            section=view.section, city_slug=view.city_slug, active_slug=tab.slug, filters=filters
        ),
        chips=directory_view.filter_chips(filters, path),
        listings=listings,
        groups=groups,
    )


async def _detail_view(view: PublicView, path: str) -> PublicPageView | Redirect | NotFound:
    settings = get_settings()
    detail = await directory_cards.detail(view.uid)
    if detail is None:
        return NotFound(
            section=view.section, heading=MISSING_HEADING, tags=seo.not_found_tags(site_name=settings.site_name)
        )
    bare = path.rstrip("/")
    if is_pretty_detail_path(bare) and bare != detail.url:
        return Redirect(detail.url)  # a stale city or name in a pretty URL
    return PublicPageView(
        kind="detail",
        section=detail.section,
        tags=seo.detail_tags(detail=detail, site_url=settings.site_url, site_name=settings.site_name),
        heading=detail.display_name,
        city_slug=detail.city_slug,
        city_name=detail.city_name,
        detail=detail,
    )
