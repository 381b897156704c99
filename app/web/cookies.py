"""The session cookie over plain HTTP, and its digest on the websocket.

- ``POST /sesion`` exchanges a sign-in ticket (header ``X-Ticket``) for the
  HttpOnly session cookie and ends the browser's previous session;
- ``POST /sesion/cerrar`` ends the cookie's session and clears the cookie.
Both refuse requests from another origin (a page elsewhere cannot sign a
visitor in or out). Their database work runs off the event loop.

:func:`handshake_middleware` wraps the app: on the websocket path it replaces
the session cookie in the handshake by a ``sesion_hash`` cookie carrying its
SHA-256 digest, after dropping any such cookie the client sent. Reflex copies
handshake headers into every event and into tab state (memory, Redis), so only
the digest ever gets there, and it cannot be replayed: a connection proves a
session only by carrying the cookie itself. The digest travels as a cookie, not
as a header of its own, because Reflex sends the request's headers to the page
(the router data, in the websocket's state deltas and in upload answers) but
never its cookies or credentials: the digest, a stable per-session identifier,
stays on the server.

Uploads do not travel on the websocket: the browser POSTs them to ``/_upload``
and Reflex dispatches the handler with no routing data, so a guarded upload
handler would see no session. The endpoint from :func:`upload_endpoint` answers
that path before Reflex does and hands the request to Reflex's own upload
endpoint with the request's headers (the session cookie replaced by its
digest, as on the websocket) in the routing data of the event: an upload proves
its session by the cookie it carries, never by the tab token alone. It is given
the ``rx.App`` by the composition root (app.app, through app.web.api.build_api),
never imports it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from reflex._upload import upload
from reflex.app import App
from reflex_base.constants import RouteVar
from reflex_base.event import Event
from reflex_base.event.context import EventContext
from reflex_base.event.processor.event_processor import EventProcessor
from reflex_base.event.processor.future import EventFuture
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.actor import Actor
from app.db import commit, session_scope
from app.identity import sessions
from app.identity.sessions import DIGEST_COOKIE, SESSION_COOKIE
from app.services import accounts
from app.settings import get_settings

log = logging.getLogger(__name__)

TICKET_HEADER = "x-ticket"
# Reflex's websocket endpoint (reflex_base.constants.Endpoint.EVENT; a test checks they agree).
EVENT_PATH = "/_event"
# Reflex's upload endpoint (reflex_base.constants.Endpoint.UPLOAD).
UPLOAD_PATH = "/_upload"
FOREIGN_ORIGIN = "Solicitud rechazada: no viene de este sitio."
# Twelve photos of at most 15 MB each in one upload, plus the multipart overhead.
MAX_UPLOAD_BYTES = 12 * 15 * 1024 * 1024 + 1024 * 1024
UPLOAD_LENGTH_REQUIRED = "No pudimos recibir los archivos: vuelve a intentarlo."
UPLOAD_TOO_LARGE = "Los archivos superan el máximo: hasta 12 fotos de 15 MB cada una."
UPLOAD_SIGNED_OUT = "Tu sesión terminó: vuelve a ingresar para subir fotos."
TICKET_REFUSED = "Tu ingreso expiró antes de completarse. Vuelve a ingresar."


def session_hash_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Request headers with the session cookie replaced by the ``sesion_hash`` cookie holding its digest.

    The cookies end up in one Cookie header (as Reflex joins them anyway).
    """
    kept: list[tuple[bytes, bytes]] = []
    cookies: list[str] = []
    token = ""
    for name, value in headers:
        if name.lower() != b"cookie":
            kept.append((name, value))
            continue
        for part in value.decode("latin-1").split(";"):
            key, _, cookie_value = part.strip().partition("=")
            if key == SESSION_COOKIE:
                token = cookie_value
            elif key != DIGEST_COOKIE and part.strip():  # only this middleware says which session a request carries
                cookies.append(part.strip())
    if token:
        cookies.append(f"{DIGEST_COOKIE}={sessions.digest(token)}")
    if cookies:
        kept.append((b"cookie", "; ".join(cookies).encode("latin-1")))
    return kept


def handshake_middleware(app: ASGIApp) -> ASGIApp:
    """Wrap an ASGI app so the websocket path never sees the raw session cookie."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("path", "").startswith(EVENT_PATH):
            scope = {**scope, "headers": session_hash_headers(list(scope.get("headers", [])))}
        await app(scope, receive, send)

    return wrapped


def _same_origin(request: Request) -> bool:
    """True when the browser says the request comes from a page of this very host."""
    if request.headers.get("sec-fetch-site", "same-origin") != "same-origin":
        return False
    origin = request.headers.get("origin", "")
    return bool(origin) and urlsplit(origin).netloc == request.headers.get("host", "")


def _cookie_hash(request: Request) -> str:
    token = request.cookies.get(SESSION_COOKIE, "")
    return sessions.digest(token) if token else ""


def _exchange(ticket: str, previous_hash: str) -> str | None:
    with session_scope() as session:
        token = sessions.redeem_ticket(session=session, ticket=ticket, days=get_settings().session_days)
        if token is not None and previous_hash:
            sessions.revoke_session(session=session, token_hash=previous_hash)
        commit(session)
        return token


def _sign_out(token_hash: str) -> None:
    with session_scope() as session:
        accounts.sign_out(session=session, token_hash=token_hash)


async def open_session(request: Request) -> Response:
    """POST /sesion: a live ticket becomes the session cookie; the browser's previous session ends."""
    if not _same_origin(request):
        return JSONResponse({"error": FOREIGN_ORIGIN}, status_code=403)
    token = await run_in_threadpool(_exchange, request.headers.get(TICKET_HEADER, ""), _cookie_hash(request))
    if token is None:
        log.info("session ticket refused (unknown, used or expired)")
        return JSONResponse({"error": TICKET_REFUSED}, status_code=400)
    settings = get_settings()
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 24 * 3600,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.is_https,
    )
    return response


async def close_session(request: Request) -> Response:
    """POST /sesion/cerrar: end the cookie's session (every tab shares it) and clear the cookie."""
    if not _same_origin(request):
        return JSONResponse({"error": FOREIGN_ORIGIN}, status_code=403)
    token_hash = _cookie_hash(request)
    if token_hash:
        await run_in_threadpool(_sign_out, token_hash)
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=get_settings().is_https)
    return response


class _RoutedUploads:
    """Reflex's app as its upload endpoint uses it: each event it queues carries one request's headers."""

    def __init__(self, processor: EventProcessor, headers: dict[str, str]) -> None:
        self._processor = processor
        self._headers = headers

    @property
    def event_processor(self) -> _RoutedUploads:
        return self

    def _routed(self, event: Event) -> Event:
        return dataclasses.replace(event, router_data={**event.router_data, RouteVar.HEADERS: self._headers})

    def enqueue_stream_delta(self, token: str, event: Event) -> AsyncGenerator[Mapping[str, Any]]:
        return self._processor.enqueue_stream_delta(token, self._routed(event))

    async def enqueue(self, token: str, event: Event, ev_ctx: EventContext | None = None) -> EventFuture:
        return await self._processor.enqueue(token, self._routed(event), ev_ctx)


def request_session_hash(request: Request) -> str:
    """The digest of the session cookie a plain HTTP request carries ("" if none)."""
    token = request.cookies.get(SESSION_COOKIE, "")
    return sessions.digest(token) if token else ""


def session_actor(session: Session, token_hash: str) -> Actor | None:
    """The signed-in user behind a session digest (None: no live session, or a banned user's)."""
    if not token_hash:
        return None
    return sessions.resolve_session(
        session=session, token_hash=token_hash, idle_days=get_settings().session_idle_days
    ).actor


def signed_in(token_hash: str) -> bool:
    """True when the session digest belongs to a live session (a blocking database read)."""
    return session_profile(token_hash) is not None


def session_profile(token_hash: str) -> str | None:
    """The profile uid of the live session behind the digest; None without one (a blocking database read)."""
    with session_scope() as session:
        actor = session_actor(session, token_hash)
        return None if actor is None else actor.profile_uid


def upload_endpoint(reflex_app: App) -> Callable[[Request], Awaitable[Response]]:
    """The POST /_upload endpoint: Reflex's upload endpoint of ``reflex_app``, its handler seeing the session digest."""

    async def upload_with_session(request: Request) -> Response:
        """POST /_upload, only from a page of this site (a foreign page cannot post files into a tab), only
        with a live session, and only up to MAX_UPLOAD_BYTES declared up front: the body of anything else is
        never read.
        """
        if not _same_origin(request):
            return JSONResponse({"error": FOREIGN_ORIGIN}, status_code=403)
        declared = request.headers.get("content-length", "")
        if not (declared.isascii() and declared.isdigit()):
            return JSONResponse({"error": UPLOAD_LENGTH_REQUIRED}, status_code=411)
        if int(declared) > MAX_UPLOAD_BYTES:
            return JSONResponse({"error": UPLOAD_TOO_LARGE}, status_code=413)
        if not await run_in_threadpool(signed_in, request_session_hash(request)):
            return JSONResponse({"error": UPLOAD_SIGNED_OUT}, status_code=403)
        headers = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in session_hash_headers(list(request.scope.get("headers", [])))
        }
        # _RoutedUploads stands in for the App: Reflex's upload endpoint reads only its event_processor.
        routed = _RoutedUploads(reflex_app.event_processor, headers)
        response: Response = await upload(routed)(request)  # type: ignore[arg-type]  # the stand-in above, not an App
        return response

    return upload_with_session


def session_routes(reflex_app: App) -> list[Route]:
    """POST /sesion, /sesion/cerrar and /_upload; uploads go to ``reflex_app``'s event processor."""
    return [
        Route("/sesion", open_session, methods=["POST"]),
        Route("/sesion/cerrar", close_session, methods=["POST"]),
        Route(UPLOAD_PATH, upload_endpoint(reflex_app), methods=["POST"]),
    ]
