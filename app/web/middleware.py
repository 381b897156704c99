"""Security headers, cache lifetimes and the Host and Origin checks, for every response.

A pure ASGI middleware (Starlette's BaseHTTPMiddleware would buffer streaming
responses and cannot see websockets), appended to ``rx.App(api_transformer=[...])``
so it wraps the compiled pages and their assets, the plain HTTP routes of
``app.web.api`` and the websocket. On websocket connections only the Host and
Origin checks apply.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from pathlib import Path
from urllib.parse import urlsplit

from reflex_base import constants
from reflex_base.config import get_config
from reflex_base.environment import environment
from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import seo
from app.settings import Settings, get_settings, origin_of

# Hosts a newcomer may open in development and tests (any port).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "[::1]")
# Liveness probes call the container by its own address (Dockerfile HEALTHCHECK:
# http://127.0.0.1:$PORT/healthz), not by the public host name, so this path
# skips the Host check; it answers nothing but "ok" or an error.
HEALTH_PATH = "/healthz"
# Vite's build output: /assets/<name>-<content hash>.<ext>; a new build means new names.
HASHED_ASSET = re.compile(r"^/assets/[^/]+-[A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
HSTS = "max-age=63072000; includeSubDomains"
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
)
UNKNOWN_HOST = "Solicitud rechazada: esta dirección no corresponde al sitio."
# The websocket close code sent before accepting, which servers answer with HTTP 403.
POLICY_VIOLATION = 1008
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.+?)</script>", re.DOTALL | re.IGNORECASE)


def allowed_origins(settings: Settings) -> list[str]:
    """The origins allowed for CORS and the websocket: SITE_URL's and ALLOWED_ORIGINS.

    In development and test also http://localhost, 127.0.0.1, 0.0.0.0 and
    [::1] on SITE_URL's port, the addresses Reflex prints when it starts.
    """
    origins = [origin_of(settings.site_url), *settings.allowed_origins]
    if settings.environment != "production":
        port = urlsplit(settings.site_url).port
        origins += [origin_of(f"http://{host}" + (f":{port}" if port else "")) for host in LOCAL_HOSTS]
    return list(dict.fromkeys(origins))


def serves_production(settings: Settings) -> bool:
    """Whether this server runs as production: ENVIRONMENT=production, or Reflex's production mode.

    Reflex's production mode is ``reflex run --env prod`` (scripts/run.sh, which starts a site on the
    embedded defaults, ENVIRONMENT unset) and scripts/serve.py (the image's command, and the
    end-to-end test sites'); plain ``reflex run`` is development.
    """
    return settings.environment == "production" or environment.REFLEX_ENV_MODE.get() == constants.Env.PROD


def websocket_origin_allowed(origin: str | None, origins: frozenset[str], *, production: bool) -> bool:
    """Whether a websocket handshake's Origin header is admitted.

    A browser always sends Origin on a websocket, so one without it is a
    script or a tool, not a page of the site: production (:func:`serves_production`)
    refuses it as it refuses a foreign origin. Development admits it, for tools
    and test clients that talk to the websocket directly and may leave it out (a
    python-socketio client does); a foreign origin is refused everywhere.
    """
    if origin is None:
        return not production
    return origin in origins


def host_name(host: str) -> str:
    """The host name of a Host header value, lower case, without the port (IPv6 keeps its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.partition(":")[0]


def allowed_host_names(settings: Settings) -> frozenset[str]:
    """Host names accepted in the Host header (on any port): those of the allowed origins."""
    return frozenset(host_name(urlsplit(origin).netloc) for origin in allowed_origins(settings))


@functools.lru_cache
def inline_script_hashes(static_dir: Path) -> tuple[str, ...]:
    """CSP sources (``'sha256-…'``) of every inline script in the built pages under ``static_dir``, and of the
    loader of assets/site.js that the served documents carry in its place (app.seo.SITE_SCRIPT_LOADER).

    React Router's prerendered pages carry small inline scripts (hydration
    context, scroll restoration, the color-mode script); allowing exactly
    these keeps 'unsafe-inline' out of script-src.
    """
    bodies = {seo.SITE_SCRIPT_LOADER}  # put in by app.seo.split_shell in place of the head's assets/site.js
    for page in static_dir.rglob("*.html"):
        bodies.update(_INLINE_SCRIPT.findall(page.read_text(encoding="utf-8")))
    digests = (base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() for body in bodies)
    return tuple(sorted(f"'sha256-{digest}'" for digest in digests))


def content_security_policy(settings: Settings, script_hashes: tuple[str, ...] = ()) -> str:
    """The Content-Security-Policy of the site; each exception to 'self' is explained inline."""
    # CSP host sources cannot name IPv6 literals ([::1]); 'self' covers a page opened there.
    websockets = [
        origin.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        for origin in allowed_origins(settings)
        if "[" not in origin
    ]
    directives = {
        "default-src": ["'self'"],
        # 'unsafe-eval': Reflex runs server-sent toasts, rx.call_script and event
        # callbacks through eval() in .web/utils/state.js. The hashes allow the
        # inline scripts of the prerendered pages and nothing else inline.
        "script-src": ["'self'", "'unsafe-eval'", *script_hashes],
        # 'unsafe-inline': Emotion (Reflex's style props) and Radix insert <style>
        # elements at run time, and the /escorts-ssg pages carry their CSS inline.
        "style-src": ["'self'", "'unsafe-inline'"],
        # The websocket (/_event) on every allowed origin; older browsers do
        # not count ws:/wss: as 'self'.
        "connect-src": ["'self'", *websockets],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def _frontend_dir() -> Path:
    """Where Reflex's production build puts the pages it serves (as reflex.utils.exec.get_frontend_mount)."""
    from reflex.utils import prerequisites
    from reflex_base import constants
    from reflex_base.config import get_config

    return prerequisites.get_web_dir() / constants.Dirs.STATIC / get_config().frontend_path.strip("/")


def _merged_vary(headers: MutableHeaders) -> str:
    """Every Vary token once, Origin left out (see SecurityMiddleware)."""
    tokens = [token.strip() for value in headers.getlist("vary") for token in value.split(",") if token.strip()]
    kept = {token.lower(): token for token in reversed(tokens) if token.lower() != "origin"}
    return ", ".join(reversed(kept.values()))


class SecurityMiddleware:
    """Refuses unknown Host headers (400) and websockets from a foreign origin (in production, from none too),
    and sets the security headers.

    Cache-Control: hashed build assets are immutable for a year; every other
    response without its own Cache-Control (pages, 404s, photos, health) is
    revalidated on each use, so nothing is stale after a deploy.

    Vary: Reflex puts a CORS middleware at three layers (its API, each Starlette
    app of api_transformer, and the top-level app outside this one), and each
    appends "Origin". This middleware keeps every other token once and drops
    Origin, which the outermost layer then adds exactly once.
    """

    def __init__(self, app: ASGIApp, *, settings: Settings | None = None, static_dir: Path | None = None) -> None:
        self.app = app
        self.settings = settings or get_settings()
        self.static_dir = static_dir
        self.origins = frozenset(allowed_origins(self.settings))
        self.production = serves_production(self.settings)
        self.host_names = allowed_host_names(self.settings)
        self.headers = {
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "strict-origin-when-cross-origin",
            "Permissions-Policy": PERMISSIONS_POLICY,
            "Cross-Origin-Opener-Policy": "same-origin",
            "Content-Security-Policy": content_security_policy(self.settings),
        }
        if self.settings.is_https:
            self.headers["Strict-Transport-Security"] = HSTS

    @functools.cached_property
    def page_policy(self) -> str:
        """The policy for HTML documents: with the hashes of the built pages' inline scripts."""
        return content_security_policy(self.settings, inline_script_hashes(self.static_dir or _frontend_dir()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_headers = Headers(scope=scope)
        known_host = host_name(request_headers.get("host", "")) in self.host_names
        if scope["type"] == "websocket":
            origin = request_headers.get("origin")
            if not known_host or not websocket_origin_allowed(origin, self.origins, production=self.production):
                await send({"type": "websocket.close", "code": POLICY_VIOLATION})
                return
            await self.app(scope, receive, send)
            return

        path = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._add_headers(message, path)
            await send(message)

        if not known_host and path != HEALTH_PATH:
            await PlainTextResponse(UNKNOWN_HOST, status_code=400)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _add_headers(self, message: Message, path: str) -> None:
        headers = MutableHeaders(scope=message)
        for name, value in self.headers.items():
            headers[name] = value
        # Granian adds "server: granian" unless the response has a Server header, and has no option
        # to leave it out: an empty one names no software.
        headers["Server"] = ""
        # A 304 replaces the stored headers of the page it revalidates, so it needs the page's policy too.
        if message["status"] == 304 or headers.get("content-type", "").startswith("text/html"):
            headers["Content-Security-Policy"] = self.page_policy
        vary = _merged_vary(headers)
        del headers["vary"]
        if vary:
            headers["Vary"] = vary
        if "cache-control" not in headers:
            fresh = message["status"] in (200, 304)
            headers["Cache-Control"] = IMMUTABLE if fresh and HASHED_ASSET.match(path) else REVALIDATE


class CompressionMiddleware(GZipMiddleware):
    """gzip for what the app renders per request: the SSG pages, robots.txt, sitemaps, JSON.

    Reflex serves its build precompressed (a .gz beside each file, Content-Encoding
    already set), which Starlette's GZipMiddleware passes through untouched, as it
    does images, bodies under 500 bytes and websockets. Level 6: most of level 9's
    saving on a page of a few KB at a fraction of the CPU.
    """

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, minimum_size=500, compresslevel=6)


def client_address(request: Request) -> str:
    """The caller's address as Reflex reads it on the websocket: the peer's, or with ``trusted_proxy_hops``
    the one that many proxies back in X-Forwarded-For (so that a visitor counts alike over HTTP and the socket)."""
    address = request.client.host if request.client else ""
    hops = get_config().trusted_proxy_hops
    if hops:
        forwarded = [part.strip() for part in request.headers.get("x-forwarded-for", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            address = forwarded[-hops]
    return address


def from_this_site(request: Request) -> bool:
    """Whether a form post comes from a page of this site, as far as the browser says.

    Modern browsers send ``Sec-Fetch-Site`` on every request and ``Origin`` on
    every POST: each one present must say same-origin (``Origin`` one of the
    site's origins, or the request's own host). A browser too old to send either
    is let through: it cannot be told apart, and the cookie it gets only skips
    the 18+ notice.
    """
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site.strip().lower() != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().lower()
    if origin in allowed_origins(get_settings()):
        return True
    own = f"{request.url.scheme}://{request.headers.get('host', '').strip().lower()}"
    return origin == own
