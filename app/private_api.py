"""Authorized HTTP routes: the documents of the guarded pages, and verification photos for staff only.

A guarded page's document (every page of /admin, /bbitamia and /my) is its exported page with
the first screen the app shows until the server has accepted the caller (app.web.preview), so
the frame paints before the app's files arrive. It names nothing of the caller: the app's own
guard decides who sees what. To anyone without a live session, which is every crawler, it says
"noindex" (app.seo.private_tags); never cached.

``GET /privado/verificacion/{uid}`` answers the photo of an open verification
request to a browser whose session cookie belongs to staff (administrador or
secretaria), never cached. Everyone else (no cookie, an ended session, the
advertiser who sent it, any other account) gets the same plain 404, so the
route does not even tell which requests exist.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from app import seo
from app.core.errors import ForbiddenError, NotFoundError
from app.db import session_scope
from app.identity.cookies import request_session_hash, session_actor, signed_in
from app.route_table import PAGE_ROUTES
from app.seo_api import document_response, exported_shell
from app.services.verification import verification_photo
from app.settings import get_settings
from app.storage import get_private_storage
from app.web.preview import private_preview

NO_STORE = {"Cache-Control": "private, no-store"}


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


# Every guarded page, by path, with its title.
PRIVATE_TITLES = {route.path: route.title for route in PAGE_ROUTES if route.profiles}


async def private_document(request: Request) -> Response:
    """A guarded page's document: its exported page, its first screen, and "noindex" without a session."""
    path = request.url.path
    token_hash = request_session_hash(request)
    has_session = bool(token_hash) and await run_in_threadpool(signed_in, token_hash)
    shell = exported_shell(path.lstrip("/") + ".html")
    tags = seo.private_tags(title=PRIVATE_TITLES[path], site_name=get_settings().site_name, signed_in=has_session)
    first_screen = private_preview(signed_in=has_session, theme_attributes=shell.theme_attributes)
    return document_response(request, shell, tags, preview=first_screen, headers=NO_STORE)


ROUTES = [
    Route("/privado/verificacion/{uid}", verification_photo_route, methods=["GET"]),
    *(Route(path, private_document, methods=["GET"]) for path in PRIVATE_TITLES),
]
