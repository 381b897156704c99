"""Reflex configuration, derived from app.settings so there is one source of truth.

No db_url: the app opens its own engine (app.db) and Alembic owns the schema.
"""

import reflex as rx
from reflex.plugins.sitemap import SitemapPlugin
from reflex_components_radix.plugin import RadixThemesPlugin

from app.middleware import allowed_origins
from app.settings import get_settings

_settings = get_settings()

config = rx.Config(
    app_name="app",
    # Memory for one worker (nothing written to disk); Redis shared by several
    # workers when REDIS_URL is set. Never Reflex's default disk manager, which
    # pickles every tab's state into .states/.
    state_manager_mode="redis" if _settings.redis_url else "memory",
    redis_url=_settings.redis_url or None,
    telemetry_enabled=False,
    # SITE_URL and ALLOWED_ORIGINS; in development and test also localhost,
    # 127.0.0.1, 0.0.0.0 and [::1] on SITE_URL's port (socket.io compares the
    # websocket's Origin header with this list).
    cors_allowed_origins=allowed_origins(_settings),
    show_built_with_reflex=False,
    disable_plugins=[SitemapPlugin],
    plugins=[RadixThemesPlugin(theme=rx.theme(appearance="dark", accent_color="pink"))],
)
