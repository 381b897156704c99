"""Reflex configuration, derived from app.settings so there is one source of truth.

No db_url: the app opens its own engine (app.db) and Alembic owns the schema.
"""

import os

import reflex as rx
from reflex.plugins.sitemap import SitemapPlugin
from reflex_components_radix.plugin import RadixThemesPlugin

from app.settings import get_settings
from app.web.middleware import allowed_origins

_settings = get_settings()

# Backend worker processes: Reflex's production server (Granian) reads
# GRANIAN_WORKERS. One without Redis (a memory state manager cannot be shared),
# WEB_WORKERS with it; unset, Reflex's own choice with Redis (two per core plus one).
if (_workers := _settings.backend_workers) is not None:
    os.environ["GRANIAN_WORKERS"] = str(_workers)

# With Redis, Reflex's opportunistic lock: the worker that serves a tab's websocket keeps the
# tab's state and its Redis lock between events for a while, and writes the state back when that
# time ends or at once when another worker asks for the lock (an upload, a reconnection
# elsewhere). Without it every event locks, reads, writes and unlocks the state in Redis: four
# round trips and a (de)serialisation per event, which made Redis cost more CPU per event than
# memory state and two workers answer fewer events than one (issue 18; figures in
# docs/performance.md). Held 1 s, not Reflex's default of half the lock's 10 s expiration: that
# covers a navigation's three events, sent together, and an overloaded worker whose event loop
# wakes its lease late still writes back before the lock expires (with 5 s it did not, and the
# tabs' last changes were dropped). REFLEX_OPLOCK_ENABLED=false / REFLEX_OPLOCK_HOLD_TIME override.
if _settings.redis_url:
    os.environ.setdefault("REFLEX_OPLOCK_ENABLED", "true")
    os.environ.setdefault("REFLEX_OPLOCK_HOLD_TIME", "1s")

config = rx.Config(
    app_name="app",
    # Memory for one worker (nothing written to disk); Redis shared by several
    # workers when REDIS_URL is set. Never Reflex's default disk manager, which
    # pickles every tab's state into .states/.
    state_manager_mode="redis" if _settings.redis_url else "memory",
    redis_url=_settings.redis_url or None,
    # Websocket only (Reflex's default, stated here because several workers rely
    # on it): a tab's whole connection stays on the worker that accepted it, so
    # no sticky sessions are needed; long polling would spread one connection's
    # requests over workers that do not know it.
    transport="websocket",
    telemetry_enabled=False,
    # SITE_URL and ALLOWED_ORIGINS; in development and test also localhost,
    # 127.0.0.1, 0.0.0.0 and [::1] on SITE_URL's port (socket.io compares the
    # websocket's Origin header with this list).
    cors_allowed_origins=allowed_origins(_settings),
    show_built_with_reflex=False,
    disable_plugins=[SitemapPlugin],
    plugins=[RadixThemesPlugin(theme=rx.theme(appearance="dark", accent_color="pink"))],
)
