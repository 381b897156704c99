"""The site's Prometheus metrics (prometheus-client): every metric object, and the scrape that serves them.

Names and labels are a contract with the alert rules (docs/deployment.md, "Metrics"). A label never
carries a person, an address, a token, a raw path or a record id: routes are templates, handlers are
``State.event`` names, tasks are the task names of app.task_queue.

Each metric is written in one place: HTTP requests by the ASGI middleware of app.web.observe,
websocket events, sockets and reconnects by its wrappers of Reflex's event processor, state lock waits
in app.web.state_locks, the page cache in app.services.page_cache, the database pool and slow
statements by the engine's events in app.db, jobs by the worker middleware of app.tasks, mail in
app.services.mail ``deliver``, photos in app.services.photos ``process_photo``. What the database
knows (the review queue, reports, periodic jobs, backups) is read at scrape time by
:class:`FiguresCollector` from a function the caller hands in (app.services.monitoring).

Several worker processes (Granian's): with ``PROMETHEUS_MULTIPROC_DIR`` in the environment (prometheus
client's own variable, set to a fresh folder at every start by scripts/serve.py and scripts/run.sh)
each process writes its values to files there and a scrape adds them up; gauges say how
(``livesum``: the live processes' values added). Without it the values live in this process.
"""

from __future__ import annotations

import hmac
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

# The text format every Prometheus reads (what prometheus-client answers a scraper that names no other).
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
METRICS_PATH = "/metrics"
# Label values of what happens to an event, a job, a message, a photo.
OK, ERROR, CANCELLED = "ok", "error", "cancelled"
SUCCEEDED, FAILED, RETRIED = "succeeded", "failed", "retried"
SENT = "sent"
PROCESSED = "processed"
HIT, MISS = "hit", "miss"
IN_USE, WAITING = "in_use", "waiting"
URGENT, NORMAL = "urgent", "normal"
OTHER_ROUTE = "other"

HTTP_REQUESTS = Counter(
    "escorts_http_requests_total", "HTTP requests answered, by route template.", ["route", "method", "status"]
)
HTTP_DURATION = Histogram(
    "escorts_http_request_duration_seconds", "Time to answer an HTTP request, by route template.", ["route", "method"]
)
WS_EVENTS = Counter("escorts_ws_events_total", "Websocket events processed, by handler.", ["handler", "outcome"])
WS_EVENT_DURATION = Histogram(
    "escorts_ws_event_duration_seconds",
    "Time to process a websocket event (state lock included), by handler.",
    ["handler"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
WS_OPEN_SOCKETS = Gauge("escorts_ws_open_sockets", "Websockets open now.", multiprocess_mode="livesum")
WS_CONNECTS = Counter("escorts_ws_connects_total", "Websocket connections accepted.")
WS_RECONNECTS = Counter(
    "escorts_ws_reconnects_total", "Websocket connections of a page that was already connected (a reconnect)."
)
WS_TOKENS_KEPT = Counter(
    "escorts_ws_tokens_kept_total",
    "Reconnects that took their tab's token back from a socket the server still held open (app.web.reconnects).",
)
STATE_LOCK_WAIT = Histogram(
    "escorts_state_lock_wait_seconds",
    "Time to take a tab's state lock in Redis.",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
STATE_LOCK_FAILURES = Counter(
    "escorts_state_lock_failures_total", "Tab state locks not taken (Redis failed) or lost before the state was saved."
)
PAGE_CACHE = Counter("escorts_page_cache_total", "Page cache lookups, by result.", ["result"])
PAGE_CACHE_RENDERS = Counter("escorts_page_cache_renders_total", "Pages rendered for (or without) the page cache.")
DB_POOL = Gauge(
    "escorts_db_pool_connections",
    "Pooled database connections in use, and requests waiting for one.",
    ["state"],
    multiprocess_mode="livesum",
)
DB_SLOW_STATEMENTS = Counter(
    "escorts_db_slow_statements_total", "Database statements slower than DB_SLOW_STATEMENT_MS."
)
TASK_JOBS = Counter("escorts_task_jobs_total", "Background jobs run, by task and outcome.", ["task", "outcome"])
TASK_DURATION = Histogram(
    "escorts_task_job_duration_seconds",
    "Time a background job ran, by task.",
    ["task"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600),
)
MAIL_MESSAGES = Counter("escorts_mail_messages_total", "E-mail delivery attempts, by outcome.", ["outcome"])
PHOTO_UPLOADS = Counter("escorts_photo_uploads_total", "Photos processed or refused.", ["outcome"])
PHOTO_SECONDS = Histogram(
    "escorts_photo_processing_seconds",
    "Time to check a photo and make its sizes.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30),
)

# Known label values start at 0, so a rate exists before the first one happens.
for _outcome in (SENT, FAILED, RETRIED):
    MAIL_MESSAGES.labels(_outcome)
for _outcome in (PROCESSED, FAILED):
    PHOTO_UPLOADS.labels(_outcome)
for _result in (HIT, MISS):
    PAGE_CACHE.labels(_result)
for _state in (IN_USE, WAITING):
    DB_POOL.labels(_state)


@dataclass(frozen=True)
class SiteFigures:
    """What the database says at scrape time (app.services.monitoring reads it); ages in seconds, 0 for none."""

    oldest_pending_review_age: float = 0.0
    reports_waiting: dict[str, int] = field(default_factory=dict)  # by URGENT / NORMAL
    oldest_urgent_report_age: float = 0.0
    periodic_last_success: dict[str, float] = field(default_factory=dict)  # task name -> Unix time (0: never)
    periodic_period: dict[str, float] = field(default_factory=dict)  # task name -> seconds
    backup_last_success: float = 0.0  # Unix time, 0: never


class FiguresCollector(Collector):
    """The gauges read from the database at every scrape. A database that does not answer leaves them out
    (the scrape still serves every other metric) and is logged."""

    def __init__(self, read: Callable[[], SiteFigures]) -> None:
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            figures = self.read()
        except Exception as exc:  # the database is down: the other metrics must still be served
            log.warning("metrics: site figures not read (%s)", type(exc).__name__)
            return
        yield GaugeMetricFamily(
            "escorts_review_oldest_pending_age_seconds",
            "Age of the oldest item waiting in the review queue (0 when none).",
            value=figures.oldest_pending_review_age,
        )
        waiting = GaugeMetricFamily("escorts_reports_waiting", "New reports waiting for staff.", labels=["urgency"])
        for urgency in (URGENT, NORMAL):
            waiting.add_metric([urgency], figures.reports_waiting.get(urgency, 0))
        yield waiting
        yield GaugeMetricFamily(
            "escorts_reports_oldest_urgent_age_seconds",
            "Age of the oldest urgent report waiting (0 when none).",
            value=figures.oldest_urgent_report_age,
        )
        success = GaugeMetricFamily(
            "escorts_periodic_task_last_success_timestamp_seconds",
            "When each periodic job last succeeded (Unix time; 0: never).",
            labels=["task"],
        )
        for task, moment in sorted(figures.periodic_last_success.items()):
            success.add_metric([task], moment)
        yield success
        period = GaugeMetricFamily(
            "escorts_periodic_task_period_seconds", "How often each periodic job runs.", labels=["task"]
        )
        for task, seconds in sorted(figures.periodic_period.items()):
            period.add_metric([task], seconds)
        yield period
        yield GaugeMetricFamily(
            "escorts_backup_last_success_timestamp_seconds",
            "When python -m app.cli backup last succeeded (Unix time; 0: never).",
            value=figures.backup_last_success,
        )


def multiprocess_dir() -> Path | None:
    """The folder every process writes its values to, when prometheus-client runs in multiprocess mode."""
    # prometheus-client's own variable (it reads it when imported), not a setting of the site.
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(folder) if folder else None


_LIVE_FILE = re.compile(r"^gauge_live\w*_(?P<pid>[0-9]+)\.db$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return True


def forget_dead_processes(folder: Path) -> list[int]:
    """Drop the live gauges (open sockets, pool) of processes that ended (a Granian worker restarted)."""
    dead = sorted(
        {int(match["pid"]) for path in folder.glob("gauge_live*.db") if (match := _LIVE_FILE.match(path.name))}
    )
    dead = [pid for pid in dead if not _alive(pid)]
    for pid in dead:
        multiprocess.mark_process_dead(pid, str(folder))  # type: ignore[no-untyped-call]  # unannotated upstream
    return dead


class _ThisProcess(Collector):
    """The default registry's metrics (this process's values), for a scrape without multiprocess mode."""

    def collect(self) -> Iterator[object]:  # type: ignore[override]  # prometheus-client's Metric objects
        yield from REGISTRY.collect()


def exposition(figures: Callable[[], SiteFigures] | None = None) -> bytes:
    """The text a scrape returns: every process's metrics, and the database's figures when ``figures`` is given."""
    registry = CollectorRegistry(auto_describe=False)
    folder = multiprocess_dir()
    if folder is not None:
        forget_dead_processes(folder)
        multiprocess.MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]  # unannotated upstream
    else:
        registry.register(_ThisProcess())
    if figures is not None:
        registry.register(FiguresCollector(figures))
    return generate_latest(registry)


def scrape_status(authorization: str | None, token: str) -> int:
    """200 for ``Authorization: Bearer <token>``; 401 for anything else; 404 while no token is configured."""
    if not token:
        return 404
    expected = f"Bearer {token}".encode()
    return 200 if hmac.compare_digest((authorization or "").encode(), expected) else 401


def serve(port: int, token: str, figures: Callable[[], SiteFigures] | None = None) -> ThreadingHTTPServer | None:
    """Serve GET /metrics on ``port`` from a daemon thread (a worker process's scrape); None when not served:
    no token, port 0, or the port taken (logged: the worker goes on without it)."""
    if not token or not port:
        return None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = scrape_status(self.headers.get("Authorization"), token) if self.path == METRICS_PATH else 404
            body = exposition(figures) if status == 200 else b""
            self.send_response(status)
            self.send_header("Content-Type", CONTENT_TYPE if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # the base class names it so
            """Scrapes are not logged (every 15 s from each Prometheus)."""

    try:
        server = ThreadingHTTPServer(("0.0.0.0", port), Handler)  # scraped from another machine
    except OSError as exc:
        log.warning("metrics: port %d not served (%s)", port, exc.strerror or type(exc).__name__)
        return None
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
