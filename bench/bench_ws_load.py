"""Websocket load: N simulated visitors of the public directory, on several server setups side by side.

Loads the demo data (``app.seed``) into a scratch PostgreSQL database once, then, one setup after
another, serves the app in production mode the way the e2e tests do (``tests.e2e.conftest``: the
production build) and loads it with the same visitors. The setups (``--setups``) are memory state
with one worker, Redis state with one worker and Redis state with ``--workers`` workers; a setup
may name a git revision (``redis-2@abc123``) to serve the ``app`` package, ``assets`` and
``rxconfig.py`` committed there, so that an earlier version is measured in the same run.

Each visitor (one websocket, socket.io on /_event, the allowed Origin, the 18+ cookie of a
returning visitor) does what people do on the directory, with ``--think`` seconds between
actions (``MIX``):

- first load: the city page's document (HTTP GET), then the websocket with the hydrate event in
  the CONNECT packet as Reflex's frontend sends it, until the city's first page of cards arrives;
- on a city page or one of its filter tabs: open a listing, switch to another filter tab, next
  or previous page, change a field of the filter form (``count``: the matches counted before they
  are applied), apply filters (``filter``: the filtered URL, as the frontend navigates to it after
  the form's redirect; a random hourly rate, age and sometimes the city's own commune), go to
  another city, or leave;
- on a listing: back to the page it came from, another city, or leave.

Leaving closes the socket; the next visitor arrives with a first load. Navigations are
client-side, as the frontend does them: ``update_vars_internal`` and ``on_load_internal`` for
the new URL. Every answer is checked (the page's cards, the page number, the listing, the path
shown). An action's time runs from sending its first frame to receiving the update that carries
what it loads; it fails when none arrives within ``--timeout`` seconds, when the update is wrong
or when the socket closes (the visitor then reconnects, as a reload would). The size of that update
(its JSON, as sent) is kept per kind of action.

For each setup it prints the actions answered and failed, p50/p95/p99 per kind of action, the CPU
of the app's processes (the scripts/serve.py tree, from /proc) and of the Redis server, this
client's CPU and the load average; then one table of the setups side by side: actions a second,
errors, app CPU per action (its CPU seconds / actions answered), the same with Redis's CPU, the
Redis commands an action cost (``INFO commandstats``: the state, its locks, the page cache's version,
the limits), and p95 of the actions and of first loads. CPU per action and commands per action depend
little on how busy the machine is; the wall-time figures do, so the load average is printed beside them.

Targets (issue 18): Redis state costs no more CPU per action than memory state; 500 visitors on
Redis with 2 workers: p95 under 150 ms for actions and first loads, no errors; 2 workers answer
1.5 times the actions a second of 1 worker at saturation (``--think 0``).
Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_ws_load.py --visitors 500 --listings 3000

``--profile 150`` then runs, on each setup, a second load of 150 visitors with py-spy sampling
the server processes, and prints the functions with the most samples.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import wsproto
import wsproto.events as ws
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib
import math

from app.models import Section
from app.models.filter_tabs import DEFAULT_TAB, FILTER_TABS
from app.routes import city_path
from bench.common import demo_database, quantile, serve_demo
from tests.redis_server import SITE_DB, redis_url

TARGET_P95_MS = 150.0
NAMESPACE = "/_event"
ROOT = "reflex___state____state"
DIRECTORY = f"{ROOT}.app___states___public____directory_state"
HYDRATED = "is_hydrated_rx_state_"
UPDATE_VARS = f"{ROOT}.reflex___state____update_vars_internal_state.update_vars_internal"
ON_LOAD = f"{ROOT}.reflex___state____on_load_internal_state.on_load_internal"
HASHES = re.compile(r"export const initialStateHashes = (\[.*?\])", re.DOTALL)


class Closed(Exception):
    """The websocket closed or was refused."""


class WebSocket:
    """A minimal websocket client on asyncio streams and wsproto (both already in the app's requirements)."""

    def __init__(self) -> None:
        self.conn = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.parts: list[str] = []
        self.early: list = []

    async def open(self, host: str, port: int, target: str, headers: list[tuple[bytes, bytes]], protocol: str) -> None:
        """TCP connect and the websocket upgrade."""
        self.reader, self.writer = await asyncio.open_connection(host, port)
        self.writer.write(
            self.conn.send(
                ws.Request(host=f"{host}:{port}", target=target, extra_headers=headers, subprotocols=[protocol])
            )
        )
        while True:
            events = await self._events()
            for index, event in enumerate(events):
                if isinstance(event, ws.AcceptConnection):
                    self.early = events[index + 1 :]  # frames that came with the 101 answer
                    return
                if isinstance(event, ws.RejectConnection):
                    raise Closed(f"websocket refused: HTTP {event.status_code}")

    async def _events(self) -> list:
        data = await self.reader.read(65536)
        if not data:
            raise Closed("connection closed by the server")
        self.conn.receive_data(data)
        return list(self.conn.events())

    async def receive(self) -> list[str]:
        """The text messages completed by the next read (answers websocket pings)."""
        messages = []
        events, self.early = self.early or await self._events(), []
        for event in events:
            if isinstance(event, ws.TextMessage):
                self.parts.append(event.data)
                if event.message_finished:
                    messages.append("".join(self.parts))
                    self.parts = []
            elif isinstance(event, ws.Ping):
                self.writer.write(self.conn.send(event.response()))
            elif isinstance(event, ws.CloseConnection):
                raise Closed(f"websocket closed: {event.code} {event.reason}")
        return messages

    def send(self, text: str) -> None:
        """Queue one text message."""
        self.writer.write(self.conn.send(ws.Message(data=text)))

    async def close(self) -> None:
        """Close without waiting for the server's close frame."""
        if self.writer is None:
            return
        with contextlib.suppress(Exception):
            self.writer.write(self.conn.send(ws.CloseConnection(code=1000)))
        self.writer.close()


# What a visitor does next, and how often (relative weights): on a city page or one of its tabs, and on a
# listing. A visitor leaves after about ten actions on average; the next one arrives with a first load.
MIX = {
    "list": {
        "detail": 35,
        "tab": 25,
        "next_page": 15,
        "previous_page": 5,
        "count": 10,
        "filter": 10,
        "city": 10,
        "leave": 10,
    },
    "detail": {"back": 75, "city": 15, "leave": 10},
}
FIRST_LOAD = "first load"
# One kind of action alone (``--only``), for a profile of each: the mix a visitor follows instead of MIX. A listing
# is left by going back, so "detail" measures the pair; "first_load" visitors leave once the page has loaded.
ONLY = {
    "first_load": {"list": {"leave": 1}, "detail": {"leave": 1}},
    "city": {"list": {"city": 1}, "detail": {"leave": 1}},
    "tab": {"list": {"tab": 1}, "detail": {"leave": 1}},
    "detail": {"list": {"detail": 1}, "detail": {"back": 1}},
    "paging": {"list": {"next_page": 3, "previous_page": 1}, "detail": {"leave": 1}},
    "count": {"list": {"count": 1}, "detail": {"leave": 1}},
    "filter": {"list": {"filter": 1}, "detail": {"leave": 1}},
}
KINDS = (FIRST_LOAD, "city", "tab", "detail", "back", "next_page", "previous_page", "count", "filter")


@dataclass
class Stats:
    """What every visitor did, shared by all of them (one event loop: no locks needed)."""

    connections_ok: int = 0
    events_ok: int = 0
    failures: Counter = field(default_factory=Counter)  # (kind, reason) -> count
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> ms
    parts: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # parts of a first load, ms
    sizes: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> bytes of its update
    open_sockets: int = 0
    peak_sockets: int = 0
    redis_commands: int = 0  # commands the Redis server ran during the load (INFO commandstats)
    postgres_cpu: float = 0.0  # CPU seconds of the PostgreSQL backends serving the site's database during the load

    def fail(self, kind: str, reason: str) -> None:
        self.failures[(kind, reason[:80])] += 1

    @property
    def failed(self) -> int:
        """Actions that failed (a first load whose document or handshake failed among them)."""
        return sum(self.failures.values())


class Failed(Exception):
    """An action got no right answer (wrong update, timeout or closed socket)."""


async def fetch_document(host: str, port: int, path: str, timeout: float) -> None:
    """GET a page's document as a returning visitor's browser does; fails unless the answer is 200."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nCookie: mayor_de_edad=1\r\nUser-Agent: bench\r\n"
            "Accept: text/html\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n".encode()
        )
        answer = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    status = answer[:15].split(b" ")
    if len(status) < 2 or status[1] != b"200":
        raise Failed(f"document {path}: {answer[:40]!r}")


class Visitor:
    """One browser tab on the public directory: one websocket, one Reflex token."""

    def __init__(
        self,
        site: str,
        cities: list[str],
        hashes: list[str] | None,
        protocol: str,
        stats: Stats,
        timeout: float,
        mix: dict[str, dict[str, int]] = MIX,
    ):
        parts = urlsplit(site)
        self.host, self.port, self.origin = parts.hostname, parts.port, f"{parts.scheme}://{parts.netloc}"
        self.cities, self.hashes, self.protocol = cities, hashes, protocol
        self.stats, self.timeout, self.mix = stats, timeout, mix
        self.socket: WebSocket | None = None
        self.updates: asyncio.Queue = asyncio.Queue()
        self.pump: asyncio.Task | None = None
        self.cards: list[dict] = []
        self.city = ""
        self.tab = DEFAULT_TAB.slug
        self.path = ""  # the list page shown or, on a listing, the one it was opened from
        self.page = 1
        self.page_count = 1
        self.on_detail = False
        self.last_size = 0
        self.last_count = ""

    def _router(self, path: str) -> dict:
        return {"pathname": path.split("?", 1)[0], "asPath": path}

    async def _pump(self) -> None:
        """Read frames: answer engine.io pings, queue socket.io "event" updates with their arrival time."""
        try:
            while True:
                for message in await self.socket.receive():
                    arrived = time.perf_counter()
                    if message == "2":  # engine.io ping
                        self.socket.send("3")
                    elif message.startswith(f"42{NAMESPACE},"):
                        name, *args = json.loads(message[len(NAMESPACE) + 3 :])
                        if name == "event" and args:
                            self.updates.put_nowait((arrived, args[0]))
                    elif message.startswith(f"44{NAMESPACE}"):
                        self.updates.put_nowait((arrived, Closed(f"socket.io connect refused: {message[:120]}")))
        except (Closed, OSError, ConnectionError) as error:
            self.updates.put_nowait((time.perf_counter(), Closed(str(error) or type(error).__name__)))

    async def _await(self, sent: float, done) -> float:
        """Milliseconds from ``sent`` to the update that completes the action: ``done(directory delta, hydrated)``
        says so (``hydrated``: the update ends a navigation's on_load, the root's ``is_hydrated`` back to true).
        The action's size is that of every update until then."""
        deadline = sent + self.timeout
        self.last_size = 0
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no update within {self.timeout:.0f} s")
            arrived, update = await asyncio.wait_for(self.updates.get(), left)
            if isinstance(update, Closed):
                raise update
            self.last_size += len(json.dumps(update))
            deltas = update.get("delta") or {}
            hydrated = (deltas.get(ROOT) or {}).get(HYDRATED) is True
            if done(deltas.get(DIRECTORY) or {}, hydrated):
                return (arrived - sent) * 1000

    def _list_done(self, page: int, path: str | None = None, *, may_be_empty: bool = False):
        """An update showing page ``page`` of a list page's cards; for a navigation to ``path``, the end of its
        on_load (the directory sends only the vars that changed: going back to the same list sends no cards)."""

        def done(delta: dict, hydrated: bool) -> bool:
            self.page_count = delta.get("page_count_rx_state_", self.page_count)  # sent alone when only it changed
            if "groups_rx_state_" in delta and (
                path is None or delta.get("shown_path_rx_state_", path) == path.split("?", 1)[0]
            ):
                cards = [card for group in delta["groups_rx_state_"] for card in group["cards"]]
                if not cards and not may_be_empty:
                    raise Failed("a city page without cards")
                if delta.get("page_rx_state_", page) != page:
                    raise Failed(f"page {delta.get('page_rx_state_')} instead of {page}")
                self.cards = cards
                self.page = page
                if path is None:
                    return True  # paging is an event of its own: no on_load follows
            if path is not None and hydrated:
                self.page = page
                return True
            return False

        return done

    def _detail_done(self, card: dict):
        seen = []

        def done(delta: dict, hydrated: bool) -> bool:
            if delta.get("detail_rx_state_"):
                if delta["detail_rx_state_"]["uid"] != card["uid"]:
                    raise Failed(f"listing {delta['detail_rx_state_']['uid']} instead of {card['uid']}")
                seen.append(True)
            if hydrated and not seen:
                raise Failed("a listing's page without its listing")
            return hydrated

        return done

    async def _action(self, kind: str, events: list[tuple[str, dict]], path: str, done) -> None:
        """Send the events of one user action and time it until ``done``; count the outcome."""
        sent = time.perf_counter()
        try:
            for name, payload in events:
                message = {"name": name, "payload": payload, "router_data": self._router(path)}
                self.socket.send(f"42{NAMESPACE}," + json.dumps(["event", message]))
            await self.socket.writer.drain()
            self.stats.times[kind].append(await self._await(sent, done))
            self.stats.sizes[kind].append(self.last_size)
        except (TimeoutError, Failed, Closed, OSError) as error:
            self.stats.fail(kind, str(error) or type(error).__name__)
            raise
        self.stats.events_ok += 1

    async def _navigate(self, kind: str, path: str, done) -> None:
        """A client-side navigation to ``path``, as the frontend makes it (the filter form then shows its filters)."""
        found = re.search(r"precio_max=([0-9]+)", path)
        self.last_count = found.group(1) if found else ""
        await self._action(kind, [(UPDATE_VARS, {"vars": {}}), (ON_LOAD, {})], path, done)

    async def first_load(self) -> None:
        """Arrive on a city page: its document, then the websocket and engine.io handshakes, then the CONNECT
        packet carrying the hydrate event, until the first page of cards arrives."""
        try:
            await self._first_load()
        except (TimeoutError, OSError, Closed, ConnectionError, Failed) as error:
            self.stats.fail(FIRST_LOAD, str(error) or type(error).__name__)
            raise

    async def _first_load(self) -> None:
        self.city, self.tab, self.on_detail = random.choice(self.cities), DEFAULT_TAB.slug, False
        self.path = city_path(Section.MUJERES.value, self.city)
        started = time.perf_counter()
        await fetch_document(self.host, self.port, self.path, self.timeout)
        document = time.perf_counter()
        self.socket = WebSocket()
        headers = [(b"origin", self.origin.encode()), (b"cookie", b"mayor_de_edad=1"), (b"user-agent", b"bench")]
        target = f"{NAMESPACE}/?EIO=4&transport=websocket&token={uuid.uuid4()}"
        await asyncio.wait_for(self.socket.open(self.host, self.port, target, headers, self.protocol), self.timeout)
        opened = []
        while not opened:
            opened = await asyncio.wait_for(self.socket.receive(), self.timeout)
        if not opened[0].startswith("0{"):
            raise Closed(f"no engine.io open packet: {opened[0][:80]}")
        self.pump = asyncio.create_task(self._pump())
        payload: dict = {"vars": {}}
        if self.hashes:
            payload["hashes"] = self.hashes
        boot = {"name": f"{ROOT}.hydrate_and_load", "payload": payload, "router_data": self._router(self.path)}
        sent = time.perf_counter()
        self.socket.send(f"40{NAMESPACE}," + json.dumps({"event": boot}))
        await self.socket.writer.drain()
        self.stats.connections_ok += 1
        self.stats.open_sockets += 1
        self.stats.peak_sockets = max(self.stats.peak_sockets, self.stats.open_sockets)
        hydrate = await self._await(sent, self._list_done(1, self.path))
        self.stats.parts["document"].append((document - started) * 1000)
        self.stats.parts["hydrate"].append(hydrate)
        self.stats.times[FIRST_LOAD].append((time.perf_counter() - started) * 1000)
        self.stats.events_ok += 1

    async def close(self) -> None:
        """Stop reading and close the websocket."""
        if self.pump is not None:
            self.pump.cancel()
            self.pump = None
            self.stats.open_sockets -= 1
        if self.socket is not None:
            await self.socket.close()
            self.socket = None

    def choose(self) -> str:
        """The next action, drawn from the visitor's mix (``MIX``) among those the page offers."""
        weights = dict(self.mix["detail" if self.on_detail else "list"])
        if not self.on_detail:
            if self.page >= self.page_count:
                weights.pop("next_page", None)
            if self.page <= 1:
                weights.pop("previous_page", None)
            if not self.cards:
                weights.pop("detail", None)
            weights = weights or {"leave": 1}
        return random.choices(list(weights), weights=list(weights.values()))[0]

    async def act(self, kind: str) -> None:
        """Do one action of ``MIX`` (not "leave")."""
        if kind in ("next_page", "previous_page"):
            page = self.page + (1 if kind == "next_page" else -1)
            await self._action(kind, [(f"{DIRECTORY}.{kind}", {})], self.path, self._list_done(page))
        elif kind == "detail":
            card = random.choice(self.cards)
            await self._navigate(kind, card["url"], self._detail_done(card))
            self.on_detail = True
        elif kind == "back":
            tab_page = self.tab != DEFAULT_TAB.slug or "?" in self.path
            await self._navigate(kind, self.path, self._list_done(1, self.path, may_be_empty=tab_page))
            self.on_detail = False
        elif kind == "tab":
            self.tab = random.choice([tab.slug for tab in FILTER_TABS if tab.slug != self.tab])
            self.path = city_path(Section.MUJERES.value, self.city, self.tab)
            empty_ok = self.tab != DEFAULT_TAB.slug
            await self._navigate(kind, self.path, self._list_done(1, self.path, may_be_empty=empty_ok))
        elif kind == "count":
            value = self.last_count
            while value == self.last_count:  # an unchanged field changes no var: no update would come
                value = f"{random.randrange(60, 200, 10)}000"
            self.last_count = value
            field_value = ("precio_max", value)

            def counted(delta: dict, _hydrated: bool) -> bool:
                return "draft_total_rx_state_" in delta or "draft_price_max_rx_state_" in delta

            event = (f"{DIRECTORY}.set_filter", {"field": field_value[0], "value": field_value[1]})
            await self._action(kind, [event], self.path, counted)
        elif kind == "filter":
            query = f"precio_max={random.randrange(60, 200, 10)}000"
            if random.random() < 0.5:
                query += f"&edad_min={random.randint(18, 30)}"
            if random.random() < 0.5:
                query = f"comuna={self.city}&{query}"  # the demo data names the city's own commune half the time
            base = city_path(Section.MUJERES.value, self.city, self.tab)
            self.path = f"{base}?{query}"
            await self._navigate(kind, self.path, self._list_done(1, self.path, may_be_empty=True))
        elif kind == "city":
            self.city = random.choice([city for city in self.cities if city != self.city] or self.cities)
            self.tab = DEFAULT_TAB.slug
            self.path = city_path(Section.MUJERES.value, self.city)
            await self._navigate(kind, self.path, self._list_done(1, self.path))
            self.on_detail = False
        else:
            raise ValueError(kind)


async def visit(visitor: Visitor, until: float, think) -> None:
    """Visitors one after another on one tab until ``until``: a first load, actions until one leaves; a failure
    ends the visit (as a reload would)."""
    while time.perf_counter() < until:
        try:
            await visitor.first_load()
            while time.perf_counter() < until:
                await think()
                kind = visitor.choose()
                if kind == "leave":
                    break
                await visitor.act(kind)
        except (TimeoutError, OSError, Closed, ConnectionError, Failed):
            pass  # counted where it failed; the visitor reloads
        finally:
            await visitor.close()
        await think()


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_tree(port: int) -> list[int]:
    """The scripts/serve.py process serving ``port`` (its PORT) and all its descendants (its forked workers)."""
    parents: dict[int, int] = {}
    serving = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().split(b"\0")
            serves = any(part.endswith(b"scripts/serve.py") for part in command)
            environment = (entry / "environ").read_bytes().split(b"\0") if serves else []
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[1])
        if f"PORT={port}".encode() in environment:
            serving.add(int(entry.name))
    roots = [pid for pid in serving if parents.get(pid) not in serving]
    if len(roots) != 1:
        raise RuntimeError(f"expected one scripts/serve.py process for port {port}, found {roots}")
    tree, frontier = list(roots), roots
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        tree += children
        frontier = children
    return tree


def tree_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system) of each process still alive."""
    seconds = {}
    for pid in pids:
        try:
            seconds[pid] = _proc_cpu_seconds(pid)
        except OSError:
            continue
    return seconds


def postgres_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` (their title: ``postgres: ... USER DATABASE HOST``)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if entry.name.isdigit() and title.startswith("postgres: ") and f" {database} " in title:
            found.append(int(entry.name))
    return found


def machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _describe(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"
    return command[:60]


@dataclass(frozen=True)
class Setup:
    """One way of serving the app: its state manager, its workers, optionally an earlier revision and extra
    environment variables of the app."""

    redis: bool
    workers: int
    revision: str | None = None
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        name = f"{'redis' if self.redis else 'memory'}-{self.workers}"
        name += f"@{self.revision}" if self.revision else ""
        return name + "".join(f":{key}={value}" for key, value in self.env)

    @classmethod
    def parse(cls, text: str) -> Setup:
        """``memory-1`` or ``redis-N``, then optionally ``@REVISION``, then any ``:NAME=VALUE``."""
        spec, *variables = text.strip().split(":")
        spec, _, revision = spec.partition("@")
        kind, _, workers = spec.partition("-")
        env = tuple(tuple(variable.split("=", 1)) for variable in variables)
        if kind not in ("memory", "redis") or not workers.isdigit() or int(workers) < 1:
            raise argparse.ArgumentTypeError(f"{text!r}: memory-1 or redis-N, then @REVISION, then :NAME=VALUE")
        if kind == "memory" and workers != "1":
            raise argparse.ArgumentTypeError("memory state serves one worker only")
        if any(len(pair) != 2 for pair in env):
            raise argparse.ArgumentTypeError(f"{text!r}: environment variables are :NAME=VALUE")
        return cls(redis=kind == "redis", workers=int(workers), revision=revision or None, env=env)  # type: ignore[arg-type]


@dataclass
class Result:
    """What one setup's load gave."""

    setup: Setup
    stats: Stats
    elapsed: float
    app_cpu: float  # seconds
    redis_cpu: float  # seconds
    load_before: float
    load_after: float

    @property
    def actions(self) -> list[float]:
        return [ms for times in self.stats.times.values() for ms in times]


def _think(spec: str):
    low, _, high = spec.partition("-")
    low_s, high_s = float(low), float(high or low)

    async def think() -> None:
        await asyncio.sleep(random.uniform(low_s, high_s))

    return think


async def run_load(
    site: str, port: int, args, cities: list[str], hashes: list[str] | None, protocol: str, redis_pid: int | None
) -> tuple[Stats, float, float, float, float]:
    """Start the visitors at ``args.rate`` a second and let them run; print what happened.

    Returns the stats, the elapsed seconds, the CPU seconds of the app and of Redis, and the load average
    (one minute) at the start."""
    stats = Stats()
    pids = server_tree(port)
    ramp = args.visitors / args.rate
    started = time.perf_counter()
    until = started + ramp + args.duration
    cpu_before, machine_before, client_before = tree_cpu(pids), machine_busy(), time.process_time()
    redis_before = tree_cpu([redis_pid]) if redis_pid else {}
    database = make_url(os.environ["DATABASE_URL"]).database or ""
    postgres_before = tree_cpu(postgres_backends(database))
    commands_before = _redis_commands() if redis_pid else 0
    load_before = os.getloadavg()
    tasks = []
    samples: list[tuple[float, int]] = []
    think = _think(args.think)

    async def sampler() -> None:
        previous, previous_at = sum(tree_cpu(pids).values()), time.perf_counter()
        while True:
            await asyncio.sleep(5)
            now, at = sum(tree_cpu(pids).values()), time.perf_counter()
            samples.append(((now - previous) / (at - previous_at), stats.open_sockets))
            previous, previous_at = now, at

    watcher = asyncio.create_task(sampler())
    for index in range(args.visitors):
        mix = ONLY[args.only] if getattr(args, "only", None) else MIX
        visitor = Visitor(site, cities, hashes, protocol, stats, args.timeout, mix)
        tasks.append(asyncio.create_task(visit(visitor, until, think)))
        await asyncio.sleep(max(0.0, started + (index + 1) / args.rate - time.perf_counter()))
    print(f"all {args.visitors} visitors started in {time.perf_counter() - started:.1f} s")
    await asyncio.gather(*tasks)
    watcher.cancel()
    elapsed = time.perf_counter() - started
    cpu_after, machine_after, client_after = tree_cpu(pids), machine_busy(), time.process_time()
    redis_after = tree_cpu([redis_pid]) if redis_pid else {}
    # A backend that started during the load counts whole; one that ended during it is not counted.
    postgres_after = tree_cpu(postgres_backends(database))
    stats.postgres_cpu = sum(used - postgres_before.get(pid, 0) for pid, used in postgres_after.items())
    stats.redis_commands = _redis_commands() - commands_before if redis_pid else 0
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(
        f"run: {elapsed:.0f} s ({ramp:.0f} s ramp at {args.rate:g}/s + {args.duration} s), peak open sockets: "
        f"{stats.peak_sockets}, websockets opened: {stats.connections_ok}"
    )
    print(f"actions: {stats.events_ok} answered, {stats.failed} failed")
    for (kind, reason), count in stats.failures.most_common(10):
        print(f"  failure {kind}: {reason} x{count}")
    everything = [ms for times in stats.times.values() for ms in times]
    print(f"{'kind':<16} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'p95 KB':>7}")
    rows = [(kind, stats.times.get(kind, [])) for kind in KINDS]
    rows += [("all actions", everything)] + [(f"  ({part})", times) for part, times in stats.parts.items()]
    for kind, times in rows:
        if times:
            sizes = stats.sizes.get(kind)
            size = f"{quantile(sizes, 0.95) / 1024:>7.1f}" if sizes else f"{'':>7}"
            print(
                f"{kind:<16} {len(times):>7} {quantile(times, 0.5):>8.1f} {quantile(times, 0.95):>8.1f}"
                f" {quantile(times, 0.99):>8.1f} {max(times):>8.1f} {size}"
            )
    server = sum(cpu_after.get(pid, 0) - cpu_before.get(pid, 0) for pid in cpu_before)
    redis_cpu = sum(redis_after.get(pid, 0) - redis_before.get(pid, 0) for pid in redis_before)
    print(
        f"app CPU: {server:.1f} s in {elapsed:.0f} s = {server / elapsed:.2f} cores on average"
        f" (peak 5 s window {max((s for s, _ in samples), default=0):.2f}); Redis: {redis_cpu:.1f} s;"
        f" PostgreSQL: {stats.postgres_cpu:.1f} s ({1000 * stats.postgres_cpu / max(1, stats.events_ok):.2f} ms an"
        " action); by process:"
    )
    if redis_pid:
        print(
            f"Redis commands: {stats.redis_commands} ({stats.redis_commands / max(1, stats.events_ok):.1f} an action)"
        )
    for pid in cpu_before:
        used = cpu_after.get(pid, 0) - cpu_before[pid]
        if used > 0.5:
            print(f"  {pid:>7} {used:>7.1f} s  {_describe(pid)}")
    busy = (machine_after[0] - machine_before[0]) / max(1, machine_after[1] - machine_before[1])
    print(
        f"this client's CPU: {(client_after - client_before) / elapsed:.2f} cores; machine busy {busy:.0%} of"
        f" {os.cpu_count()} cores; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return stats, elapsed, server, redis_cpu, load_before[0]


def _ms(samples: list[float], q: float) -> str:
    return f"{quantile(samples, q):.0f}" if samples else "-"


def print_side_by_side(results: list[Result], visitors: int) -> None:
    """One table of the setups: throughput, errors, CPU per action, p95; then p50/p95 per kind of action."""
    print(f"\n== {visitors} visitors, setups side by side ==")
    width = max(22, *(len(r.setup.label) for r in results))
    header = (
        f"{'setup':<{width}} {'actions':>8} {'per s':>7} {'errors':>7} {'app CPU':>8} {'ms/action':>10}"
        f" {'+Redis':>7} {'PG':>5} {'cmds':>5} {'p95':>6} {'p95 1st':>8} {'load':>5}"
    )
    print(header)
    for r in results:
        done = r.stats.events_ok
        print(
            f"{r.setup.label:<{width}} {done:>8} {done / r.elapsed:>7.1f} {r.stats.failed:>7}"
            f" {r.app_cpu / r.elapsed:>7.0%} {1000 * r.app_cpu / max(1, done):>10.2f}"
            f" {1000 * (r.app_cpu + r.redis_cpu) / max(1, done):>7.2f} {1000 * r.stats.postgres_cpu / max(1, done):>5.2f}"
            f" {r.stats.redis_commands / max(1, done):>5.1f} {_ms(r.actions, 0.95):>6}"
            f" {_ms(r.stats.times.get(FIRST_LOAD, []), 0.95):>8} {r.load_before:>5.1f}"
        )
    print("app CPU: cores on average; ms/action: app CPU per action answered (+Redis: with the Redis server's);")
    print("PG: CPU an action of the PostgreSQL backends serving the site's database, ms;")
    print("cmds: Redis commands an action answered (state, locks, page-cache versions, limits);")
    print("p95 over all actions and over first loads (document + hydrate), ms; load: 1-minute load average before")
    width = max(22, *(len(r.setup.label) for r in results))
    print(f"\n{'p50 / p95 ms':<16}" + "".join(f" {r.setup.label:>{width}}" for r in results))
    for kind in KINDS:
        cells = [f"{_ms(r.stats.times.get(kind, []), 0.5)} / {_ms(r.stats.times.get(kind, []), 0.95)}" for r in results]
        print(f"{kind:<16}" + "".join(f" {cell:>{width}}" for cell in cells))
    mix = Counter({kind: len(times) for r in results for kind, times in r.stats.times.items()})
    total = sum(mix.values()) or 1
    print("mix: " + ", ".join(f"{kind} {mix[kind] / total:.0%}" for kind in KINDS))
    for r in results:
        if r.setup.redis and r.setup.workers > 1:
            p95 = max(
                quantile(r.actions or [math.inf], 0.95), quantile(r.stats.times.get(FIRST_LOAD) or [math.inf], 0.95)
            )
            verdict = "met" if p95 < TARGET_P95_MS and not r.stats.failed else "MISSED"
            print(
                f"target {r.setup.label} ({visitors} visitors, p95 of actions and first loads < {TARGET_P95_MS:.0f} ms,"
                f" no errors): p95 {p95:.0f} ms, {r.stats.failed} errors: {verdict}"
            )


def profile_summary(path: Path, top: int) -> None:
    """Print the functions with the most samples in py-spy's collapsed stacks: on the stack, and on top."""
    inclusive, on_top, total = Counter(), Counter(), 0
    frame = re.compile(r"^(.*?) \((.*?)(?::\d+)?\)$")
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        samples = int(count)
        total += samples
        names = []
        for entry in stack.split(";"):
            match = frame.match(entry)
            name = f"{match.group(1)} ({match.group(2).split('site-packages/')[-1]})" if match else entry
            names.append(name)
        on_top[names[-1]] += samples
        for name in set(names):
            inclusive[name] += samples
    print(f"profile: {total} samples with a thread on CPU; on the stack (share of samples):")
    for name, samples in inclusive.most_common(top):
        print(f"  {samples / total:>5.0%}  {name[:150]}")
    print("on top of the stack:")
    for name, samples in on_top.most_common(top):
        print(f"  {samples / total:>5.0%}  {name[:150]}")


def top_cities(session, pages: int, limit: int) -> list[str]:
    """Cities of the women's section with at least ``pages`` pages of public listings (24 a page), busiest first."""
    from sqlalchemy import func
    from sqlmodel import select

    from app.models import Listing, ListingStatus, Section

    rows = session.exec(
        select(Listing.city_slug, func.count())
        .where(Listing.status == ListingStatus.PUBLICADA.value, Listing.section == Section.MUJERES.value)
        .group_by(Listing.city_slug)
        .having(func.count() > 24 * pages)
        .order_by(func.count().desc())
        .limit(limit)
    ).all()
    return [slug for slug, _ in rows]


def profile(site: str, port: int, args, cities: list[str], hashes: list[str] | None, protocol: str, out: Path) -> None:
    """Run ``args.profile`` visitors while py-spy samples every server process; print where the CPU went."""
    spy = os.environ.get("PY_SPY") or shutil.which("py-spy")
    if spy is None:
        print("py-spy is missing: pip install py-spy, or set PY_SPY")
        return
    load = argparse.Namespace(**{**vars(args), "visitors": args.profile})
    seconds = int(load.visitors / load.rate + load.duration)
    root = server_tree(port)[0]
    print(f"\nprofiled load: {load.visitors} visitors, py-spy on the server tree of {root} for {seconds} s")
    rate = str(getattr(args, "profile_rate", 50))
    command = [spy, "record", "--pid", str(root), "--subprocesses", "--nonblocking", "--rate", rate]
    command += ["--gil"] if getattr(args, "profile_gil", False) else []
    command += ["--duration", str(seconds), "--format", "raw", "--output", str(out)]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as sampler:
        asyncio.run(run_load(site, port, load, cities, hashes, protocol, None))
        _, errors = sampler.communicate(timeout=120)
    if not out.exists():
        print(f"py-spy wrote nothing: {errors[-500:]}")
        return
    print(f"py-spy's samples (collapsed stacks): {out}")
    profile_summary(out, top=40)


def pin_server(port: int, core: int = 1) -> None:
    """Every thread of the app's processes on ``core`` alone, and this client on the others (taskset)."""
    for pid in server_tree(port):
        subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(pid)], check=True, capture_output=True)
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)) - {core})
    print(f"pinned: the app on core {core}, this client on the others")


def _redis_commands() -> int:
    """Commands the site's Redis server has run since it started (every database: state, caches, limits)."""
    import redis

    with redis.Redis.from_url(redis_url(SITE_DB)) as client:
        return sum(entry["calls"] for name, entry in client.info("commandstats").items() if name != "cmdstat_info")


def _redis_pid(url: str) -> int:
    import redis

    with redis.Redis.from_url(url) as client:
        return int(client.info("server")["process_id"])


def setup_project(setup: Setup, folder: Path) -> Path:
    """The project a setup serves: this checkout, or a copy of it at the setup's revision."""
    from tests.e2e.conftest import PROJECT

    if not setup.revision:
        return PROJECT
    from bench.bench_ssg_throughput import _project_at

    project = folder / f"project-{setup.revision}"
    if not project.exists():
        _project_at(PROJECT, setup.revision, project, committed=COMMITTED)
    return project


def served_hashes(setup: Setup, folder: Path) -> list[str] | None:
    """The state hashes the served frontend sends when it hydrates (its export's sources, tests/frontend_export.py)."""
    context = setup_project(setup, folder) / ".build" / "e2e-export" / "utils" / "context.jsx"
    found = HASHES.search(context.read_text())
    return json.loads(found.group(1)) if found else None


def serve_setup(data, setup: Setup, folder: Path):
    """Serve the app as ``setup`` says (a copy of the project at its revision, if it names one)."""
    project = setup_project(setup, folder)
    return serve_demo(data, workers=setup.workers, redis=setup.redis, project=project, env=dict(setup.env))


# What a setup naming a revision takes from it: the app, its styles, and the Reflex configuration (which
# sets the workers' environment).
COMMITTED = ("app", "assets", "rxconfig.py")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50, help="visitors started a second")
    parser.add_argument("--duration", type=int, default=60, help="seconds of load after the last visitor started")
    parser.add_argument(
        "--setups",
        type=lambda text: [Setup.parse(part) for part in text.split(",")],
        default=None,
        help="comma-separated, run in this order: memory-1 or redis-N, then optionally @REVISION (serve the app"
        " committed there), then any :NAME=VALUE (the app's environment); default: memory-1,redis-1,redis-W with W"
        " from --workers",
    )
    parser.add_argument("--workers", type=int, default=2, help="workers of the default setups' last Redis setup")
    parser.add_argument("--think", default="1-3", help="seconds between a visitor's actions, MIN-MAX (0: none)")
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--cities", type=int, default=10, help="busiest cities the visitors pick from")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds an action may take before it fails")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the app's processes on core 1 alone and this client on core 0 (taskset), for the capacity check",
    )
    parser.add_argument(
        "--only", choices=sorted(ONLY), help="every visitor does this one kind of action (and what it needs), not MIX"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="VISITORS",
        help="after each setup's measured load, a second one of VISITORS visitors with py-spy sampling the server"
        " (on PATH or PY_SPY); its figures are perturbed by the sampling",
    )
    parser.add_argument(
        "--profile-gil",
        action="store_true",
        help="with --profile: sample only the thread holding the GIL (py-spy --gil): where the interpreter's time goes,"
        " without the threads that wait for it, and without native code that released it (the websocket server's)",
    )
    parser.add_argument(
        "--profile-rate",
        type=int,
        default=50,
        help="with --profile: py-spy's samples a second (more: finer, more perturbed)",
    )
    args = parser.parse_args()
    setups = args.setups or [Setup(False, 1), Setup(True, 1), Setup(True, args.workers)]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, commit {commit}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"setups: {', '.join(setup.label for setup in setups)}; think time {args.think} s")

    results: list[Result] = []
    with demo_database(args.listings) as data:
        from sqlmodel import Session

        from app.db import get_engine

        with Session(get_engine()) as session:
            cities = top_cities(session, pages=3, limit=args.cities)
        get_engine().dispose()
        if not cities:
            raise RuntimeError("no city has three pages of listings: seed more")
        print(f"cities: {', '.join(cities)}")

        from reflex_base.constants.base import Reflex

        for setup in setups:
            print(f"\n== {setup.label} ==")
            with serve_setup(data, setup, data.folder) as site:
                port = urlsplit(site).port
                hashes = served_hashes(setup, data.folder)
                redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
                if args.pin:
                    pin_server(port)
                print(
                    f"{args.visitors} visitors at {args.rate:g}/s, then {args.duration} s;"
                    f" think time {args.think} s; timeout {args.timeout:g} s"
                )
                try:
                    stats, elapsed, app_cpu, redis_cpu, load = asyncio.run(
                        run_load(site, port, args, cities, hashes, Reflex.VERSION, redis_pid)
                    )
                    results.append(Result(setup, stats, elapsed, app_cpu, redis_cpu, load, os.getloadavg()[0]))
                    if args.profile:
                        out = Path(tempfile.gettempdir()) / f"ws-profile-{setup.label}-{os.getpid()}.txt"
                        profile(site, port, args, cities, hashes, Reflex.VERSION, out)
                finally:
                    log = data.server_log.read_text().splitlines()
                    tracebacks = [i for i, line in enumerate(log) if line.startswith("Traceback")]
                    print(f"server log: {len(tracebacks)} tracebacks")
                    for i in tracebacks[:2]:
                        print("\n".join(f"  {line[:200]}" for line in log[i : i + 30]))
    print_side_by_side(results, args.visitors)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
