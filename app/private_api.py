"""Authorized HTTP routes for private files: verification photos, for staff only.

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

from app.db import session_scope
from app.identity.cookies import SESSION_COOKIE
from app.identity.sessions import digest, resolve_session
from app.services.errors import ForbiddenError, NotFoundError
from app.services.verification import verification_photo
from app.settings import get_settings
from app.storage import get_private_storage

NO_STORE = {"Cache-Control": "private, no-store"}


def _staff_photo(token: str, verification_uid: str) -> bytes | None:
    with session_scope() as session:
        check = resolve_session(session=session, token_hash=digest(token), idle_days=get_settings().session_idle_days)
        if check.actor is None:
            return None
        try:
            return verification_photo(
                session=session,
                storage=get_private_storage(),
                viewer_profile=check.actor.profile_uid,
                verification_uid=verification_uid,
            )
        except (ForbiddenError, NotFoundError):
            return None


async def verification_photo_route(request: Request) -> Response:
    """GET /privado/verificacion/{uid}: the photo for staff; 404 for everyone else."""
    token = request.cookies.get(SESSION_COOKIE, "")
    data = await run_in_threadpool(_staff_photo, token, request.path_params["uid"]) if token else None
    if data is None:
        return PlainTextResponse("No encontrado.", status_code=404, headers=NO_STORE)
    return Response(data, media_type="image/webp", headers=NO_STORE)


ROUTES = [Route("/privado/verificacion/{uid}", verification_photo_route, methods=["GET"])]
