"""Plain HTTP routes beside the Reflex app: SSG pages, listing photos (/media), detail counts (/contar) and health.

Handed to the app's ``api_transformer`` by the composition root (app.app), which
passes the ``rx.App`` in for the upload route; these routes answer before the
compiled frontend, so /escorts-ssg is real HTML from the server. A GET of
Reflex's websocket or upload endpoint gets a plain 404 or 405, not the app's page.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from reflex.app import App
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from app import seo
from app.core.errors import InvalidInputError, NotFoundError
from app.core.geo import City, Commune, city_by_slug, city_communes, place_name
from app.db import get_engine, read_scope, session_scope
from app.models import ListingCard, Section
from app.models.filter_tabs import DEFAULT_TAB
from app.models.listing_filters import ListingFilters
from app.routes import (
    AGE_FORM_PATH,
    COUNT_HIT,
    FAVOURITE_CARDS,
    SSG_HOME,
    SSG_PAGE_PARAM,
    resolve_ssg_city,
    resolve_ssg_page,
    safe_age_next,
    ssg_page_url,
)
from app.services import city_filters, favourites, listing_photos, listing_videos, listings, page_cache, stats
from app.services.directory_view import published_label
from app.services.public_view import PublicPageView, build_public_view
from app.settings import Settings, get_settings
from app.states.public import AGE_COOKIE, age_cookie, count_later
from app.storage import InvalidKeyError, Storage, check_key
from app.storage.factory import get_storage
from app.web import ssg, video_api
from app.web.cookies import request_session_hash, session_actor, session_routes
from app.web.middleware import client_address, from_this_site
from app.web.outage import DatabaseOutagePage
from app.web.private_api import ROUTES as PRIVATE_ROUTES
from app.web.rendering import render
from app.web.seo_api import ROUTES as SEO_ROUTES
from app.web.seo_api import ExportedPages

log = logging.getLogger(__name__)

CACHE_SECONDS = 60
FORM_URLENCODED = "application/x-www-form-urlencoded"
# The age form carries one short path; anything larger is not that form.
AGE_FORM_MAX_BYTES = 2048
JSON_TYPE = "application/json"
CROSS_SITE_FORM = "Solicitud rechazada: este formulario solo se puede enviar desde una página del sitio."
# A list of MAX_FAVOURITES uids of 40 characters and their names (up to 60 characters of up to 4 bytes),
# quoted and separated, with room to spare.
FAVOURITES_MAX_BYTES = 80 * 1024
# A detail's path (at most a few hundred characters) and a kind.
COUNT_MAX_BYTES = 1024
COUNT_REFUSED = "Solicitud no válida."
NO_STORE = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}


def _adult(request: Request) -> bool:
    return request.cookies.get(AGE_COOKIE) == "1"


def _html(document: str) -> HTMLResponse:
    return HTMLResponse(document, headers={"Cache-Control": f"private, max-age={CACHE_SECONDS}", "Vary": "Cookie"})


async def ssg_home(request: Request) -> Response:
    """/escorts-ssg: cities and featured cards as plain HTML (cached: :mod:`app.services.page_cache`)."""
    adult_ok = _adult(request)
    document = await page_cache.cached(
        ("home", *_page_inputs(), adult_ok), get_engine(), lambda: _home_document(adult_ok)
    )
    return _html(document)


def _page_inputs() -> tuple[str, int]:
    """The settings a page's HTML depends on besides its own parameters (part of every cache key)."""
    settings = get_settings()
    return (settings.site_url, settings.page_size)


def _heading(place: str) -> str:
    """The heading of an SSG page (and its breadcrumb's label): "Escorts en Viña del Mar" (the SSG pages are the
    women's section's)."""
    return seo.place_heading(Section.MUJERES.value, place)


def _home_document(adult_ok: bool) -> str:
    site = get_settings().site_url
    return ssg.render_page(
        title=f"{seo.home_heading(Section.MUJERES.value)} | {get_settings().site_name}",
        description="Avisos de escorts en las principales ciudades de Chile, revisados antes de publicarse.",
        canonical=f"{site}{SSG_HOME}",
        heading=seo.home_heading(Section.MUJERES.value),
        body=ssg.home_body(_featured_cards()),
        adult_ok=adult_ok,
        path=SSG_HOME,
    )


def _featured_cards() -> list[ListingCard]:
    with read_scope() as session:
        return listings.featured_cards(session=session, section=Section.MUJERES.value)


async def ssg_city(request: Request) -> Response:
    """/escorts-ssg/{city}: one page of a city's cards as plain HTML (cached: :mod:`app.services.page_cache`).

    ``pagina`` follows :func:`resolve_ssg_page`; a page past the last is not found.
    """
    return await _ssg_city_page(request, request.path_params["city"], None)


async def ssg_commune(request: Request) -> Response:
    """/escorts-ssg/{city}/{commune}: a commune's page, the city's cards of that commune alone (as ssg_city).

    A commune the city does not have, or one without public listings, is not found.
    """
    return await _ssg_city_page(request, request.path_params["city"], request.path_params["commune"])


async def _ssg_city_page(request: Request, raw_city: str, commune_id: str | None) -> Response:
    city_slug, redirect = resolve_ssg_city(raw_city)
    if redirect:
        if commune_id is not None and redirect != SSG_HOME:
            redirect = f"{redirect}/{commune_id}"
        return RedirectResponse(redirect, status_code=301)
    # Without a redirect, resolve_ssg_city gave the slug of a known city.
    city: City = city_by_slug(city_slug)  # type: ignore[assignment]
    commune = None
    if commune_id is not None:
        commune = next((each for each in city_communes(city.slug) if each.id == commune_id), None)
        if commune is None:
            return _page_not_found(f"{SSG_HOME}/{city.slug}", city.name)
    path = _ssg_path(city.slug, commune)
    wanted = resolve_ssg_page(path, request.query_params.getlist(SSG_PAGE_PARAM))
    if wanted.redirect_to:
        return RedirectResponse(wanted.redirect_to, status_code=301)
    if not wanted.page:
        return _page_not_found(path, city.name)
    adult_ok = _adult(request)
    key = ("city", *_page_inputs(), city.slug, commune, wanted.page, adult_ok)
    document = await page_cache.cached(
        key, get_engine(), lambda: _city_document(city.slug, wanted.page, adult_ok, commune)
    )
    if document is None:
        return _page_not_found(path, city.name)
    return _html(document)


def _ssg_path(city_slug: str, commune: Commune | None) -> str:
    city_path = f"{SSG_HOME}/{city_slug}"
    return city_path if commune is None else f"{city_path}/{commune.id}"


def _city_document(city_slug: str, page: int, adult_ok: bool, commune: Commune | None = None) -> str | None:
    """The HTML of one page of a city (or of one of its communes), or None when it has fewer pages.

    A commune's page exists only while public listings name the commune.
    """
    city: City = city_by_slug(city_slug)  # type: ignore[assignment]  # ssg_city's known city
    city_path = _ssg_path(city_slug, None)
    path = _ssg_path(city_slug, commune)
    filters = ListingFilters(commune=commune)
    with read_scope() as session:
        result = listings.city_cards(
            session=session,
            section=Section.MUJERES.value,
            city_slug=city_slug,
            tab=DEFAULT_TAB,
            page=page,
            filters=filters,
        )
        communes = (
            []
            if commune
            else city_filters.commune_counts(session=session, section=Section.MUJERES.value, city_slug=city_slug)
        )
    if result.page > result.page_count or (commune is not None and result.total == 0):
        return None
    place = place_name(city.name, commune)
    url = ssg_page_url(path, result.page)
    links = [(_ssg_path(city_slug, each.commune), each.commune.name) for each in communes]
    # A commune's page leads back to its city (a city's page has the header's link to the home).
    breadcrumbs = (
        []
        if commune is None
        else [(SSG_HOME, seo.home_heading(Section.MUJERES.value)), (city_path, _heading(city.name))]
    )
    return ssg.render_page(
        title=f"{_heading(place)} | {get_settings().site_name}",
        description=f"Avisos de escorts en {place}: fotos, tarifas y contacto. {published_label(result)}.",
        canonical=f"{get_settings().site_url}{url}",
        heading=_heading(place),
        body=ssg.city_body(result, path, links),
        adult_ok=adult_ok,
        path=url,
        breadcrumbs=breadcrumbs,
    )


def _page_not_found(city_path: str, city_name: str) -> HTMLResponse:
    """A plain Spanish 404 that search engines must not index, linking to the city's first page."""
    document = ssg.not_found_page(city_path=city_path, city_name=city_name, site_name=get_settings().site_name)
    return HTMLResponse(document, status_code=404, headers={"X-Robots-Tag": "noindex"})


async def confirm_age(request: Request) -> Response:
    """The no-JavaScript 18+ confirmation: sets the shared cookie and goes back.

    Accepts only a small urlencoded form (415 otherwise, 413 past
    AGE_FORM_MAX_BYTES, never reading further) and returns only to an SSG or public
    directory page (:func:`app.routes.safe_age_next`). A post from another site is
    refused with 403 (:func:`from_this_site`).
    """
    if not from_this_site(request):
        log.warning("age confirmation refused: cross-site post (origin %.80r)", request.headers.get("origin", ""))
        return PlainTextResponse(CROSS_SITE_FORM, status_code=403)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_URLENCODED:
        return PlainTextResponse("Formato de formulario no admitido.", status_code=415)
    body = await _small_body(request, AGE_FORM_MAX_BYTES)
    if body is None:
        return PlainTextResponse("El formulario es demasiado grande.", status_code=413)
    fields = parse_qs(body.decode("utf-8", errors="replace"))
    target = safe_age_next(fields.get("next", [SSG_HOME])[0])
    response = RedirectResponse(target, status_code=303)
    response.headers.append("set-cookie", age_cookie())
    return response


async def _small_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it is known to exceed ``limit`` bytes (the rest is never read)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _favourites_html(uids: list[str], names: dict[str, str]) -> str:
    with read_scope() as session:
        saved = favourites.saved_cards(session=session, uids=uids)
    return render("favourites.html", cards=saved.cards, gone=saved.gone, names=names)


async def favourite_cards(request: Request) -> Response:
    """POST /favoritas/tarjetas: the Favoritas page's list as HTML, ``{"ids": [...], "names": {uid: name}}`` in
    (the names the device kept, for the listings no longer public).

    The favourites stay on the visitor's device (assets/favourites.js); this page still needs the
    listings' public data. The uids travel in a POST body, never in a URL, which would land in the
    access logs of every proxy on the way next to the visitor's address: the record that must not
    exist. The answer is the public cards every city page shows (and which listings are no longer
    public); nothing is kept, no cookie is read or set, no cache keeps it (``no-store``) and nothing
    of the request is logged. Only JSON is taken (no other origin may send or read it without
    asking first); bad input gets 400 with a Spanish message.
    """
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != JSON_TYPE:
        return PlainTextResponse("Formato no admitido.", status_code=415, headers=NO_STORE)
    body = await _small_body(request, FAVOURITES_MAX_BYTES)
    if body is None:
        return PlainTextResponse(favourites.TOO_MANY, status_code=413, headers=NO_STORE)
    try:
        data = json.loads(body)
        uids = favourites.clean_uids(data.get("ids") if isinstance(data, dict) else None)
        names = favourites.clean_names(data.get("names"), uids)
    except ValueError:
        return PlainTextResponse(favourites.LIST_REFUSED, status_code=400, headers=NO_STORE)
    except InvalidInputError as exc:
        return PlainTextResponse(exc.message, status_code=400, headers=NO_STORE)
    return HTMLResponse(await run_in_threadpool(_favourites_html, uids, names), headers=NO_STORE)


async def count_hit(request: Request) -> Response:
    """POST /contar: a detail page's view or contact click, counted by its document before the app runs.

    assets/site.js sends it with a beacon from the page's preview: the page's path (``ruta``) and the
    kind (``tipo``: view, whatsapp, call) in a small urlencoded form. It is counted as the app counts
    (app.states.public.count_later: once a visitor a day, never the listing's owner or staff, off the
    event loop); a path that is no public detail counts nothing. 204 either way, 400 for a form that
    is not one, 403 from another site; nothing of the request is kept or logged but the count.
    """
    if not from_this_site(request):
        return PlainTextResponse(CROSS_SITE_FORM, status_code=403, headers=NO_STORE)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != FORM_URLENCODED:
        return PlainTextResponse("Formato no admitido.", status_code=415, headers=NO_STORE)
    body = await _small_body(request, COUNT_MAX_BYTES)
    fields = parse_qs(body.decode("utf-8", errors="replace")) if body is not None else {}
    path, kind = fields.get("ruta", [""])[0], fields.get("tipo", [""])[0]
    if kind not in stats.KIND_COLUMNS or not path.startswith("/"):
        return PlainTextResponse(COUNT_REFUSED, status_code=400, headers=NO_STORE)
    built = await build_public_view(path=path, with_listings=False)
    if isinstance(built, PublicPageView) and built.detail is not None:
        count_later(built.detail.uid, kind, client_address(request), request_session_hash(request))
    return Response(status_code=204, headers=NO_STORE)


async def health(_: Request) -> Response:
    """Liveness and database check for the hosting team: 503 while the database is unreachable."""
    try:
        await run_in_threadpool(_ping_database)
    except SQLAlchemyError as exc:
        log.warning("Health check: database unavailable (%s)", type(exc).__name__)
        return JSONResponse(
            {"status": "unavailable", "database": "unreachable"},
            status_code=503,
            headers={"Retry-After": "5", "Cache-Control": "no-store"},
        )
    return JSONResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})


def _ping_database() -> None:
    with get_engine().connect() as connection:
        connection.execute(text("SELECT 1"))


PUBLIC_MEDIA_CACHE = "public, max-age=31536000, immutable"
PRIVATE_MEDIA_CACHE = "private, no-store"
VIDEO_TYPE = listing_videos.VIDEO_CONTENT_TYPE
MEDIA_TYPES = {
    ".webp": "image/webp",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".mp4": VIDEO_TYPE,
}
_storage_cache: dict[str, tuple[Settings, Storage]] = {}


def _media_storage() -> Storage:
    """The configured storage, built once per settings object (an S3 client is not free to create)."""
    settings = get_settings()
    cached = _storage_cache.get("media")
    if cached is None or cached[0] is not settings:
        cached = (settings, get_storage(settings))
        _storage_cache["media"] = cached
    return cached[1]


def _media_cache_control(key: str, token_hash: str) -> str | None:
    """How the photo or clip file under ``key`` may be served: publicly, privately (owner, staff), or not at all."""
    with session_scope() as session:
        if listing_photos.public_media(session=session, key=key) or listing_videos.public_media(
            session=session, key=key
        ):
            return PUBLIC_MEDIA_CACHE
        actor = session_actor(session, token_hash)
        if actor is not None and (
            listing_photos.private_media(session=session, key=key, actor=actor)
            or listing_videos.private_media(session=session, key=key, actor=actor)
        ):
            return PRIVATE_MEDIA_CACHE
        return None


def _read_media(key: str) -> bytes:
    return _media_storage().get(key)


def _media_not_found() -> Response:
    return PlainTextResponse("No encontramos esa foto.", status_code=404, headers={"Cache-Control": "no-store"})


async def media(request: Request) -> Response:
    """/media/{key}: a listing photo's bytes, or a clip's MP4 or poster, from the configured storage.

    Approved photos and approved, ready clips of public listings go to anyone with a long cache lifetime
    (their keys are never reused for other content); any other only to its owner and to staff, never cached.
    Everything else, including keys that do not exist or are malformed, gets the same 404. An MP4 answers
    range requests (206), streamed from the storage (app.web.video_api.ranged_file).
    """
    key = request.path_params["key"]
    media_type = MEDIA_TYPES.get(key[key.rfind(".") :].lower()) if "." in key else None
    try:
        check_key(key)
    except InvalidKeyError:
        return _media_not_found()
    if media_type is None:
        return _media_not_found()
    cache_control = await run_in_threadpool(_media_cache_control, key, request_session_hash(request))
    if cache_control is None:
        return _media_not_found()
    headers = {"Cache-Control": cache_control}
    if cache_control == PRIVATE_MEDIA_CACHE:
        headers["Vary"] = "Cookie"
    try:
        if media_type == VIDEO_TYPE:
            return await video_api.ranged_file(
                storage=_media_storage(),
                key=key,
                media_type=media_type,
                range_header=request.headers.get("range"),
                headers=headers,
            )
        data = await run_in_threadpool(_read_media, key)
    except NotFoundError:
        return _media_not_found()
    return Response(data, media_type=media_type, headers=headers)


async def websocket_only(_: Request) -> Response:
    """A GET of the websocket's address without the websocket handshake: nothing to see."""
    return PlainTextResponse("Esta dirección no es una página.", status_code=404, headers={"Cache-Control": "no-store"})


async def upload_by_post_only(_: Request) -> Response:
    """A GET of the upload endpoint, which only takes POST."""
    return PlainTextResponse(
        "Esta dirección solo recibe archivos (POST).",
        status_code=405,
        headers={"Allow": "POST", "Cache-Control": "no-store"},
    )


def build_api(reflex_app: App) -> Starlette:
    """The Starlette app handed to ``reflex_app``'s api_transformer (uploads reach its event processor)."""
    from reflex_base import constants
    from reflex_base.config import get_config

    config = get_config()
    return Starlette(
        routes=[
            # A POST to /_upload and the websocket itself still reach Reflex (other method, other scope type).
            Route(config.prepend_backend_path(str(constants.Endpoint.EVENT)), websocket_only, methods=["GET"]),
            Route(config.prepend_backend_path(str(constants.Endpoint.UPLOAD)), upload_by_post_only, methods=["GET"]),
            Route(SSG_HOME, ssg_home, methods=["GET"]),
            Route(AGE_FORM_PATH, confirm_age, methods=["POST"]),
            Route(FAVOURITE_CARDS, favourite_cards, methods=["POST"]),
            Route(COUNT_HIT, count_hit, methods=["POST"]),
            Route(SSG_HOME + "/{city}", ssg_city, methods=["GET"]),
            Route(SSG_HOME + "/{city}/{commune}", ssg_commune, methods=["GET"]),
            Route("/healthz", health, methods=["GET"]),
            Route("/media/{key:path}", media, methods=["GET"]),
            *session_routes(reflex_app),
            *PRIVATE_ROUTES,
            *video_api.ROUTES,
            # Last: robots.txt, sitemaps and the public pages' documents (app.web.seo_api).
            *SEO_ROUTES,
        ],
        # Around these routes and the Reflex app mounted behind them: a Spanish 503 page while the
        # database is unreachable, exported pages at their own URL, and the site's 404 document for
        # whatever names nothing.
        middleware=[Middleware(DatabaseOutagePage), Middleware(ExportedPages)],
    )
