"""Clips over HTTP: the owner's upload, and the answers to range requests a video player makes.

``POST /mi-cuenta/videos/{uid}`` takes one clip for the caller's listing ``uid``: the request's body is the file
itself (what a browser sends with ``fetch(url, {method: "POST", body: file})``, or an XHR that reports progress).
Only from a page of this site (``from_this_site``), only with a live session cookie (as every private route),
at most UPLOAD_RULE uploads per account, and at most CLIP_MAX_BYTES: the body is streamed to a temporary file
and refused (413) the moment it passes the limit, never held in memory. The clip is then probed, stored and its
processing enqueued (app.services.listing_videos.start_clip). The answer is JSON: ``{"uid": ...}`` (201), or
``{"error": "<Spanish>"}`` with a 4xx (5xx when the database or the limiter cannot be reached).

The served MP4 of a clip is read through /media (app.web.api.media, which decides who may see it) and answered
here with :func:`ranged_file`: ``Accept-Ranges: bytes``, 206 with ``Content-Range`` for a byte range, 416 for a
range it cannot give, streamed a chunk at a time from the storage (``read_range``), locally and from S3 alike.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError, NotFoundError, ServiceError
from app.db import session_scope
from app.models.videos import CLIP_MAX_BYTES
from app.routes import CLIP_UPLOAD_PREFIX
from app.services import abuse, listing_videos
from app.services.abuse import LimiterUnavailable, Rule
from app.storage import Storage
from app.storage.factory import get_private_storage
from app.web.cookies import FOREIGN_ORIGIN, request_session_hash, session_actor
from app.web.middleware import from_this_site

log = logging.getLogger(__name__)

NO_STORE = {"Cache-Control": "no-store"}
# Uploads of one account: enough for a listing's clips and a few retries, not a flood of 200 MB bodies.
UPLOAD_RULE = Rule("videos-subidos", 12, 3_600)
SIGNED_OUT = "Tu sesión terminó: vuelve a ingresar para subir videos."
TOO_MANY_UPLOADS = "Subiste muchos videos seguidos: espera un rato y vuelve a intentarlo."
NOT_SAVED = "No pudimos recibir el video. Inténtalo de nuevo en unos minutos."
BAD_RANGE = "El rango pedido no existe en este archivo."


def _error(message: str, status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={**NO_STORE, **(headers or {})})


def _actor(token_hash: str) -> Actor | None:
    with session_scope() as session:
        return session_actor(session, token_hash)


def _start(owner_uid: str, listing_uid: str, source: Path) -> str:
    with session_scope() as session:
        return listing_videos.start_clip(
            session=session, private_storage=get_private_storage(), owner_uid=owner_uid, uid=listing_uid, source=source
        )


async def _receive(request: Request, target: Path) -> bool:
    """Stream the body into ``target``; False (and the rest unread) once it passes CLIP_MAX_BYTES."""
    handle: BinaryIO = await run_in_threadpool(target.open, "wb")
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > CLIP_MAX_BYTES:
                return False
            if chunk:
                await run_in_threadpool(handle.write, chunk)
    finally:
        await run_in_threadpool(handle.close)
    return True


async def upload_clip(request: Request) -> Response:
    """POST /mi-cuenta/videos/{uid}: the body is one clip for the caller's listing ``uid``."""
    if not from_this_site(request):
        return _error(FOREIGN_ORIGIN, 403)
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > CLIP_MAX_BYTES:
        return _error(listing_videos.TOO_BIG, 413)
    token_hash = request_session_hash(request)
    actor = await run_in_threadpool(_actor, token_hash) if token_hash else None
    if actor is None:
        return _error(SIGNED_OUT, 403)
    try:
        wait = await run_in_threadpool(abuse.limiter().hit, [(UPLOAD_RULE, actor.uid)])
    except LimiterUnavailable as exc:
        return _error(exc.message, 503)
    if wait:
        return _error(TOO_MANY_UPLOADS, 429, {"Retry-After": str(int(wait))})
    folder = Path(await run_in_threadpool(tempfile.mkdtemp, None, "subida-"))
    try:
        source = folder / "clip"
        if not await _receive(request, source):
            return _error(listing_videos.TOO_BIG, 413)
        clip_uid = await run_in_threadpool(_start, actor.uid, request.path_params["uid"], source)
    except NotFoundError as exc:
        return _error(exc.message, 404)
    except InvalidInputError as exc:  # a refused file (VideoRejectedError), or the listing's clips are full
        return _error(exc.message, 400)
    except ConflictError as exc:
        return _error(exc.message, 409)
    except ServiceError as exc:
        log.warning("clip upload not saved: %s", type(exc).__name__)
        return _error(NOT_SAVED, 503)
    finally:
        await run_in_threadpool(shutil.rmtree, folder, True)
    return JSONResponse({"uid": clip_uid}, status_code=201, headers=NO_STORE)


class _Unsatisfiable(Exception):
    """A Range header this file cannot answer."""


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The one byte range a ``Range`` header asks of a file of ``size`` bytes, as (start, stop); None for the whole
    file (no header, another unit, or several ranges, which a player never asks for). _Unsatisfiable when the
    range is malformed or lies past the end."""
    if header is None or not header.strip().lower().startswith("bytes="):
        return None
    spec = header.strip()[len("bytes=") :].strip()
    if "," in spec:
        return None
    first, dash, last = spec.partition("-")
    first, last = first.strip(), last.strip()
    if not dash or not (first or last) or not all(part.isascii() and part.isdigit() for part in (first, last) if part):
        raise _Unsatisfiable
    if not first:  # the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            raise _Unsatisfiable
        return max(size - length, 0), size
    start = int(first)
    if start >= size or (last and int(last) < start):
        raise _Unsatisfiable
    return start, min(int(last) + 1, size) if last else size


def _open_range(storage: Storage, key: str, header: str | None) -> tuple[int, tuple[int, int] | None, Iterator[bytes]]:
    size = storage.size(key)
    wanted = byte_range(header, size)
    start, stop = wanted or (0, size)
    return size, wanted, storage.read_range(key, start, stop)


async def ranged_file(
    *, storage: Storage, key: str, media_type: str, range_header: str | None, headers: dict[str, str]
) -> Response:
    """A stored file streamed from ``storage``: whole (200) or the byte range asked for (206), 416 for a range it
    cannot give; NotFoundError when the file is missing."""
    try:
        size, wanted, chunks = await run_in_threadpool(_open_range, storage, key, range_header)
    except _Unsatisfiable:
        size = await run_in_threadpool(storage.size, key)
        return PlainTextResponse(
            BAD_RANGE,
            status_code=416,
            headers={**headers, "Content-Range": f"bytes */{size}", "Accept-Ranges": "bytes"},
        )
    start, stop = wanted or (0, size)
    answer = {**headers, "Accept-Ranges": "bytes", "Content-Length": str(stop - start)}
    if wanted is None:
        return StreamingResponse(chunks, media_type=media_type, headers=answer)
    answer["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
    return StreamingResponse(chunks, status_code=206, media_type=media_type, headers=answer)


ROUTES = [Route(CLIP_UPLOAD_PREFIX + "/{uid}", upload_clip, methods=["POST"])]
