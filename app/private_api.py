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
from app.identity.cookies import request_session_hash, session_actor
from app.services.errors import ForbiddenError, NotFoundError
from app.services.verification import verification_photo
from app.storage import get_private_storage

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


ROUTES = [Route("/privado/verificacion/{uid}", verification_photo_route, methods=["GET"])]
