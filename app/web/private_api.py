"""Authorized HTTP routes: the documents of the guarded pages, and verification photos for staff only.

A guarded page's document (every page of /admin, /bbitamia and /my) is its exported page with
the first screen the app shows until the server has accepted the caller (app.web.preview), so
the frame paints before the app's files arrive. To a caller the page admits (the session's
profile), the wizard, "my listings" and the staff listings table also show their static top
there (title, intro text): the largest thing on their screen paints with the document, not
seconds later with the app. It names nothing of the caller: the app's own guard decides who
sees what. To anyone without a live session, which is every crawler, it says
"noindex" (app.seo.private_tags); never cached.

``GET /privado/verificacion/{uid}`` answers the photo of an open verification
request to a browser whose session cookie belongs to staff (administrador or
secretaria), never cached. Everyone else (no cookie, an ended session, the
advertiser who sent it, any other account) gets the same plain 404, so the
route does not even tell which requests exist.

``GET /mi-cuenta/datos/{token}`` gives a data export's ZIP to its owner's signed-in browser, streamed from the
private storage a chunk at a time (its length said ahead). Anyone
else gets a page of the site's own (app.web.preview.message_page): without a session, one asking to
sign in that comes back to the link; signed in, one saying the link is not valid. The way back keeps
the token out of /login's address (which Reflex copies into the tab's state): the page leaves it in an
HttpOnly cookie that only ``/mi-cuenta/datos`` receives, and /login returns to ``GET /mi-cuenta/datos``,
which sends the browser on to the link.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from app import seo
from app.components.staff_layout import NAV_LABELS
from app.core.dates import hours_text
from app.core.errors import ForbiddenError, NotFoundError
from app.db import session_scope
from app.models import ProfileId
from app.pages import my_listings, wizard
from app.route_table import PAGE_ROUTES, staff_nav
from app.routes import (
    ADMIN_LISTINGS,
    ADVERTISER_HOME,
    ADVERTISER_NEW_LISTING,
    DATA_EXPORT_PREFIX,
    MY_ACCOUNT,
    SECRETARY_LISTINGS,
    login_path,
    safe_return_path,
)
from app.services import privacy
from app.services.staff.listings import LISTINGS_SPEC
from app.services.verification import verification_photo
from app.settings import get_settings
from app.storage.factory import get_private_storage
from app.web.cookies import request_session_hash, session_actor, session_profile
from app.web.preview import GuardedScreen, message_page, private_preview
from app.web.seo_api import SITE_CSS, document_response, exported_shell

NO_STORE = {"Cache-Control": "private, no-store"}
SITE_STYLESHEET = "/" + SITE_CSS


def _staff_photo(token_hash: str, verification_uid: str) -> bytes | None:
    with session_scope() as session:
        actor = session_actor(session, token_hash)
        if actor is None:
            return None
        try:
            return verification_photo(
                session=session,
                storage=get_private_storage(),
                viewer_profile=actor.profile_uid,
                verification_uid=verification_uid,
            )
        except (ForbiddenError, NotFoundError):
            return None


async def verification_photo_route(request: Request) -> Response:
    """GET /privado/verificacion/{uid}: the photo for staff; 404 for everyone else."""
    token_hash = request_session_hash(request)
    data = await run_in_threadpool(_staff_photo, token_hash, request.path_params["uid"]) if token_hash else None
    if data is None:
        return PlainTextResponse("No encontrado.", status_code=404, headers=NO_STORE)
    return Response(data, media_type="image/webp", headers=NO_STORE)


EXPORT_SIGN_IN = "Inicia sesión para descargar tus datos"
EXPORT_SIGN_IN_TEXT = (
    "Por seguridad, el archivo con tus datos solo se descarga con la sesión de tu cuenta iniciada. Ingresa con "
    "la cuenta que pidió los datos y la descarga comenzará."
)
EXPORT_GONE = "Este enlace no es válido o ya venció"
EXPORT_GONE_TEXT = (
    f"El enlace vale {hours_text(privacy.EXPORT_LINK_LIFETIME)} y solo para la cuenta que pidió los datos. Si lo necesitas, pide tus "
    "datos de nuevo en Mi cuenta."
)
EXPORT_STARTING = "Tu descarga está comenzando"
EXPORT_STARTING_TEXT = "El archivo se llama mis-datos.zip. Si la descarga no empieza sola, usa el botón."
PAGE_HEADERS = {**NO_STORE, "X-Robots-Tag": "noindex"}
# The link a signed-out browser opened, kept for it across the sign-in (seconds).
PENDING_EXPORT_COOKIE = "datos_pendientes"
PENDING_EXPORT_MAX_AGE = 3600


def _export_zip(token_hash: str, token: str) -> tuple[bool, privacy.ExportDownload | None]:
    """Whether the session is live, and the export's ZIP when the link is valid and the session its owner's."""
    with session_scope() as session:
        actor = session_actor(session, token_hash)
        if actor is None:
            return False, None
        return True, privacy.export_file(
            session=session, private_storage=get_private_storage(), token=token, user_uid=actor.uid
        )


async def data_export_route(request: Request) -> Response:
    """GET /mi-cuenta/datos/{token}: the owner's data export, to their signed-in browser, while the link is valid.

    Without a live session: the site's page asking to sign in (403), whose link comes back here after
    sign-in; it says nothing of the link, so it tells nobody which links exist. Signed in to any account
    but the owner's, or with an expired or unknown link: the site's page saying the link is not valid (404).
    """
    token_hash = request_session_hash(request)
    token = request.path_params["token"]
    signed_in, download = await run_in_threadpool(_export_zip, token_hash, token) if token_hash else (False, None)
    if download is not None:
        headers = {
            **NO_STORE,
            "Content-Disposition": 'attachment; filename="mis-datos.zip"',
            "Content-Length": str(download.size),
        }
        # Streamed from the storage a chunk at a time; Starlette reads a sync iterator in its thread pool.
        return StreamingResponse(download.chunks(), media_type="application/zip", headers=headers)
    if not signed_in:
        page = message_page(
            heading=EXPORT_SIGN_IN,
            text=EXPORT_SIGN_IN_TEXT,
            action="Ingresar y descargar",
            href=login_path(DATA_EXPORT_PREFIX),
            signed_in=False,
            stylesheet=SITE_STYLESHEET,
        )
        response = HTMLResponse(page, status_code=403, headers=PAGE_HEADERS)
        if safe_return_path(f"{DATA_EXPORT_PREFIX}/{token}"):
            response.set_cookie(
                PENDING_EXPORT_COOKIE,
                token,
                max_age=PENDING_EXPORT_MAX_AGE,
                path=DATA_EXPORT_PREFIX,
                httponly=True,
                samesite="lax",
                secure=get_settings().is_https,
            )
        return response
    page = message_page(
        heading=EXPORT_GONE,
        text=EXPORT_GONE_TEXT,
        action="Ir a Mi cuenta",
        href=MY_ACCOUNT,
        signed_in=True,
        stylesheet=SITE_STYLESHEET,
    )
    return HTMLResponse(page, status_code=404, headers=PAGE_HEADERS)


async def pending_export_route(request: Request) -> Response:
    """GET /mi-cuenta/datos, where /login returns after sign-in: the site's page that opens the link this browser
    opened signed out (its cookie, then cleared), so the download starts under a page saying so, not under the
    sign-in form; without such a link, on to Mi cuenta."""
    target = f"{DATA_EXPORT_PREFIX}/{request.cookies.get(PENDING_EXPORT_COOKIE, '')}"
    response: Response
    if safe_return_path(target):
        page = message_page(
            heading=EXPORT_STARTING,
            text=EXPORT_STARTING_TEXT,
            action="Descargar mis datos",
            href=target,
            signed_in=request_session_hash(request) is not None,
            stylesheet=SITE_STYLESHEET,
            go_on=target,
        )
        response = HTMLResponse(page, headers=PAGE_HEADERS)
    else:
        response = RedirectResponse(MY_ACCOUNT, status_code=303, headers=NO_STORE)
    response.delete_cookie(
        PENDING_EXPORT_COOKIE, path=DATA_EXPORT_PREFIX, httponly=True, samesite="lax", secure=get_settings().is_https
    )
    return response


# Every guarded page, by path, with its title and the profiles it admits.
PRIVATE_TITLES = {route.path: route.title for route in PAGE_ROUTES if route.profiles}
PRIVATE_PROFILES = {route.path: route.profiles for route in PAGE_ROUTES if route.profiles}


def _staff_listings(area: ProfileId) -> GuardedScreen:
    return GuardedScreen(
        heading=LISTINGS_SPEC.title,
        intro=LISTINGS_SPEC.intro,
        css="staff-table-section",
        nav=staff_nav(area),
        nav_label=NAV_LABELS[area],
    )


# The pages whose first screen shows their static top (app.web.preview.GuardedScreen), to a caller they admit:
# the app's own content is then no larger than what the first paint showed.
GUARDED_SCREENS = {
    ADVERTISER_NEW_LISTING: GuardedScreen(intro=wizard.WIZARD_INTRO, css="area wizard"),
    ADVERTISER_HOME: GuardedScreen(heading=my_listings.HEADING, intro=my_listings.INTRO, css="area", greeting=True),
    ADMIN_LISTINGS: _staff_listings(ProfileId.ADMINISTRADOR),
    SECRETARY_LISTINGS: _staff_listings(ProfileId.SECRETARIA),
}


async def private_document(request: Request) -> Response:
    """A guarded page's document: its exported page, its first screen, and "noindex" without a session."""
    path = request.url.path
    token_hash = request_session_hash(request)
    profile = await run_in_threadpool(session_profile, token_hash) if token_hash else None
    shell = exported_shell(path.lstrip("/") + ".html")
    tags = seo.private_tags(title=PRIVATE_TITLES[path], site_name=get_settings().site_name, signed_in=bool(profile))
    # Only to a caller the page admits: anyone else is sent elsewhere by the app's guard, and sees only the frame.
    screen = GUARDED_SCREENS.get(path) if profile in PRIVATE_PROFILES[path] else None
    first_screen = private_preview(
        signed_in=bool(profile), screen=screen, path=path, theme_attributes=shell.theme_attributes
    )
    return document_response(request, shell, tags, preview=first_screen, headers=NO_STORE)


ROUTES = [
    Route("/privado/verificacion/{uid}", verification_photo_route, methods=["GET"]),
    Route(DATA_EXPORT_PREFIX, pending_export_route, methods=["GET"]),
    Route(DATA_EXPORT_PREFIX + "/{token}", data_export_route, methods=["GET"]),
    *(Route(path, private_document, methods=["GET"]) for path in PRIVATE_TITLES),
]
