"""The composition root: the Reflex app, every page of the route table (app.route_table), the plain HTTP
routes and middleware (app.web) and, in-process, the background jobs' worker. Nothing imports this module: it hands the app to
whoever needs it (the upload route)."""

from __future__ import annotations

import gc

import reflex as rx

from app import logs
from app.components import color_mode
from app.components.failures import APP_WRAPS
from app.components.layout import TOAST_REGION_LABEL
from app.route_table import DIRECTORY_LOAD, PAGE_ROUTES
from app.settings import get_settings
from app.states.failures import on_backend_exception
from app.tasks import run_in_process
from app.web.api import build_api
from app.web.cookies import handshake_middleware
from app.web.middleware import CompressionMiddleware, SecurityMiddleware
from app.web.observe import observe_events, observe_requests
from app.web.page_loads import install as load_pages_inline
from app.web.reconnects import keep_tokens_on_reconnect
from app.web.state_locks import release_locks_of_cancelled_events
from app.web.untouched_states import install as skip_untouched_states

# The cycle collector tuned for a server's heap, here and so in the workers Granian forks from this process. With
# CPython's default (a young collection every 700 allocations) a web worker spent 3.5-4.2 % of its CPU collecting
# under the visitors' mix, with full passes of up to 115 ms walking every tab's states and the page cache; with a
# young collection every 50,000 allocations, 1.3-2.2 % and no full pass (docs/performance.md, 2026-11-29 18:55).
# Only garbage in reference cycles waits for it: everything else is freed at once, as before.
gc.set_threshold(50_000, 10, 10)

# Logs and error reports: now for this process (the import, and the supervisor that forks the workers), and
# again in each web worker once Granian has set its own loggers up there (the first lifespan task).
logs.configure()

# With Redis state, a cancelled event gives back the tab's lock it was taking (app.web.state_locks).
release_locks_of_cancelled_events()
# Every websocket event and socket counted, timed and logged (app.web.observe).
observe_events()
# A page connecting again before the server noticed its drop keeps its tab's state (app.web.reconnects).
keep_tokens_on_reconnect()
# The directory's pages load in the navigation's own event, not in two chained after it (app.web.page_loads).
load_pages_inline(DIRECTORY_LOAD)
# A new tab's hydrate leaves the states it never used as they are (app.web.untouched_states).
skip_untouched_states()
# Every page's head sets the fixed dark mode without reading the browser's storage (app.components.color_mode).
color_mode.install()

app = rx.App(
    html_lang="es-CL",
    stylesheets=["/styles.css"],
    head_components=[
        rx.el.script(src="/site.js", defer=True),
        # assets/favourites.js comes with the app (assets/site.js starts both), assets/proof.js and
        # assets/clips.js only to the pages that use them.
    ],
    # Sonner names its region "Notifications alt+T" unless given its whole name.
    toaster=rx.toast.provider(position="bottom-center", custom_attrs={"customAriaLabel": TOAST_REGION_LABEL}),
    # Reflex's English notices in Spanish: lost connection, render failure, handler errors.
    extra_app_wraps=APP_WRAPS,
    backend_exception_handler=on_backend_exception,
)
# Plain HTTP routes first, then ASGI middleware wrapping everything (pages, assets, the websocket)
# in order. Set once the app exists: the upload route hands files to this app's event processor.
# Reflex reads the list only when it starts serving (App.__call__).
api = build_api(app)
app.api_transformer = [
    api,
    handshake_middleware,
    CompressionMiddleware,
    # Refuses unknown hosts first and sets the headers of every response.
    SecurityMiddleware,
    # Last, so outermost: counts, times and logs every request (the Host check's 400s too) and answers
    # /metrics to Prometheus, which calls a node by its own address.
    observe_requests(api),
]
app.register_lifespan_task(logs.configure)
# Background jobs (app.tasks): run here unless worker processes do (TASK_WORKER=separate).
if get_settings().task_worker == "in-process":
    app.register_lifespan_task(run_in_process)

# Every page from the one route table (app.route_table), in one loop.
for page_route in PAGE_ROUTES:
    app.add_page(
        page_route.page,
        route=page_route.path,
        title=page_route.title,
        description=page_route.description,
        on_load=list(page_route.on_load),
    )
