"""State of the public directory: home, city pages, sections and listing detail.

Everything here is public data; handlers still validate every input (the
path, the page number) because any client can call them with anything.

The cards of the home and city pages and the listing details come from the
versioned cache of app.services.page_cache (shared with /escorts-ssg): a
query runs once per page or listing after each change of the listings, not on
every load and paging event.

The detail page counts its views and contact clicks (app.services.stats) on
a thread of its own, once a second for all of them, after the handler has
returned: counting never holds up the page, and a failure is logged and dropped.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import reflex as rx
from reflex_base.event import EventSpec

from app.core.money import format_currency
from app.db import session_scope
from app.identity.sessions import cookie_value, resolve_session
from app.models import ListingCard, ListingDetail, Section
from app.models.filter_tabs import DEFAULT_TAB, tab_by_slug
from app.models.listing_filters import (
    AGE_MAX_PARAM,
    AGE_MIN_PARAM,
    COMMUNE_PARAM,
    MAX_FILTER_VALUE,
    PRICE_MAX_PARAM,
    PRICE_MIN_PARAM,
    SERVICE_PARAM,
    ListingFilters,
    read_typed_filters,
)
from app.routes import section_home
from app.services import directory_cards, directory_view, listings, stats
from app.services.abuse import client_key
from app.services.directory_view import FilterChip, FilterChoice, TabLink, TierGroup
from app.services.public_view import NotFound, PublicPageView, Redirect, build_public_view
from app.settings import get_settings
from app.states.auth import AuthState, connection_session_hash, public

log = logging.getLogger(__name__)

AGE_COOKIE = "mayor_de_edad"
# The filter fields a visitor sets one at a time (services are toggled): URL parameter -> draft var.
FILTER_FIELDS = {
    COMMUNE_PARAM: "draft_commune",
    PRICE_MIN_PARAM: "draft_price_min",
    PRICE_MAX_PARAM: "draft_price_max",
    AGE_MIN_PARAM: "draft_age_min",
    AGE_MAX_PARAM: "draft_age_max",
}
FILTER_FORM = "filtros"  # the filter form: its fields' ids are "filtros-{URL parameter}"
AGE_COOKIE_MAX_AGE = 365 * 24 * 3600


def age_cookie() -> str:
    """The 18+ cookie, both as the no-JavaScript form's Set-Cookie value and as the app's page writes it.

    A year on the whole site, SameSite=Lax, and Secure when SITE_URL is https
    (``settings.is_https``, as the session cookie), read when it is set: the
    exported frontend cannot know, it is built before SITE_URL is given.
    """
    morsel = SimpleCookie({AGE_COOKIE: "1"})[AGE_COOKIE]
    morsel["max-age"] = AGE_COOKIE_MAX_AGE
    morsel["path"] = "/"
    morsel["samesite"] = "Lax"
    morsel["secure"] = get_settings().is_https
    return morsel.OutputString()


# Counting has a thread of its own (a stalled database must not take the threads the page queries run on).
# Hits are gathered and counted together once COUNT_SECONDS after the first of a batch: one transaction a
# second per process, not one per view. When this many wait, new ones are dropped, not queued; those of the
# last second are lost when the process stops.
COUNT_SECONDS = 1.0
COUNT_BACKLOG = 500


@dataclass(frozen=True)
class _Pending:
    listing_uid: str
    kind: str
    visitor: str
    token_hash: str


class CountBatches:
    """The detail pages' views and clicks of this process, counted in batches on a thread of their own."""

    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        self._changed = threading.Condition()
        self._counting = False
        self._thread: threading.Thread | None = None

    def add(self, hit: _Pending) -> bool:
        """Hand one hit over and return at once; False when the backlog is full (the hit is dropped)."""
        with self._changed:
            if len(self._pending) >= COUNT_BACKLOG:
                return False
            self._pending.append(hit)
            if self._thread is None or not self._thread.is_alive():  # started here: a forked worker has none
                self._thread = threading.Thread(target=self._run, name="estadisticas", daemon=True)
                self._thread.start()
            self._changed.notify_all()
        return True

    def wait_until_counted(self, timeout: float) -> None:
        """Wait until every hit handed over so far is counted (or dropped); TimeoutError after ``timeout`` s."""
        with self._changed:
            if not self._changed.wait_for(lambda: not self._pending and not self._counting, timeout):
                raise TimeoutError(f"listing counts still waiting after {timeout} s")

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._pending))
                self._counting = True
                deadline = time.monotonic() + COUNT_SECONDS  # the rest of the second's hits join this batch
                while (left := deadline - time.monotonic()) > 0:
                    self._changed.wait(left)
                batch, self._pending = self._pending, []
            try:
                _count(batch)
            finally:
                with self._changed:
                    self._counting = False
                    self._changed.notify_all()


def _count(batch: list[_Pending]) -> None:
    """Count one batch; each caller's session decides whether they are the owner or staff."""
    try:
        with session_scope() as session:
            idle_days = get_settings().session_idle_days
            actors = {
                token_hash: resolve_session(session=session, token_hash=token_hash, idle_days=idle_days).actor
                for token_hash in {hit.token_hash for hit in batch if hit.token_hash}
            }
            hits = [stats.Hit(hit.listing_uid, hit.kind, hit.visitor, actors.get(hit.token_hash)) for hit in batch]
            stats.record_many(session=session, hits=hits, today=listings.clock().today)
    except Exception as exc:  # a statistic is never worth a broken page
        log.warning("listing counts dropped: %d (%s)", len(batch), type(exc).__name__)


count_batches = CountBatches()


def count_later(listing_uid: str, kind: str, address: str, token_hash: str) -> None:
    """Hand one count to the counting thread and return at once (dropped when it is far behind)."""
    visitor = client_key(address, get_settings().secret_key)
    if not count_batches.add(_Pending(listing_uid, kind, visitor, token_hash)):
        log.warning("listing %s: %s not counted (backlog full)", listing_uid, kind)


def _text(number: int | None) -> str:
    return "" if number is None else str(number)


def _pesos(number: int | None) -> str:
    """A rate as the form shows it, the way it is typed: "130.000"."""
    return "" if number is None else format_currency(number, symbol=None)


class AgeGateState(rx.State):
    """The 18+ notice: accepted once per device (the cookie of age_cookie, which the SSG pages share).

    The cookie is read from the websocket's handshake, not through an ``rx.Cookie``: Reflex writes
    an ``rx.Cookie`` back whenever its value reaches the page (when the page hydrates, too), with
    the options compiled into the frontend, which cannot follow SITE_URL (see age_cookie).
    """

    # Confirmed in this tab (the page has written the cookie).
    confirmed: bool = False

    @public
    def accept(self) -> EventSpec:
        """The visitor confirms they are of age: the notice closes and the page stores the cookie."""
        self.confirmed = True
        return rx.call_script(f"document.cookie = {json.dumps(age_cookie())}")

    @rx.var
    def accepted(self) -> bool:
        """True once the visitor confirmed being 18 or older on this device."""
        return self.confirmed or cookie_value(self.router.headers.cookie, AGE_COOKIE) == "1"


class DirectoryState(rx.State):
    """What the current public page shows."""

    view: str = "loading"
    section: str = Section.MUJERES.value
    city_slug: str = ""
    city_name: str = ""
    tab_slug: str = DEFAULT_TAB.slug
    heading: str = ""
    featured: rx.Field[list[ListingCard]] = rx.field(default_factory=list)
    groups: list[TierGroup] = []
    cards: list[ListingCard] = []
    tabs: list[TabLink] = []
    page: int = 1
    page_count: int = 1
    total: int = 0
    total_label: str = ""  # "250 avisos", "Más de 1.000 avisos" (app.services.directory_view.count_label)
    page_label: str = ""  # "Página 2 de 5", "Página 2" past the count's cap
    detail: ListingDetail | None = None
    # The document's title once the page runs (the server-sent document carries the same; app.seo).
    page_title: str = get_settings().site_name
    # The path whose content is shown (set when it is loaded): the server's preview of this path's
    # first screen (app.web.preview) leaves only once the app shows the same path.
    shown_path: str = ""
    # The filters (app.models.listing_filters): those applied (in the URL) and the form's, not applied
    # yet, with how many listings they match.
    commune_options: list[list[str]] = []  # [id, name] of each commune the city's listings name
    services: list[FilterChoice] = []
    filtered: bool = False
    filter_query: str = ""  # the applied filters' canonical query string
    chips: rx.Field[list[FilterChip]] = rx.field(
        default_factory=list
    )  # the applied filters, each with the page's URL without it
    unfiltered_url: str = ""
    draft_commune: str = ""
    draft_price_min: str = ""
    draft_price_max: str = ""
    draft_age_min: str = ""
    draft_age_max: str = ""
    draft_services: rx.Field[list[str]] = rx.field(default_factory=list)
    filter_errors: dict[str, str] = {}  # URL parameter -> what the form could not read in that field
    draft_total: int = 0
    draft_label: str = ""  # the form's button: "Ver 3 avisos", "Ver más de 1.000 avisos"

    @rx.var
    def section_home(self) -> str:
        """URL of the current section's home."""
        return section_home(self.section)

    @rx.var
    def is_trans(self) -> bool:
        """True on the trans section."""
        return self.section == Section.TRANS

    @public
    async def load(self) -> list[EventSpec]:
        """A public page's whole load in one event: the session check every public page starts with
        (``AuthState.check_session``), then the page itself. Each event costs a round trip of the state
        (with Redis: lock, read, write, unlock), so the directory, the pages people load most, makes one."""
        auth = await self.get_state(AuthState)
        events = await auth._check_session()
        shown = await self._load_path()
        return events if shown is None else [*events, shown]

    async def _load_path(self) -> EventSpec | None:
        """Show the browser path's view (app.services.public_view), or redirect to its canonical path."""
        url = self.router.url  # read once: each read of the router assembles it anew
        built = await build_public_view(path=url.path, query=url.query)
        if isinstance(built, Redirect):
            return rx.redirect(built.location, replace=True)
        self._change(page=1)
        if isinstance(built, NotFound):
            self._change(
                view="missing",
                section=built.section,
                city_slug="",
                city_name="",
                tab_slug=DEFAULT_TAB.slug,
                heading=built.heading,
                page_title=built.tags.title,
                detail=None,
            )
        else:
            self._show(built)
            if built.listings is not None:
                await self._show_filters(built, built.listings, url.path)
        self._change(shown_path=url.path)
        return None

    def _change(self, **values: object) -> None:
        """Set the vars whose value differs: an unchanged var is not sent again.

        Each view shows only its own vars (app.pages.public matches on ``view``), so a detail leaves the list it
        was opened from in place, and going back to it sends the view's name, not its cards again.
        """
        held = self.__dict__  # a field's value, read as it is: getattr wraps a list in a new MutableProxy each time
        for name, value in values.items():
            current = held[name] if name in held else getattr(self, name)  # not read yet: its default
            if current != value:
                setattr(self, name, value)

    def _show(self, built: PublicPageView) -> None:
        """Put the view's fields into the vars; a detail's view is counted."""
        self._change(
            view=built.kind,
            section=built.section,
            city_slug=built.city_slug,
            city_name=built.city_name,
            tab_slug=built.tab.slug,
            heading=built.heading,
            page_title=built.tags.title,
            detail=built.detail,
        )
        if built.featured is not None:
            self._change(featured=built.featured)
        if built.kind != "detail":
            self._change(tabs=built.tabs)
        if built.listings is not None:
            self._show_listings(built, built.listings)
        if built.kind == "detail":
            self._count(stats.VIEW)

    def _show_listings(self, built: PublicPageView, result: listings.CardPage) -> None:
        """One page of a city's cards, with its count, pager and heading."""
        self._change(
            total=result.total,
            page_count=result.page_count,
            total_label=built.total_label,
            page_label=built.page_label,
            heading=built.heading,
            groups=built.groups or [],
            cards=[] if built.groups is not None else result.cards,
        )

    async def _show_filters(self, built: PublicPageView, result: listings.CardPage, path: str) -> None:
        """The city page's filters at ``path``: those applied, as chips, and the form showing them with its
        choices."""
        self._change(
            filtered=built.filters.active,
            filter_query=built.filters.query_string(),
            unfiltered_url=path,
            chips=built.chips,
        )
        self._show_draft(built.filters)
        communes = await directory_cards.commune_counts(self.section, self.city_slug)
        services = await directory_cards.service_options()
        self._change(
            commune_options=[[found.commune.id, found.commune.name] for found in communes],
            services=[FilterChoice(value=option.slug, label=option.name) for option in services],
            draft_total=result.total,
            draft_label=directory_view.apply_label(result),
        )

    def _show_draft(self, filters: ListingFilters) -> None:
        """The filter form shows ``filters``."""
        self._change(
            draft_commune=filters.commune.id if filters.commune else "",
            draft_price_min=_pesos(filters.price_min),
            draft_price_max=_pesos(filters.price_max),
            draft_age_min=_text(filters.age_min),
            draft_age_max=_text(filters.age_max),
            draft_services=[service.slug for service in filters.services],
            filter_errors={},
        )

    async def _draft_filters(self) -> ListingFilters:
        """The form's filters: the commune, the rates and ages it could read (a message for each field it
        could not, in ``filter_errors``) and the services."""
        typed = read_typed_filters({name: getattr(self, var) for name, var in FILTER_FIELDS.items()})
        self.filter_errors = typed.errors
        pairs: list[tuple[str, str | int]] = [(COMMUNE_PARAM, self.draft_commune), *typed.values.items()]
        pairs += [(SERVICE_PARAM, slug) for slug in self.draft_services]
        query = urlencode([(name, value) for name, value in pairs if value != ""])
        return await directory_cards.filters_from_query(self.city_slug, query)

    async def _count_draft(self) -> None:
        """How many listings the form's filters match (a count alone: page 1 of them, without its cards)."""
        tab = tab_by_slug(self.tab_slug) or DEFAULT_TAB
        filters = await self._draft_filters()
        result = await directory_cards.city_count(self.section, self.city_slug, tab, filters)
        self.draft_total = result.total
        self.draft_label = directory_view.apply_label(result)

    @public
    async def set_filter(self, field: str, value: str) -> None:
        """The visitor changed one field of the filter form: keep it (not applied yet) and count the matches."""
        if self.view not in ("city", "all") or field not in FILTER_FIELDS or not isinstance(value, str):
            return
        setattr(self, FILTER_FIELDS[field], value.strip()[:MAX_FILTER_VALUE])
        await self._count_draft()

    @public
    async def toggle_service(self, slug: str, checked: bool) -> None:
        """The visitor ticked or unticked a service in the filter form (not applied yet); count the matches."""
        known = {choice.value for choice in self.services}
        if self.view not in ("city", "all") or slug not in known or not isinstance(checked, bool):
            return
        chosen = [value for value in self.draft_services if value != slug]
        self.draft_services = [*chosen, slug] if checked else chosen
        await self._count_draft()

    @public
    async def apply_filters(self) -> EventSpec | None:
        """Show the form's filters: their URL, which the page then loads; while a field has a message, go to it instead."""
        if self.view not in ("city", "all"):
            return None
        filters = await self._draft_filters()
        if self.filter_errors:
            return rx.set_focus(f"{FILTER_FORM}-{next(name for name in FILTER_FIELDS if name in self.filter_errors)}")
        return rx.redirect(filters.url(self.unfiltered_url))

    def _count(self, kind: str) -> None:
        """Count a view or contact click of the detail shown (its uid was resolved here, never sent)."""
        if self.view == "detail" and self.detail is not None:
            count_later(self.detail.uid, kind, self.router.session.client_ip or "", connection_session_hash())

    @public
    def count_whatsapp(self) -> None:
        """The visitor pressed the WhatsApp button of the listing shown (counted at most once a day)."""
        self._count(stats.WHATSAPP)

    @public
    def count_call(self) -> None:
        """The visitor pressed the call button of the listing shown (counted at most once a day)."""
        self._count(stats.CALL)

    async def _turn_page(self, page: int) -> EventSpec:
        """Show page ``page`` of the cards of the path shown, with the URL's filters, and scroll to the top."""
        url = self.router.url
        built = await build_public_view(path=url.path, query=url.query, page=page)
        if isinstance(built, PublicPageView) and built.listings is not None:
            self.page = page
            self._show_listings(built, built.listings)
        return rx.call_script("window.scrollTo(0, 0)")

    @public
    async def next_page(self) -> EventSpec | None:
        """Show the next page of cards."""
        if self.view in ("city", "all") and self.page < self.page_count:
            return await self._turn_page(self.page + 1)
        return None

    @public
    async def previous_page(self) -> EventSpec | None:
        """Show the previous page of cards."""
        if self.view in ("city", "all") and self.page > 1:
            return await self._turn_page(self.page - 1)
        return None
