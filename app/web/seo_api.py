"""HTTP routes for search engines and link previews: robots.txt, the sitemaps, and every public page's document.

Public documents (/escorts…, /escort/{uid}, the old /{city}), /login and the
information pages are Reflex's exported HTML served here instead of by Reflex's
static mount, with this URL's title, description, canonical, OpenGraph (and
JSON-LD) in the head, and a real status: 301 for a canonical rewrite, 404 for a
URL that does not exist (see :func:`app.seo.resolve_document`). The exported
file is read once per process; the database is read off the event loop, and
only for detail pages.

No URL of the site ends with a slash: ``{path}/`` answers 301 to ``{path}`` when
that names something, and 404 otherwise. :class:`ExportedPages` serves every
other exported page at its own URL (no 307 to ``{path}/``) and gives every path
that names nothing the site's 404 document.

Sitemaps are built from the database on every request (no server cache; what
they list is app.services.sitemap's): a listing shows up in its city's sitemap
as soon as it is published and leaves it as soon as it is not public any more.
Responses say ``max-age=300``, so a shared cache in front of the site may lag
five minutes at most.
"""

from __future__ import annotations

import functools
import gzip
import logging
from dataclasses import dataclass
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import seo
from app.content.legal import LEGAL_PAGES
from app.core.geo import city_by_slug
from app.db import get_engine, read_scope
from app.routes import (
    AREAS,
    FAVOURITES,
    LEGAL_PREFIX,
    LOGIN,
    MY_ACCOUNT,
    NOT_FOUND,
    PUBLIC_HOME,
    SSG_HOME,
    TRANS_HOME,
    legal_path,
)
from app.services import page_cache, sitemap
from app.services.public_view import NotFound, PublicPageView, Redirect, build_public_view
from app.settings import get_settings
from app.states.public import AGE_COOKIE
from app.web import preview

log = logging.getLogger(__name__)

SITEMAP_CACHE = "public, max-age=300"
XML = "application/xml"
GZIP_MIN_BYTES = 1024

# First path segments that are not a city of the old /{city} URL: other pages, Reflex's
# endpoints and the plain HTTP routes. Names with a dot (files) or a leading "_" never are.
RESERVED_SEGMENTS = frozenset(
    {
        *(area.prefix.strip("/") for area in AREAS),
        LOGIN.strip("/"),
        FAVOURITES.strip("/"),
        MY_ACCOUNT.strip("/"),
        LEGAL_PREFIX.strip("/"),
        SSG_HOME.strip("/"),
        NOT_FOUND,
        "assets",
        "auth-codespace",
        "healthz",
        "index",
        "media",
        "ping",
        "privado",
        "sesion",
        seo.SITEMAP_PREFIX.strip("/"),
    }
)


class _OldCitySegment(Convertor[str]):
    """One path segment that may be an old /{city} URL (never a reserved name, a file or a _endpoint)."""

    regex = "(?!(?:" + "|".join(sorted(RESERVED_SEGMENTS)) + ")$)[^/._][^/.]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("old_city", _OldCitySegment())


class _SlashedPath(Convertor[str]):
    """A path before its trailing slash: non-empty segments, the first not a Reflex endpoint (``_event``…)."""

    regex = "[^_/][^/]*(?:/[^/]+)*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("slashed", _SlashedPath())


# --- The exported documents ----------------------------------------------------------------------


def frontend_dir() -> Path:
    """Where Reflex's production build puts the pages (as reflex.utils.exec.get_frontend_mount)."""
    from reflex.utils import prerequisites
    from reflex_base import constants
    from reflex_base.config import get_config

    return prerequisites.get_web_dir() / constants.Dirs.STATIC / get_config().frontend_path.strip("/")


# The prerendered page of each static public route; every dynamic route starts from the SPA fallback.
_EXPORTED = {PUBLIC_HOME: "escorts.html", TRANS_HOME: "escorts/trans.html"}
_SPA_FALLBACK = "404.html"
SITE_CSS = "styles.css"  # assets/styles.css, copied into the build


@functools.lru_cache(maxsize=16)
def _shell(directory: str, name: str, preview: bool, public: bool = False) -> seo.Shell:
    """The exported page ``name`` under ``directory``, split for head tags; read once per process.

    ``preview``: the document will carry a preview of its first screen, so its first paint need not
    wait for the build's stylesheet (app.seo.split_shell); without one, the app must not show unstyled.
    ``public``: that preview is a public page's, which needs none of the app's own pages' styles
    (app.seo.first_screen_css).
    """
    try:
        document = (Path(directory) / name).read_text(encoding="utf-8")
    except OSError:
        log.warning("No exported page %s in %s: serving a bare document", name, directory)
        return seo.FALLBACK_SHELL
    site_css = ""  # then the build's stylesheet stays render-blocking, as Reflex wrote it
    if preview:
        try:
            site_css = seo.first_screen_css((Path(directory) / SITE_CSS).read_text(encoding="utf-8"), public=public)
        except OSError:
            log.warning("No %s in %s: the first paint waits for the build's stylesheet", SITE_CSS, directory)
    return seo.split_shell(document, site_css)


def shell_for(path: str, directory: Path | None = None) -> seo.Shell:
    """The exported document of public ``path`` (its prerendered page, or the SPA fallback), for a preview."""
    return _shell(str(directory or frontend_dir()), _EXPORTED.get(path, _SPA_FALLBACK), preview=True, public=True)


def exported_shell(name: str) -> seo.Shell:
    """The exported page ``name`` (its file under the build, e.g. "admin/publicacion.html"), for a preview."""
    return _shell(str(frontend_dir()), name, preview=True)


@dataclass(frozen=True)
class Document:
    """A document as it is sent (its body gzipped when the client takes it), kept whole in the page cache."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]

    def response(self) -> Response:
        """A new response carrying this document."""
        media_type = "text/html; charset=utf-8" if self.body else None
        return Response(self.body, status_code=self.status, media_type=media_type, headers=dict(self.headers))


def _takes_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")


def _document(
    shell: seo.Shell,
    tags: seo.HeadTags,
    *,
    gzipped: bool,
    status: int = 200,
    preview: str = "",
    headers: dict[str, str] | None = None,
) -> Document:
    """``shell`` with ``tags`` in its head and ``preview`` first in its body, gzipped when ``gzipped``."""
    head = seo.render_head(tags, site_name=get_settings().site_name)
    body = shell.with_head(head, preview + seo.render_structured_data(tags)).encode()
    headers = {"Vary": "Accept-Encoding", **(headers or {})}
    if len(body) >= GZIP_MIN_BYTES and gzipped:
        body = gzip.compress(body, compresslevel=6)
        headers["Content-Encoding"] = "gzip"
    if status == 404 or tags.noindex:
        headers["X-Robots-Tag"] = "noindex"
    return Document(status, body, tuple(headers.items()))


def document_response(
    request: Request,
    shell: seo.Shell,
    tags: seo.HeadTags,
    status: int = 200,
    preview: str = "",
    headers: dict[str, str] | None = None,
) -> Response:
    """``shell`` with ``tags`` in its head and ``preview`` first in its body, gzipped when the client takes it."""
    return _document(
        shell, tags, gzipped=_takes_gzip(request), status=status, preview=preview, headers=headers
    ).response()


def _not_found_document(gzipped: bool) -> Document:
    tags = seo.not_found_tags(site_name=get_settings().site_name)
    return _document(_shell(str(frontend_dir()), _SPA_FALLBACK, preview=False), tags, gzipped=gzipped, status=404)


def _not_found(request: Request) -> Response:
    return _not_found_document(_takes_gzip(request)).response()


@functools.lru_cache(maxsize=1024)
def _exported_page(directory: str, path: str) -> bool:
    """True when Reflex exported ``path`` as a page (``{path}.html`` beside the ``{path}/`` it would 307 to)."""
    if "." in path or path.startswith("/_") or path in ("", "/"):
        return False
    page = Path(directory) / path.strip("/")
    return page.with_name(page.name + ".html").is_file() and (page / "index.html").is_file()


def exported_page(path: str) -> bool:
    """True when ``path`` is a page of the app's build that no plain route answers (the staff areas, /login/accion…)."""
    return _exported_page(str(frontend_dir()), path)


async def page_document(request: Request) -> Response:
    """/login or an information page: the exported page with its own title, description, canonical and OpenGraph."""
    path = request.url.path
    settings = get_settings()
    title, description = _OWN_PAGES[path]
    tags = seo.page_tags(
        title=title, description=description, path=path, site_url=settings.site_url, site_name=settings.site_name
    )
    shell = _shell(str(frontend_dir()), path.strip("/") + ".html", preview=False)
    return document_response(request, shell, tags)


# The pages served with their own head tags by page_document: path → (title, description).
_OWN_PAGES = {
    LOGIN: (seo.LOGIN_TITLE, seo.LOGIN_DESCRIPTION),
    **{legal_path(page.slug): (page.title, page.description) for page in LEGAL_PAGES},
}


def _answers(routes: list[BaseRoute], path: str) -> Route | None:
    """The plain route that answers a GET of ``path`` (Reflex's own mount aside), if any."""
    probe = {"type": "http", "path": path, "method": "GET", "root_path": ""}
    for route in routes:
        if isinstance(route, Route) and route.matches(probe)[0] == Match.FULL:
            return route
    return None


async def trailing_slash(request: Request) -> Response:
    """``{path}/``: 301 to the canonical URL of ``{path}`` when it names a page, a file or a route; 404 otherwise."""
    bare = "/" + request.path_params["path"]
    target = None
    route = _answers(request.app.routes, bare)
    if route is not None and route.endpoint is public_document:
        outcome = seo.resolve_document(bare)
        target = {200: bare, 301: outcome.location}.get(outcome.status)
    elif route is not None or exported_page(bare):
        target = bare
    if target is None:
        return _not_found(request)
    query = request.url.query
    return RedirectResponse(target + (f"?{query}" if query else ""), status_code=301)


class ExportedPages:
    """Reflex's exported pages at their own URL, and the site's 404 document for every path that names nothing.

    - A GET of a page Reflex exported (:func:`exported_page`) that no plain route answers is
      served from ``{path}.html``: Starlette's static files would answer 307 to ``{path}/``.
    - A 404 HTML page from Reflex's static files (no route, page or file) becomes this module's
      404 document (noindex), the same as every other URL that does not exist.

    Added in app.web.api.build_api around its routes and the Reflex app mounted behind them.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if exported_page(path) and _answers(scope["app"].routes, path) is None:
            scope = {**scope, "path": f"{path}.html", "raw_path": f"{path}.html".encode()}
        reflex_404 = False

        async def send_unless_reflex_404(message: Message) -> None:
            nonlocal reflex_404
            if message["type"] == "http.response.start":
                headers = Headers(raw=message["headers"])
                reflex_404 = (
                    message["status"] == 404
                    and headers.get("content-type", "").startswith("text/html")
                    and "x-robots-tag" not in headers
                )
            if not reflex_404:
                await send(message)

        await self.app(scope, receive, send_unless_reflex_404)
        if reflex_404:
            await _not_found(Request(scope))(scope, receive, send)


def _returning_visitor(request: Request) -> bool:
    """True once this device accepted the 18+ notice: only then may listings show before the app runs."""
    return request.cookies.get(AGE_COOKIE) == "1"


def _first_screen(built: PublicPageView, path: str, shell: seo.Shell, adult: bool) -> str:
    """The preview of a public page (app.web.preview) from its view: the first cards of a home or city page,
    or the 18+ notice on a first visit (``built`` has no cards then), or a detail's first screen."""
    theme = shell.theme_attributes
    if built.detail is not None:
        return preview.detail_preview(built.detail, adult=adult, path=built.detail.url, theme_attributes=theme)
    if built.kind == "home":
        return preview.home_preview(
            section=built.section, heading=built.heading, featured=built.featured, path=path, theme_attributes=theme
        )
    shown = None
    if built.listings is not None:
        shown = preview.CityListings(
            total=built.listings.total, cards=built.listings.cards, groups=built.groups, total_label=built.total_label
        )
    return preview.city_preview(
        section=built.section,
        city_slug=built.city_slug,
        heading=built.heading,
        tabs=built.tabs,
        path=path,
        filtered=built.filters.active,
        chips=built.chips,
        return_to=built.filters.url(path),
        listings=shown,
        theme_attributes=theme,
    )


async def public_document(request: Request) -> Response:
    """A public page's HTML: its own head tags and first screen, 301 to its canonical spelling, or 404.

    Which URLs are pages, redirects or not found is :func:`app.seo.resolve_document`'s; what a page shows is
    its view (app.services.public_view), the one the running page's state shows too. Listings come first
    only to a returning visitor (18+ notice accepted on this device). The answer is the same for everyone
    who asks for the same address alike (18+ notice, gzip), so it is kept whole in the page cache
    (app.services.page_cache) until anything it shows may have changed: it holds nothing of the visitor.
    """
    path, query = request.url.path, request.url.query
    adult, gzipped = _returning_visitor(request), _takes_gzip(request)
    settings = get_settings()
    key = ("document", str(frontend_dir()), settings.site_url, settings.page_size, path, query, adult, gzipped)
    document = await page_cache.cached_async(
        key, get_engine(), functools.partial(_public_document, path, query, adult=adult, gzipped=gzipped)
    )
    return document.response()


async def _public_document(path: str, query: str, *, adult: bool, gzipped: bool) -> Document:
    outcome = seo.resolve_document(path)
    if outcome.status == 301:
        return _redirect(outcome.location + (f"?{query}" if query else ""))
    if outcome.status == 404 or outcome.view is None:
        return _not_found_document(gzipped)
    built = await build_public_view(path=path, query=query, with_listings=adult)
    if isinstance(built, NotFound):
        return _not_found_document(gzipped)
    if isinstance(built, Redirect):
        return _redirect(built.location)
    shell = shell_for(path)
    return _document(shell, built.tags, gzipped=gzipped, preview=_first_screen(built, path, shell, adult))


def _redirect(location: str) -> Document:
    """A permanent redirect to ``location`` (its address quoted as Starlette's RedirectResponse does)."""
    return Document(301, b"", (("location", RedirectResponse(location).headers["location"]),))


# --- robots.txt and sitemaps ---------------------------------------------------------------------


async def robots(_: Request) -> Response:
    """/robots.txt as text, naming the sitemap index by its absolute URL."""
    text = seo.robots_txt(site_url=get_settings().site_url)
    return PlainTextResponse(text, headers={"Cache-Control": "public, max-age=3600"})


def _xml(document: str) -> Response:
    return Response(document, media_type=XML, headers={"Cache-Control": SITEMAP_CACHE})


def _xml_not_found() -> Response:
    return PlainTextResponse("No existe ese sitemap.", status_code=404, headers={"Cache-Control": "no-store"})


def _index_entries() -> list[sitemap.Entry]:
    with read_scope() as session:
        return sitemap.index_entries(session=session, site_url=get_settings().site_url)


async def sitemap_index(_: Request) -> Response:
    """/sitemap.xml: the index of the site-pages sitemap and one sitemap per section and city."""
    return _xml(seo.sitemap_index_xml(await run_in_threadpool(_index_entries)))


async def pages_sitemap(_: Request) -> Response:
    """The section homes and the information pages."""
    site = get_settings().site_url
    paths = [PUBLIC_HOME, TRANS_HOME, *(legal_path(page.slug) for page in LEGAL_PAGES)]
    return _xml(seo.urlset_xml((site + path, None) for path in paths))


def _city_entries(section: str, city_slug: str, page: int) -> list[sitemap.Entry] | None:
    with read_scope() as session:
        return sitemap.city_entries(
            session=session, site_url=get_settings().site_url, section=section, city_slug=city_slug, page=page
        )


_SECTIONS_BY_SEGMENT = {segment: section for section, segment in seo.SECTION_SITEMAP_SEGMENTS.items()}


async def city_sitemap(request: Request) -> Response:
    """/sitemaps/{section}/{city}.xml (and /{page}.xml): the city page, its tabs and its public listings."""
    section = _SECTIONS_BY_SEGMENT.get(request.path_params["section"])
    city = city_by_slug(request.path_params["city"])
    page = request.path_params.get("page", 1)
    if section is None or city is None or city.slug != request.path_params["city"] or page < 1:
        return _xml_not_found()
    entries = await run_in_threadpool(_city_entries, section, city.slug, page)
    if entries is None:
        return _xml_not_found()
    return _xml(seo.urlset_xml(entries))


ROUTES = [
    Route("/robots.txt", robots, methods=["GET"]),
    Route("/sitemap.xml", sitemap_index, methods=["GET"]),
    Route(f"{seo.SITEMAP_PREFIX}/paginas.xml", pages_sitemap, methods=["GET"]),
    Route(seo.SITEMAP_PREFIX + "/{section}/{city}.xml", city_sitemap, methods=["GET"]),
    Route(seo.SITEMAP_PREFIX + "/{section}/{city}/{page:int}.xml", city_sitemap, methods=["GET"]),
    Route(LOGIN, page_document, methods=["GET"]),
    *(Route(legal_path(page.slug), page_document, methods=["GET"]) for page in LEGAL_PAGES),
    # Before the public documents, whose /escorts/{rest} would take /escorts/{city}/ too.
    Route("/{path:slashed}/", trailing_slash, methods=["GET"]),
    # Public documents; they come after every other plain route, and "/{city}" never takes a
    # reserved first segment, so the other pages and Reflex's own endpoints still answer.
    Route("/", public_document, methods=["GET"]),
    Route(PUBLIC_HOME, public_document, methods=["GET"]),
    Route(PUBLIC_HOME + "/{rest:path}", public_document, methods=["GET"]),
    Route("/escort/{rest:path}", public_document, methods=["GET"]),
    Route("/{segment:old_city}", public_document, methods=["GET"]),
]
"""Added last to app.web.api.build_api's routes."""
