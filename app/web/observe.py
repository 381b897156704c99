"""What an operator sees of the web process: metrics (app.metrics) and one log record per request and event.

- :class:`ObserveRequests`, the outermost ASGI middleware: every HTTP request counted and timed by its
  route template (the route table's pages, then the plain HTTP routes of app.web.api; "other" for what
  matches neither, never the raw path), one ``app.access`` log record, an ``X-Request-ID`` on the
  answer (the client's own when it looks like one, else a new one). It also answers ``GET /metrics``,
  before the Host check (Prometheus calls a node by its own address), only with
  ``Authorization: Bearer METRICS_TOKEN`` (app.metrics.scrape_status).
- :func:`observe_events` wraps Reflex 0.10's event processor and websocket namespace, as
  app.web.state_locks wraps its state manager: every event (its handler as ``State.event``, its time
  with the state lock, ok, error or cancelled) and one ``app.events`` log record with the first 8
  characters of the session digest when the tab is signed in (at DEBUG for Reflex's own navigation
  steps that went well, ``FRAMEWORK_EVENTS``; an ``on_load_internal`` that ran the directory's loader
  inside it, app.web.page_loads, is named and logged as that loader); the open sockets, connections and
  reconnections (a page's socket connecting again: its hydrate event no longer carries the compiled
  defaults' hashes).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from reflex.app import EventNamespace
from reflex_base import constants
from reflex_base.event.processor.event_processor import EventProcessor, EventQueueEntry
from reflex_base.registry import RegisteredEventHandler
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics
from app.identity.sessions import DIGEST_COOKIE
from app.route_table import PAGE_ROUTES
from app.services import monitoring
from app.settings import PROJECT_ROOT, get_settings
from app.web.page_loads import loaders_run

access_log = logging.getLogger("app.access")
events_log = logging.getLogger("app.events")

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"[A-Za-z0-9-]{8,64}")
# A page's dynamic segment in the route table ("[city]"), as a template writes it ("{city}").
_DYNAMIC = re.compile(r"\[([A-Za-z_][A-Za-z0-9_]*)\]")
# Files of the build served under a folder: one template each.
_FOLDERS = ("/assets/", "/_upload/")
# Methods counted by name; anything else is "other" (a client chooses the method).
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_DIGEST_PREFIX = re.compile(rf"(?:^|;)\s*{DIGEST_COOKIE}=([0-9a-f]{{8}})")
# Reflex's own plumbing of every navigation (the new URL's vars, the page's loaders queued, the page marked
# loaded): three of a navigation's four events, which say nothing the page's own loader's record does not.
# Counted and timed like any event; logged at DEBUG unless they fail or are cancelled.
FRAMEWORK_EVENTS = frozenset({"update_vars_internal", "on_load_internal", "set_is_hydrated"})


def request_id(headers: Headers) -> str:
    """The client's X-Request-ID when it looks like one (8-64 letters, digits, dashes), else a new one."""
    given = headers.get(REQUEST_ID_HEADER, "")
    return given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex


def _page_template(path: str) -> tuple[re.Pattern[str], str]:
    segments = [re.escape(part) if not _DYNAMIC.fullmatch(part) else "[^/]+" for part in path.split("/")]
    return re.compile("/".join(segments) or "/"), _DYNAMIC.sub(r"{\1}", path)


def route_templates(api: Starlette) -> list[tuple[re.Pattern[str], str]]:
    """Each route's path pattern and template: the route table's pages (fewest dynamic segments first,
    so "/escorts/trans/[city]" wins over "/escorts/[city]/[slug]"), then the plain HTTP routes in their order."""
    pages = sorted(
        (page.path for page in PAGE_ROUTES if page.path.startswith("/")),
        key=lambda path: (len(_DYNAMIC.findall(path)), -path.count("/")),
    )
    found = [_page_template(path) for path in pages]
    for route in api.routes:
        pattern, template = getattr(route, "path_regex", None), getattr(route, "path", None)
        if isinstance(route, Route) and isinstance(pattern, re.Pattern) and isinstance(template, str):
            found.append((pattern, template))
    return found


def static_files() -> frozenset[str]:
    """The paths of the site's own top-level static files (assets/: styles, scripts, icons)."""
    return frozenset(f"/{path.name}" for path in (PROJECT_ROOT / "assets").iterdir() if path.is_file())


def route_of(path: str, templates: list[tuple[re.Pattern[str], str]], files: frozenset[str]) -> str:
    """The template of the route that serves ``path``: never the path itself unless it is a fixed file."""
    if path in files:
        return path
    for folder in _FOLDERS:
        if path.startswith(folder):
            return folder + "{file}"
    for pattern, template in templates:
        if pattern.fullmatch(path):
            return template
    return metrics.OTHER_ROUTE


class ObserveRequests:
    """Counts, times and logs every HTTP request by route template, and serves /metrics (see the module)."""

    def __init__(self, app: ASGIApp, *, templates: list[tuple[re.Pattern[str], str]]) -> None:
        self.app = app
        self.templates = templates
        self.files = static_files()
        self.token = get_settings().metrics_token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == metrics.METRICS_PATH:
            await self._scrape(scope, receive, send)
            return
        headers = Headers(scope=scope)
        rid = request_id(headers)
        route = route_of(scope["path"], self.templates, self.files)
        method = scope["method"] if scope["method"] in _METHODS else "other"
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
            metrics.HTTP_DURATION.labels(route, method).observe(elapsed)
            access_log.info(
                "request answered",
                extra={
                    "event": {
                        "id": rid,
                        "route": route,
                        "method": method,
                        "duration_ms": round(elapsed * 1000, 1),
                        "outcome": status,
                    }
                },
            )

    async def _scrape(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = metrics.scrape_status(Headers(scope=scope).get("authorization"), self.token)
        if status != 200:
            response = Response(status_code=status, headers={"Cache-Control": "no-store"})
        else:
            body = await run_in_threadpool(metrics.exposition, monitoring.read_site_figures)
            response = Response(body, media_type=metrics.CONTENT_TYPE, headers={"Cache-Control": "no-store"})
        await response(scope, receive, send)


def observe_requests(api: Starlette) -> Callable[[ASGIApp], ASGIApp]:
    """The middleware for ``rx.App(api_transformer=[...])``: :class:`ObserveRequests` knowing ``api``'s routes."""
    templates = route_templates(api)

    def wrap(app: ASGIApp) -> ASGIApp:
        return ObserveRequests(app, templates=templates)

    return wrap


def handler_name(entry: EventQueueEntry, registered: RegisteredEventHandler) -> str:
    """``State.event``: the handler's state class and the event's own name (never its arguments)."""
    event = entry.event.name.rsplit(".", 1)[-1]
    return f"{registered.states[0].__name__}.{event}" if registered.states else event


def is_framework_event(entry: EventQueueEntry) -> bool:
    """Whether the event is one of Reflex's own navigation steps (``FRAMEWORK_EVENTS``)."""
    return entry.event.name.rsplit(".", 1)[-1] in FRAMEWORK_EVENTS


def is_page_load(entry: EventQueueEntry) -> bool:
    """Whether the event is Reflex's ``on_load_internal``, which runs the directory's loaders (app.web.page_loads)."""
    return entry.event.name.endswith(constants.CompileVars.ON_LOAD_INTERNAL)


def session_prefix(router_data: Mapping[str, Any] | None) -> str | None:
    """The first 8 characters of the session digest a signed-in tab's websocket carries (app.web.cookies)."""
    headers = (router_data or {}).get(constants.RouteVar.HEADERS) or {}
    found = _DIGEST_PREFIX.search(str(headers.get("cookie", "")))
    return found[1] if found else None


_reflex_process_entry = EventProcessor._process_event_queue_entry
_reflex_on_connect = EventNamespace.on_connect
_reflex_on_disconnect = EventNamespace.on_disconnect
# The sockets of this process counted open (a refused connection is never counted, nor closed).
_open_sockets: set[str] = set()


async def _observed_entry(
    self: EventProcessor, *, entry: EventQueueEntry, registered_handler: RegisteredEventHandler
) -> None:
    outcome = metrics.OK
    started = time.perf_counter()
    try:
        await _reflex_process_entry(self, entry=entry, registered_handler=registered_handler)
    except asyncio.CancelledError:
        outcome = metrics.CANCELLED
        raise
    except Exception:
        outcome = metrics.ERROR
        raise
    finally:
        elapsed = time.perf_counter() - started
        inline = loaders_run() if is_page_load(entry) else None
        handler = inline or handler_name(entry, registered_handler)
        metrics.WS_EVENTS.labels(handler, outcome).inc()
        metrics.WS_EVENT_DURATION.labels(handler).observe(elapsed)
        framework = inline is None and is_framework_event(entry)
        level = logging.DEBUG if outcome == metrics.OK and framework else logging.INFO
        if events_log.isEnabledFor(level):
            _log_event(level, entry, handler, elapsed, outcome)


def _log_event(level: int, entry: EventQueueEntry, handler: str, elapsed: float, outcome: str) -> None:
    """The event's one ``app.events`` record."""
    fields: dict[str, object] = {
        "id": entry.ctx.txid,
        "handler": handler,
        "duration_ms": round(elapsed * 1000, 1),
        "outcome": outcome,
    }
    if (prefix := session_prefix(entry.ctx.router_data)) is not None:
        fields["session"] = prefix
    events_log.log(level, "event processed", extra={"event": fields})


def is_reconnect(auth: object) -> bool:
    """Whether a socket.io CONNECT comes from a page that was connected before: Reflex's frontend sends the
    compiled defaults' hashes with its hydrate event on a page's first connection only."""
    if not isinstance(auth, dict):
        return False
    boot = auth.get(constants.CompileVars.CONNECT_AUTH_EVENT)
    payload = boot.get("payload") if isinstance(boot, dict) else None
    return isinstance(payload, dict) and constants.CompileVars.PAYLOAD_HASHES not in payload


async def _observed_connect(self: EventNamespace, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
    await _reflex_on_connect(self, sid, environ, auth)
    metrics.WS_CONNECTS.inc()
    if is_reconnect(auth):
        metrics.WS_RECONNECTS.inc()
    if sid not in _open_sockets:
        _open_sockets.add(sid)
        metrics.WS_OPEN_SOCKETS.inc()


def _observed_disconnect(self: EventNamespace, sid: str) -> asyncio.Task[Any] | None:
    if sid in _open_sockets:
        _open_sockets.discard(sid)
        metrics.WS_OPEN_SOCKETS.dec()
    return _reflex_on_disconnect(self, sid)


def observe_events() -> None:
    """Install the wrappers on Reflex's event processor and websocket namespace (the composition root calls it)."""
    EventProcessor._process_event_queue_entry = _observed_entry  # type: ignore[method-assign]  # the patch is the point
    EventNamespace.on_connect = _observed_connect  # type: ignore[method-assign]  # the patch is the point
    EventNamespace.on_disconnect = _observed_disconnect  # type: ignore[method-assign]  # the patch is the point
