"""The first screen of an interactive public page, as HTML inside the served document.

A home, city or detail page is a Reflex page: its cards arrive over the
websocket after the JavaScript has loaded, connected and hydrated, about 700 ms
after the document on these machines. So that nobody waits for that,
:mod:`app.web.seo_api` puts this preview in the document's body: the
same header, heading, tabs and first page of cards for a returning visitor
(18+ notice accepted), or the 18+ notice for a first visit, with the same
markup and classes as the components in app.components and app.pages.public,
so it looks the same and every link works without JavaScript (the notice is
a form posting to the same confirmation as the SSG pages). It comes first in
<body>, so the browser parses it before the body's inline scripts (which wait
for the stylesheet), and React's hydration skips it (an element React did not
render, in <body>); the app's own page stays hidden while it is there
(assets/styles.css) until
assets/site.js sees the app's listings or notice in place
(``READY_ATTRIBUTE``, ``.age-gate``) and removes the preview. On a home, city or
detail page the preview is the page until a visitor not signed in first moves: only
then does site.js start the app; a detail's preview counts its view and contact
presses itself (``POST /contar``, app.web.api.count_hit).

The markup is in app/web/templates/preview/ (the cards in cards.html, shared with
the SSG pages); every value is escaped. Nothing here is secret or personal.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from app.core.geo import cities_by_region
from app.models import ListingCard, ListingDetail
from app.pages.public import (
    ALL_HEADING,
    ALL_TAB_LABEL,
    CLEAR_FILTERS,
    FILTER_CHIPS,
    FILTERS_ACTIVE_BUTTON,
    FILTERS_BUTTON,
    NO_MATCH,
    REMOVE_FILTER,
)
from app.routes import COUNT_HIT, REPORT_LISTING_PARAM, REPORT_PATH, section_home
from app.services import stats
from app.services.directory_view import FilterChip, TabLink, TierGroup
from app.web.rendering import render

PREVIEW_ID = "vista-previa"


def _render(
    template: str, theme_attributes: str, *, signed_in: bool = False, public: bool = False, **context: object
) -> str:
    """``public``: a home, city or detail page, whose app assets/site.js starts on the visitor's first move."""
    # The theme root's attributes come from the exported page, not from a visitor: kept as they are.
    theme = Markup(theme_attributes)
    return render(template, preview_id=PREVIEW_ID, theme=theme, signed_in=signed_in, public=public, **context)


@dataclass(frozen=True)
class CityListings:
    """The first page of a city: ``groups`` by tier on a tab, or ``cards`` on a city's every-listing page, /all (groups None)."""

    total: int
    cards: list[ListingCard]
    groups: list[TierGroup] | None
    total_label: str  # "250 avisos", "Más de 1.000 avisos" (directory_view.count_label)


def city_preview(
    *,
    section: str,
    city_slug: str,
    heading: str,
    tabs: list[TabLink],
    path: str,
    listings: CityListings | None,
    filtered: bool = False,
    chips: list[FilterChip] | None = None,
    return_to: str = "",
    theme_attributes: str = "",
) -> str:
    """A city page's first screen (app.pages.public._city); ``listings`` None: the 18+ notice in their place.

    ``filtered``: the page shows filters (the button says so, an empty result offers to clear them);
    ``chips``: those filters, each a link to the page without it;
    ``return_to``: where the notice brings the visitor back to (``path`` with its filters; default ``path``).
    """
    return _render(
        "preview/city.html",
        theme_attributes,
        public=True,
        home=section_home(section),
        city_slug=city_slug,
        heading=heading,
        tabs=tabs,
        path=path,
        listings=listings,
        all_tab_label=ALL_TAB_LABEL,
        all_heading=ALL_HEADING,
        filtered=filtered,
        return_to=return_to or path,
        filters_button=FILTERS_ACTIVE_BUTTON if filtered else FILTERS_BUTTON,
        chips=chips or [],
        filter_chips=FILTER_CHIPS,
        remove_filter=REMOVE_FILTER,
        clear_filters=CLEAR_FILTERS,
        no_match=NO_MATCH,
    )


def home_preview(
    *, section: str, heading: str, featured: list[ListingCard] | None, path: str, theme_attributes: str = ""
) -> str:
    """A section home's first screen (app.pages.public._home); ``featured`` None: the 18+ notice in their place."""
    return _render(
        "preview/home.html",
        theme_attributes,
        public=True,
        home=section_home(section),
        heading=heading,
        featured=featured,
        path=path,
        regions=cities_by_region(),
    )


def detail_preview(detail: ListingDetail, *, adult: bool, path: str, theme_attributes: str = "") -> str:
    """A detail page's first screen (app.pages.public._detail), contact buttons included; the notice unless ``adult``."""
    return _render(
        "preview/detail.html",
        theme_attributes,
        public=True,
        count_url=COUNT_HIT,
        counts={"view": stats.VIEW, "whatsapp": stats.WHATSAPP, "call": stats.CALL},
        home=section_home(detail.section),
        detail=detail,
        adult=adult,
        path=path,
        report_url=f"{REPORT_PATH}?{REPORT_LISTING_PARAM}={detail.uid}",
    )


@dataclass(frozen=True)
class GuardedScreen:
    """The static top of a guarded page (as its page component draws it), shown before the app to the callers it admits.

    ``heading`` "": the page's title depends on the caller's data (the wizard's on the draft), so its place is kept
    blank; ``greeting``: a line is kept for the greeting under the title; ``nav``: a staff area's links (href,
    label), named ``nav_label``; ``css``: the class of the page's section.
    """

    intro: str
    css: str
    heading: str = ""
    greeting: bool = False
    nav: tuple[tuple[str, str], ...] = ()
    nav_label: str = ""


def message_page(
    *, heading: str, text: str, action: str, href: str, signed_in: bool, stylesheet: str, go_on: str = ""
) -> str:
    """A whole server-rendered page in the site's frame (its header, app/web/templates/preview/frame.html, and
    the site's ``stylesheet``): a heading, one paragraph and one link; no script, not indexed. ``go_on``: a
    same-site address the browser opens at once (a download, which leaves this page on screen)."""
    frame = _render(
        "preview/message.html", "", signed_in=signed_in, heading=heading, text=text, action=action, href=href
    )
    # The frame was rendered with autoescape: kept as it is.
    return render("message.html", heading=heading, stylesheet=stylesheet, frame=Markup(frame), go_on=go_on)


def private_preview(
    *, signed_in: bool, screen: GuardedScreen | None = None, path: str = "", theme_attributes: str = ""
) -> str:
    """The first screen of a guarded page at ``path``: the frame and the access check, with the page's static
    ``screen`` when the caller is one it admits; nothing of the caller's data (the app brings that)."""
    return _render("preview/private.html", theme_attributes, signed_in=signed_in, screen=screen, path=path)
