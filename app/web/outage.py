"""A Spanish 503 page, in place of a bare 500, for any HTTP request that fails because the database is unreachable.

Added in app.web.api.build_api outermost around its routes and the Reflex app mounted behind
them, so every server-rendered route (public documents, /escorts-ssg, guarded documents,
sitemaps, photos, the session routes) answers a visitor the same way while PostgreSQL restarts.
Nothing is kept between requests: once the database answers again, so do the pages (the
engine's pooled connections are checked before use, app.db.make_engine).
"""

from __future__ import annotations

import logging

from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db import is_database_outage
from app.states.failures import DATABASE_DOWN
from app.web.rendering import render

log = logging.getLogger(__name__)

# Seconds a client (or a proxy) is told to wait before asking again.
RETRY_AFTER_S = 5


def outage_page(path: str) -> str:
    """The Spanish document shown while the database is unreachable, with a link to try ``path`` again
    (the home page when ``path`` could lead off the site, as ``//other.example`` would)."""
    same_site = path.startswith("/") and not path.startswith("//") and "\\" not in path
    return render("outage.html", message=DATABASE_DOWN, path=path if same_site else "/")


class DatabaseOutagePage:
    """Turns a database outage raised before the response started into a 503 with Retry-After.

    Any other exception, or one raised after the headers went out, goes on to the server's own handling.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_noting_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, send_noting_start)
        except Exception as exc:
            if started or not is_database_outage(exc):
                raise
            log.warning("%s %s: database unavailable (%s)", scope["method"], scope["path"], type(exc).__name__)
            response = HTMLResponse(
                outage_page(scope["path"]),
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_S), "Cache-Control": "no-store", "X-Robots-Tag": "noindex"},
            )
            await response(scope, receive, send)
