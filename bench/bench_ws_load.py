"""Websocket load: N simulated visitors of the public directory over real websockets.

Loads the demo data (``app.seed``) into a scratch PostgreSQL database and
serves the app in production mode the way the e2e tests do
(``tests.e2e.conftest``: the production build, Redis for the state,
``--workers`` backend workers). Then N visitors, started at ``--rate`` a
second, each on its own websocket (socket.io on /_event, the websocket
transport, the allowed Origin, the 18+ cookie of a returning visitor), do
what a browser on the city page does, with 1–3 s of think time between
steps, until ``--duration`` seconds after the last one started:

- connect, sending the hydrate event of /escorts/{city} in the CONNECT packet
  as Reflex's frontend does (``hydrate_and_load``: the 18+ cookie and the
  compiled state hashes), and wait for the city's first page of cards;
- next page, next page, previous page (``DirectoryState.next_page`` and
  ``previous_page``), each checked to show that page's cards;
- open one of the cards (a client-side navigation: ``update_vars_internal``
  and ``on_load_internal`` for its URL), checked to show that listing;
- back to a city page (``on_load_internal``) and round again.

An event's round trip is the time from sending its frame to receiving the
state update frame that carries what it loads. An event fails when no such
update arrives within ``--timeout`` seconds, when the update is wrong (no
cards, another page, another listing) or when the socket closes; a
connection fails when the websocket or socket.io handshake does not complete.

Prints connections and events that succeeded and failed, p50/p95/p99 of the
round trips (all events and per kind), the server's CPU (the process tree of
``reflex run``, from /proc), this client's CPU and the load average.

Target (issue 10): 500 concurrent visitors, p95 under 150 ms, no errors.
Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_ws_load.py --visitors 500 --workers 1

``--profile 150`` then runs a second load of 150 visitors with py-spy sampling
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
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import wsproto
import wsproto.events as ws

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from bench.common import BENCH_WEB_DIR, demo_database, quantile, serve_demo

TARGET_P95_MS = 150.0
NAMESPACE = "/_event"
ROOT = "reflex___state____state"
DIRECTORY = f"{ROOT}.app___states___public____directory_state"
AGE_VAR = f"{ROOT}.app___states___public____age_gate_state.adult_rx_state_"
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


@dataclass
class Stats:
    """What every visitor did, shared by all of them (one event loop: no locks needed)."""

    connections_ok: int = 0
    connections_failed: int = 0
    events_ok: int = 0
    failures: Counter = field(default_factory=Counter)  # (kind, reason) -> count
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # kind -> ms
    open_sockets: int = 0
    peak_sockets: int = 0

    def fail(self, kind: str, reason: str) -> None:
        self.failures[(kind, reason[:80])] += 1


class Visitor:
    """One browser tab on the public directory: one websocket, one Reflex token."""

    def __init__(
        self, site: str, cities: list[str], hashes: list[str] | None, protocol: str, stats: Stats, timeout: float
    ):
        parts = urlsplit(site)
        self.host, self.port, self.origin = parts.hostname, parts.port, f"{parts.scheme}://{parts.netloc}"
        self.cities, self.hashes, self.protocol = cities, hashes, protocol
        self.stats, self.timeout = stats, timeout
        self.socket: WebSocket | None = None
        self.updates: asyncio.Queue = asyncio.Queue()
        self.pump: asyncio.Task | None = None
        self.cards: list[dict] = []
        self.path = ""

    def _router(self, path: str) -> dict:
        return {"pathname": path, "asPath": path}

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
        """Milliseconds from ``sent`` to the first update whose directory delta satisfies ``done``."""
        deadline = sent + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no update within {self.timeout:.0f} s")
            arrived, update = await asyncio.wait_for(self.updates.get(), left)
            if isinstance(update, Closed):
                raise update
            delta = (update.get("delta") or {}).get(DIRECTORY)
            if delta and done(delta):
                return (arrived - sent) * 1000

    def _cards_done(self, page: int | None):
        def done(delta: dict) -> bool:
            if "groups_rx_state_" not in delta:
                return False
            cards = [card for group in delta["groups_rx_state_"] for card in group["cards"]]
            if not cards:
                raise ValueError("a city page without cards")
            if page is not None and delta.get("page_rx_state_") != page:
                raise ValueError(f"page {delta.get('page_rx_state_')} instead of {page}")
            self.cards = cards
            return True

        return done

    async def _event(self, kind: str, events: list[tuple[str, dict]], path: str, done) -> None:
        """Send the events (one user action) and time until ``done``; count the outcome."""
        sent = time.perf_counter()
        for name, payload in events:
            message = {"name": name, "payload": payload, "router_data": self._router(path)}
            self.socket.send(f"42{NAMESPACE}," + json.dumps(["event", message]))
        await self.socket.writer.drain()
        self.stats.times[kind].append(await self._await(sent, done))
        self.stats.events_ok += 1

    async def connect(self) -> None:
        """Websocket and engine.io handshakes, then the CONNECT packet carrying the hydrate event of a city page."""
        self.path = f"/escorts/{random.choice(self.cities)}"
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
        payload: dict = {"vars": {AGE_VAR: "1"}}
        if self.hashes:
            payload["hashes"] = self.hashes
        boot = {"name": f"{ROOT}.hydrate_and_load", "payload": payload, "router_data": self._router(self.path)}
        sent = time.perf_counter()
        self.socket.send(f"40{NAMESPACE}," + json.dumps({"event": boot}))
        await self.socket.writer.drain()
        self.stats.connections_ok += 1
        self.stats.open_sockets += 1
        self.stats.peak_sockets = max(self.stats.peak_sockets, self.stats.open_sockets)
        try:
            self.stats.times["hydrate"].append(await self._await(sent, self._cards_done(1)))
            self.stats.events_ok += 1
        except (TimeoutError, ValueError, Closed) as error:
            self.stats.fail("hydrate", str(error) or type(error).__name__)
            raise

    async def close(self) -> None:
        """Stop reading and close the websocket."""
        if self.pump is not None:
            self.pump.cancel()
            self.pump = None
        if self.socket is not None:
            await self.socket.close()
            self.socket = None

    async def round(self, think) -> None:
        """Page through the city page, open a card, go back to a city page."""
        for kind, page in (("next_page", 2), ("next_page", 3), ("previous_page", 2)):
            await think()
            await self._step(kind, [(f"{DIRECTORY}.{kind}", {})], self.path, self._cards_done(page))
        await think()
        card = random.choice(self.cards)
        await self._step(
            "detail",
            [(UPDATE_VARS, {"vars": {AGE_VAR: "1"}}), (ON_LOAD, {})],
            card["url"],
            lambda delta: bool(delta.get("detail_rx_state_")) and _same(delta["detail_rx_state_"]["uid"], card["uid"]),
        )
        await think()
        self.path = f"/escorts/{random.choice(self.cities)}"
        await self._step(
            "city", [(UPDATE_VARS, {"vars": {AGE_VAR: "1"}}), (ON_LOAD, {})], self.path, self._cards_done(1)
        )

    async def _step(self, kind: str, events, path: str, done) -> None:
        try:
            await self._event(kind, events, path, done)
        except (TimeoutError, ValueError, Closed, OSError) as error:
            self.stats.fail(kind, str(error) or type(error).__name__)
            raise


def _same(got: str, wanted: str) -> bool:
    if got != wanted:
        raise ValueError(f"listing {got} instead of {wanted}")
    return True


async def visit(visitor: Visitor, until: float) -> None:
    """One visitor's session until ``until``: reconnect (as a reload would) after any failure."""
    stats = visitor.stats

    async def think() -> None:
        await asyncio.sleep(random.uniform(1.0, 3.0))

    while time.perf_counter() < until:
        try:
            await visitor.connect()
        except (TimeoutError, OSError, Closed, ConnectionError) as error:
            if visitor.pump is None:  # the handshake itself failed (hydrate failures are counted as events)
                stats.connections_failed += 1
                stats.fail("connect", str(error) or type(error).__name__)
            else:
                stats.open_sockets -= 1
            await visitor.close()
            await think()
            continue
        except ValueError:
            stats.open_sockets -= 1
            await visitor.close()
            await think()
            continue
        try:
            while time.perf_counter() < until:
                await visitor.round(think)
        except (TimeoutError, ValueError, Closed, OSError):
            pass
        stats.open_sockets -= 1
        await visitor.close()


def _proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_tree(port: int) -> list[int]:
    """The ``reflex run`` process serving ``port`` and all its descendants (its forked workers share its command)."""
    parents: dict[int, int] = {}
    serving = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[1])
        if b"--backend-port" in command and str(port).encode() in command and b"run" in command:
            serving.add(int(entry.name))
    roots = [pid for pid in serving if parents.get(pid) not in serving]
    if len(roots) != 1:
        raise RuntimeError(f"expected one reflex run process for port {port}, found {roots}")
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


async def run_load(site: str, port: int, args, cities: list[str], hashes: list[str] | None, protocol: str) -> Stats:
    """Start the visitors at ``args.rate`` a second and let them run; print what happened."""
    stats = Stats()
    pids = server_tree(port)
    ramp = args.visitors / args.rate
    started = time.perf_counter()
    until = started + ramp + args.duration
    cpu_before, machine_before, client_before = tree_cpu(pids), machine_busy(), time.process_time()
    load_before = os.getloadavg()
    tasks = []
    samples: list[tuple[float, int]] = []

    async def sampler() -> None:
        previous, previous_at = sum(tree_cpu(pids).values()), time.perf_counter()
        while True:
            await asyncio.sleep(5)
            now, at = sum(tree_cpu(pids).values()), time.perf_counter()
            samples.append(((now - previous) / (at - previous_at), stats.open_sockets))
            previous, previous_at = now, at

    watcher = asyncio.create_task(sampler())
    for index in range(args.visitors):
        visitor = Visitor(site, cities, hashes, protocol, stats, args.timeout)
        tasks.append(asyncio.create_task(visit(visitor, until)))
        await asyncio.sleep(max(0.0, started + (index + 1) / args.rate - time.perf_counter()))
    print(f"all {args.visitors} visitors started in {time.perf_counter() - started:.1f} s")
    await asyncio.gather(*tasks)
    watcher.cancel()
    elapsed = time.perf_counter() - started
    cpu_after, machine_after, client_after = tree_cpu(pids), machine_busy(), time.process_time()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(
        f"run: {elapsed:.0f} s ({ramp:.0f} s ramp at {args.rate:g}/s + {args.duration} s), peak open sockets: "
        f"{stats.peak_sockets}"
    )
    print(f"connections: {stats.connections_ok} succeeded, {stats.connections_failed} failed")
    failed = sum(stats.failures.values()) - stats.connections_failed
    print(f"events: {stats.events_ok} succeeded, {failed} failed")
    for (kind, reason), count in stats.failures.most_common(10):
        print(f"  failure {kind}: {reason} x{count}")
    everything = [ms for times in stats.times.values() for ms in times]
    print(f"{'kind':<14} {'events':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind, times in [*stats.times.items(), ("all", everything)]:
        if times:
            print(
                f"{kind:<14} {len(times):>7} {quantile(times, 0.5):>8.1f} {quantile(times, 0.95):>8.1f}"
                f" {quantile(times, 0.99):>8.1f} {max(times):>8.1f}"
            )
    server = sum(cpu_after.get(pid, 0) - cpu_before.get(pid, 0) for pid in cpu_before)
    print(
        f"server CPU: {server:.1f} s in {elapsed:.0f} s = {server / elapsed:.2f} cores on average"
        f" (peak 5 s window {max((s for s, _ in samples), default=0):.2f}); by process:"
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
    p95 = quantile(everything, 0.95) if everything else float("inf")
    errors = stats.connections_failed + failed
    verdict = "met" if p95 < TARGET_P95_MS and not errors else "MISSED"
    print(
        f"target ({args.visitors} visitors, p95 < {TARGET_P95_MS:.0f} ms, no errors): p95 {p95:.1f} ms,"
        f" {errors} errors: {verdict}"
    )
    return stats


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
    command = [spy, "record", "--pid", str(root), "--subprocesses", "--nonblocking", "--rate", "50"]
    command += ["--duration", str(seconds), "--format", "raw", "--output", str(out)]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as sampler:
        asyncio.run(run_load(site, port, load, cities, hashes, protocol))
        _, errors = sampler.communicate(timeout=120)
    if not out.exists():
        print(f"py-spy wrote nothing: {errors[-500:]}")
        return
    profile_summary(out, top=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50, help="visitors started a second")
    parser.add_argument("--duration", type=int, default=60, help="seconds of load after the last visitor started")
    parser.add_argument("--workers", type=int, default=1, help="WEB_WORKERS of the app (Redis state)")
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--cities", type=int, default=10, help="busiest cities the visitors pick from")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds an event may take before it fails")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="VISITORS",
        help="after the measured load, a second one of VISITORS visitors with py-spy sampling the server (on PATH"
        " or PY_SPY); its figures are perturbed by the sampling",
    )
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, commit {commit}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

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

        with serve_demo(data, workers=args.workers) as site:
            port = urlsplit(site).port
            found = HASHES.search((BENCH_WEB_DIR / "utils" / "context.jsx").read_text())
            hashes = json.loads(found.group(1)) if found else None
            print(
                f"{args.visitors} visitors at {args.rate:g}/s, then {args.duration} s;"
                f" think time 1-3 s; timeout {args.timeout:g} s"
            )
            try:
                asyncio.run(run_load(site, port, args, cities, hashes, Reflex.VERSION))
                if args.profile:
                    profile(site, port, args, cities, hashes, Reflex.VERSION, data.folder / "profile.txt")
            finally:
                log = data.server_log.read_text().splitlines()
                tracebacks = [i for i, line in enumerate(log) if line.startswith("Traceback")]
                print(f"server log: {len(tracebacks)} tracebacks")
                for i in tracebacks[:2]:
                    print("\n".join(f"  {line[:200]}" for line in log[i : i + 30]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
