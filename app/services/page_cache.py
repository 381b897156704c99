"""Public pages kept in memory and dropped as soon as anything they show may have changed.

Three kinds of page use it: the rendered /escorts-ssg documents (app.web.api), the
documents of the interactive public pages with their first screen (app.web.seo_api), and the
cards and listing details of the interactive directory (app.services.directory_cards).
A page is stored under its inputs (which page, tab and section, the settings it
depends on, and for the documents whether the visitor has accepted the 18+
notice) together with the *change version* read before it was rendered, and is
served again only while the version is unchanged and the entry is younger than
``PAGE_CACHE_SECONDS``. The pages hold nothing personal or secret (no session,
no token): the same inputs give every visitor the same page. A cached value is
shared: callers that hand it on to be changed must copy it.

The age limit also bounds what only the clock changes: a card's "available
now" window closing, or a listing ageing out of a time-based tab ("Lo nuevo",
"Disponible AHORA", an expired VIP) shows within ``PAGE_CACHE_SECONDS``.

The version moves on every committed write that could change a page, however
it was made: a listener on every SQLAlchemy engine sees each INSERT, UPDATE or
DELETE statement on the tables the pages are built from (``WATCHED_TABLES``:
listings, their photos, clips and services, users, tiers and the services' names),
and when that database connection goes back to the pool, after its commit, the
version is bumped. No write path can forget to invalidate, because none has
to ask. The bump is coarse (any such write drops every cached page), which
costs one re-render per page after a change and can never leave a page stale
that a finer rule missed.

Across processes the version lives in Redis (``REDIS_URL``, the same server as
Reflex's state): a bump is an INCR, and an event or request reads it with one
GET, which its other cached reads reuse (a city page's load reads its cards, the
city's communes and the services: one round trip instead of three); this
process's own writes still show at once. Without Redis there is one web process
and the version is this process's counter. A write made outside the app (psql, a
process that failed between its commit and the INCR) is not seen; the age limit
bounds how long such a page can be stale. When Redis cannot be read nothing is
served from the cache.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hashlib
import logging
import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar, cast

import redis
import redis.asyncio as aioredis
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import ConnectionPoolEntry, Pool
from starlette.concurrency import run_in_threadpool

from app import metrics
from app.settings import get_settings

log = logging.getLogger(__name__)
T = TypeVar("T")

# Every table whose rows reach a cached page: the listing, its approved photos,
# its owner (banned or inactive owners hide their listings), its tier (name and order)
# and, on the detail page, its services (which ones, and their names in the catalogue).
WATCHED_TABLES = frozenset(
    {
        "publicacion",
        "publicacion_foto",
        "publicacion_video",
        "usuarios",
        "categoria_profesor",
        "publicacion_servicio",
        "servicio_profesor",
    }
)
MAX_ENTRIES = 1024  # ~15 KB a document, ~50 KB a page of 24 cards: at most ~50 MB per process
REDIS_TIMEOUT_S = 0.5
REDIS_KEY = "ssg:version:{database}"
_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:"?\w+"?\.)?"?(\w+)"?', re.IGNORECASE)
_DIRTY = "ssg_page_cache_dirty"  # set in a pooled connection's info while it holds a watched write


def database_key(url: str) -> str:
    """A short name for a database (its URL without the password, hashed) for keys and version counters."""
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def written_table(statement: str) -> str | None:
    """The table an INSERT, UPDATE or DELETE statement writes, or None for anything else."""
    match = _WRITE.match(statement)
    return match.group(1).lower() if match else None


# The shared version the current task (one event, one request) read: (task, Redis URL, database, value).
# Tasks it starts inherit the variable, not the task, so they read their own.
_task_read: contextvars.ContextVar[tuple[asyncio.Task[object] | None, str, str, bytes | None] | None] = (
    contextvars.ContextVar("page_cache_task_read", default=None)
)


class Versions:
    """Change versions per database: this process's counter, and Redis's when REDIS_URL is set."""

    def __init__(self) -> None:
        self._local: dict[str, int] = {}
        self._lock = threading.Lock()
        self._sync_clients: dict[str, redis.Redis] = {}
        self._async_clients: dict[tuple[str, int], aioredis.Redis] = {}

    def bump(self, database: str) -> None:
        """Record that ``database`` changed: here at once, and for every other process through Redis."""
        with self._lock:
            self._local[database] = self._local.get(database, 0) + 1
        url = get_settings().redis_url
        if not url:
            return
        try:
            client = self._sync_clients.get(url)
            if client is None:
                client = redis.Redis.from_url(
                    url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
                )
                self._sync_clients[url] = client
            client.incr(REDIS_KEY.format(database=database))
        except redis.RedisError as exc:
            log.warning("SSG page cache: could not publish a change to Redis (%s)", type(exc).__name__)

    async def current(self, database: str) -> Hashable | None:
        """The version of ``database`` now, or None when it cannot be known (Redis unreachable).

        Redis's part is read once per task (an event or a request) and reused by its later reads."""
        local = self._local.get(database, 0)
        url = get_settings().redis_url
        if not url:
            return local
        task = asyncio.current_task()
        read = _task_read.get()
        if read is not None and read[0] is task and read[1:3] == (url, database):
            return (local, read[3])
        loop = id(asyncio.get_running_loop())
        client = self._async_clients.get((url, loop))
        if client is None:
            client = aioredis.Redis.from_url(
                url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
            self._async_clients[(url, loop)] = client
        try:
            shared = await client.get(REDIS_KEY.format(database=database))
        except (redis.RedisError, OSError) as exc:
            log.warning("SSG page cache: Redis unreachable, rendering without the cache (%s)", type(exc).__name__)
            return None
        _task_read.set((task, url, database, shared))
        return (local, shared)


@dataclass
class _Entry:
    version: Hashable
    stored_at: float
    value: object


class PageCache:
    """A bounded LRU of pages (documents or cards), each valid for one version and at most ``max_age`` seconds."""

    def __init__(
        self,
        *,
        max_entries: int = MAX_ENTRIES,
        max_age: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        # The bound on staleness for writes the listener cannot see (Settings.page_cache_seconds); 0: no cache.
        self.max_age = get_settings().page_cache_seconds if max_age is None else max_age
        self.clock = clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, version: Hashable) -> object | None:
        """The page stored under ``key`` for ``version`` and still young enough, else None."""
        entry = self._entries.get(key)
        if entry is None or entry.version != version or self.clock() - entry.stored_at >= self.max_age:
            self.misses += 1
            metrics.PAGE_CACHE.labels(metrics.MISS).inc()
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        metrics.PAGE_CACHE.labels(metrics.HIT).inc()
        return entry.value

    def put(self, key: Hashable, version: Hashable, value: object) -> None:
        """Store ``value`` for ``version`` (the one read before rendering it), dropping the least used past the bound."""
        self._entries[key] = _Entry(version, self.clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every page."""
        self._entries.clear()


versions = Versions()
pages = PageCache()


# Each engine's database_key, taken once: every cached read names its database (rendering the URL and hashing it
# cost more than the rest of a cache hit).
_engine_databases: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()


def engine_database(engine: Engine) -> str:
    """The :func:`database_key` of an engine's database, as the write listener names it."""
    found = _engine_databases.get(engine)
    if found is None:
        found = _engine_databases[engine] = database_key(engine.url.render_as_string(hide_password=True))
    return found


# Renders under way in this process, by (key, version): requests for the same page at the same
# version wait for that one render instead of each running the queries (after every change).
_flights: dict[tuple[Hashable, ...], asyncio.Future[object]] = {}


async def _render(render: Callable[[], T]) -> T:
    """Render a page off the event loop (cached or not: the cache is off, Redis unreachable), counted."""
    metrics.PAGE_CACHE_RENDERS.inc()
    return await run_in_threadpool(render)


async def _render_async(render: Callable[[], Awaitable[T]]) -> T:
    """Render a page that awaits its own parts (themselves cached, read off the event loop), counted."""
    metrics.PAGE_CACHE_RENDERS.inc()
    return await render()


async def cached(key: Hashable, engine: Engine, render: Callable[[], T]) -> T:
    """The page for ``key``: from the cache while nothing changed, else ``render()`` (run in a thread) and stored.

    ``key`` names every input of ``render`` and is unique across callers (each starts it with its own word).

    Concurrent requests for a page being rendered share that render; if it fails, each renders its own.
    """
    return await _cached(key, engine, functools.partial(_render, render))


async def cached_async(key: Hashable, engine: Engine, render: Callable[[], Awaitable[T]]) -> T:
    """As :func:`cached`, for a page whose ``render`` is a coroutine function (run on the event loop; what it
    reads blocking must go off the loop itself, as the cached reads it builds on do)."""
    return await _cached(key, engine, functools.partial(_render_async, render))


async def _cached(key: Hashable, engine: Engine, produce: Callable[[], Awaitable[T]]) -> T:
    if pages.max_age <= 0:
        return await produce()
    database = engine_database(engine)
    version = await versions.current(database)
    full_key = (database, key)
    if version is None:
        return await produce()
    found = pages.get(full_key, version)
    if found is not None:
        return cast("T", found)  # stored under this key by the same render
    flight = (full_key, version)
    loop = asyncio.get_running_loop()
    leader = _flights.get(flight)
    if leader is not None and leader.get_loop() is loop:
        await asyncio.wait({leader})
        if not leader.cancelled() and leader.exception() is None:
            return cast("T", leader.result())
        return await produce()
    future = loop.create_future()
    _flights[flight] = future
    try:
        value = await produce()
    except BaseException:
        future.cancel()
        raise
    finally:
        if _flights.get(flight) is future:
            del _flights[flight]
    pages.put(full_key, version, value)
    future.set_result(value)
    return value


def _before_cursor_execute(
    conn: Connection, _cursor: object, statement: str, _parameters: object, _context: object, _executemany: bool
) -> None:
    if written_table(statement) in WATCHED_TABLES:
        conn.info[_DIRTY] = engine_database(conn.engine)


def _checkin(_dbapi_connection: object, record: ConnectionPoolEntry | None) -> None:
    # Back in the pool means committed or rolled back; a rollback's bump is only a wasted render.
    if record is not None and _DIRTY in record.info:
        versions.bump(record.info.pop(_DIRTY))


def _listen() -> None:
    if not event.contains(Engine, "before_cursor_execute", _before_cursor_execute):
        event.listen(Engine, "before_cursor_execute", _before_cursor_execute)
        event.listen(Pool, "checkin", _checkin)


_listen()
