"""The framework's floor: CPU per event of the smallest Reflex app, served as this app is, per setup.

Issue 18 asks for a CPU per action that ``bench_ws_load.py`` never reached. This benchmark measures what
no code of ours can go below: a throwaway Reflex app of one state with one counter (written to a
temporary folder, nothing of ``app/`` in it), served by Reflex's production backend (Granian, the same
Reflex and the same settings of Redis and its opportunistic lock as ``rxconfig.py``) in the setups of
``bench_ws_load.py`` (``--setups``): memory state with one worker, Redis with one and with two workers.

The same websocket client as ``bench_ws_load.py`` (socket.io on /_event) loads it with three kinds of
action, each in a load of its own:

- ``connect``: a new tab's first load: its HTTP document (a page Reflex exported, served by Reflex's own
  static files as ``scripts/serve.py`` mounts them), then its websocket, the handshakes and the hydrate
  event, until the page's on_load has run (the counter shows 1), then the socket closes. Until 2026-11-29
  the floor's connect fetched no document, where every first load of the directory does
  (``--without-document`` keeps that measure);
- ``event``: one event whose handler adds 1 to the counter, answered by the update carrying the new count;
- ``navigation``: what the frontend sends when a visitor follows a link to the app's other page,
  ``update_vars_internal`` (the router's new vars, sent back) and ``on_load_internal``, which runs the
  page's one on_load handler (the same counter) and ``set_is_hydrated``: the events of every navigation of
  the directory (``DirectoryState.load`` in place of the counter). Until 2026-11-29 the floor "navigated"
  to the page it was on, so its router never changed and it sent one update fewer than a real navigation.

It prints, per setup and kind, the actions answered, the CPU of the server's processes (and of the Redis
server) per action, the Redis commands per action, and p50/p95; then the floor of a mix of the kinds
(``--mix``, by default ``bench_ws_load.py``'s visitors). Compare it with ``bench_ws_load.py``'s CPU per
action on the same machine, measured close in time: the difference is the directory's own work
(queries, cards, deltas, counting).

    flock /tmp/e2e.lock .venv/bin/python bench/bench_event_floor.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from statistics import median

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_ws_load import (
    NAMESPACE,
    ON_LOAD,
    ROOT,
    UPDATE_VARS,
    Closed,
    Failed,
    Setup,
    WebSocket,
    _redis_commands,
    _redis_pid,
    fetch_document,
    tree_cpu,
)
from bench.common import quantile
from tests.mailbox import free_port
from tests.redis_server import SITE_DB, empty_redis, redis_url

FLOOR_STATE = f"{ROOT}.floor___floor____floor"
COUNT_VAR = "count_rx_state_"
KINDS = ("connect", "event", "navigation")

_RXCONFIG = """import os

import reflex as rx

config = rx.Config(
    app_name="floor",
    state_manager_mode="redis" if os.environ.get("REDIS_URL") else "memory",
    redis_url=os.environ.get("REDIS_URL") or None,
    transport="websocket",
    telemetry_enabled=False,
    cors_allowed_origins=["*"],
)
"""
_APP = """import reflex as rx


class Floor(rx.State):
    count: int = 0

    @rx.event
    def bump(self):
        self.count += 1


def index() -> rx.Component:
    return rx.text(Floor.count)


app = rx.App()
app.add_page(index, route="/", on_load=Floor.bump)
app.add_page(index, route="/otra", on_load=Floor.bump)
"""
# A navigation goes to the other page: following a link changes the URL, so Reflex updates the router's vars,
# sends them and runs the new page's on_load, as on every navigation of the directory (whose paths always change).
PATHS = ("/", "/otra")


def navigate_in_place() -> None:
    """Make navigations go to the page the tab is on, as the floor measured them until 2026-11-29: the router
    never changes, so Reflex sends one update fewer than on a real navigation (``--same-page``)."""
    global PATHS
    PATHS = (PATHS[0], PATHS[0])


# Reflex's production backend, as scripts/serve.py starts it: the exported frontend's files mounted on it.
_SERVE = """import os, sys
sys.path.insert(0, os.getcwd())
from reflex.utils import exec as reflex_exec
from reflex_base import constants
from reflex_base.environment import environment
environment.REFLEX_ENV_MODE.set(constants.Env.PROD)
environment.REFLEX_SKIP_COMPILE.set(True)
reflex_exec.run_backend_prod("127.0.0.1", int(os.environ["PORT"]), mount_frontend_compiled_app=True)
"""
# A first load's document: the page at "/", as a Reflex export writes it.
DOCUMENTS = ("index.html", "index.html.gz")
# Whether a connect starts with the document (``--without-document``: as the floor measured it until 2026-11-29).
WITH_DOCUMENT = True


def without_document() -> None:
    """Make connects skip the HTTP document, as the floor measured them until 2026-11-29 (``--without-document``)."""
    global WITH_DOCUMENT
    WITH_DOCUMENT = False


def write_floor_app(folder: Path) -> None:
    """The smallest app: rxconfig.py, floor/floor.py and its document at "/".

    Its document is the one Reflex exported for the directory's "/" (``tests/frontend_export.py``, exported first
    if the directory's sources changed): a Reflex page's shell, the same as this app's would be but for a few
    more module links; the first screen the directory adds to its own documents is not in it."""
    from tests.frontend_export import exported_client

    (folder / "floor").mkdir(parents=True)
    (folder / "rxconfig.py").write_text(_RXCONFIG)
    (folder / "floor" / "__init__.py").write_text("")
    (folder / "floor" / "floor.py").write_text(_APP)
    static = folder / ".web" / "build" / "client"
    static.mkdir(parents=True)
    exported = exported_client()
    for name in DOCUMENTS:
        shutil.copyfile(exported / name, static / name)


def _descendants(root: int) -> list[int]:
    """``root`` and every process under it (Granian's forked workers)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        tree += frontier
    return tree


@contextmanager
def serve_floor(folder: Path, setup: Setup, log: Path):
    """The floor app served with ``setup``'s state manager and workers; yields (port, server processes)."""
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "GRANIAN_WORKERS": str(setup.workers),
        "REFLEX_TELEMETRY_ENABLED": "false",
        "REDIS_URL": empty_redis(SITE_DB) if setup.redis else "",
    }
    if setup.redis:  # what rxconfig.py sets with Redis
        env.setdefault("REFLEX_OPLOCK_ENABLED", "true")
        env.setdefault("REFLEX_OPLOCK_HOLD_TIME", "1s")
    env.update(dict(setup.env))
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-c", _SERVE], cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the floor app did not start:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/ping", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        while len(_descendants(server.pid)) < 1 + setup.workers and time.monotonic() < deadline:
            time.sleep(0.5)
        yield port, _descendants(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


class FloorVisitor:
    """One tab of the floor app: a websocket, and actions answered by the update carrying the next count."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.socket = WebSocket()
        self.count = 0
        self.buffered: list[str] = []
        self.received = 0  # bytes of the server's messages (their JSON, as sent), for bytes per action
        self.path = PATHS[0]

    async def open(self, timeout: float) -> None:
        """Connect and hydrate (the CONNECT packet carries the hydrate event, as the frontend sends it)."""
        from reflex_base.constants.base import Reflex

        target = f"{NAMESPACE}/?EIO=4&transport=websocket&token={uuid.uuid4()}"
        headers = [(b"origin", f"http://127.0.0.1:{self.port}".encode()), (b"user-agent", b"bench")]
        await asyncio.wait_for(self.socket.open("127.0.0.1", self.port, target, headers, Reflex.VERSION), timeout)
        opened = []
        while not opened:
            opened = await asyncio.wait_for(self.socket.receive(), timeout)
        hydrate = {"name": f"{ROOT}.hydrate_and_load", "payload": {}, "router_data": self._router()}
        self.socket.send(f"40{NAMESPACE}," + json.dumps({"event": hydrate}))
        await self._answer(1, timeout)  # the page's on_load ran once

    def _router(self) -> dict:
        return {"pathname": self.path, "asPath": self.path}

    async def _answer(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.buffered:
                self.received += len(message.encode())
                if message == "2":
                    self.socket.send("3")
                elif message.startswith(f"42{NAMESPACE},"):
                    name, *args = json.loads(message[len(NAMESPACE) + 3 :])
                    delta = (args[0].get("delta") or {}).get(FLOOR_STATE, {}) if name == "event" and args else {}
                    if delta.get(COUNT_VAR) == count:
                        self.buffered = []
                        self.count = count
                        return
            self.buffered = []
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"count {count} not shown within {timeout:g} s")
            self.buffered = await asyncio.wait_for(self.socket.receive(), left)

    async def act(self, kind: str, timeout: float) -> float:
        """One action; milliseconds until its answer."""
        events = [f"{FLOOR_STATE}.bump"] if kind == "event" else [UPDATE_VARS, ON_LOAD]
        if kind == "navigation":
            self.path = PATHS[1] if self.path == PATHS[0] else PATHS[0]
        started = time.perf_counter()
        for name in events:
            payload = {"vars": {}} if name == UPDATE_VARS else {}
            message = {"name": name, "payload": payload, "router_data": self._router()}
            self.socket.send(f"42{NAMESPACE}," + json.dumps(["event", message]))
        await self.socket.writer.drain()
        await self._answer(self.count + 1, timeout)
        return (time.perf_counter() - started) * 1000


async def run_load(port: int, kind: str, visitors: int, duration: float, think: tuple[float, float]):
    """``visitors`` tabs doing ``kind`` for ``duration`` seconds; (times in ms, failures, bytes received)."""
    times: list[float] = []
    failures = 0
    received = 0
    until = time.monotonic() + duration

    async def connecting_tab() -> None:
        nonlocal failures, received
        while time.monotonic() < until:
            await asyncio.sleep(random.uniform(*think))
            visitor = FloorVisitor(port)
            started = time.perf_counter()
            try:
                if WITH_DOCUMENT:
                    await fetch_document("127.0.0.1", port, PATHS[0], 10)
                await visitor.open(10)
                times.append((time.perf_counter() - started) * 1000)
            except (TimeoutError, Closed, Failed, OSError):
                failures += 1
            finally:
                received += visitor.received
                await visitor.socket.close()

    async def tab() -> None:
        nonlocal failures, received
        visitor = FloorVisitor(port)
        try:
            await visitor.open(10)
            while time.monotonic() < until:
                await asyncio.sleep(random.uniform(*think))
                before = visitor.received
                times.append(await visitor.act(kind, 10))
                received += visitor.received - before
        except (TimeoutError, Closed, OSError):
            failures += 1
        finally:
            await visitor.socket.close()

    one_tab = connecting_tab if kind == "connect" else tab
    await asyncio.gather(*(one_tab() for _ in range(visitors)))
    return times, failures, received


def measure(port: int, servers: list[int], redis_pid: int | None, kind: str, args) -> dict:
    """One load of ``kind``: actions, failures, CPU per action (server, and with Redis), p50/p95."""
    redis = [redis_pid] if redis_pid else []
    before, redis_before = tree_cpu(servers), tree_cpu(redis)
    commands_before = _redis_commands() if redis_pid else 0
    started = time.monotonic()
    times, failures, received = asyncio.run(run_load(port, kind, args.visitors, args.duration, args.think))
    elapsed = time.monotonic() - started
    after, redis_after = tree_cpu(servers), tree_cpu(redis)
    cpu = sum(after.get(pid, 0) - seconds for pid, seconds in before.items())
    redis_cpu = sum(redis_after.get(pid, 0) - seconds for pid, seconds in redis_before.items())
    commands = _redis_commands() - commands_before if redis_pid else 0
    return {
        "actions": len(times),
        "failures": failures,
        "per_s": len(times) / elapsed,
        "ms": 1000 * cpu / max(len(times), 1),
        "ms_redis": 1000 * (cpu + redis_cpu) / max(len(times), 1),
        "cmds": commands / max(len(times), 1),
        "bytes": received / max(len(times), 1),
        "p50": median(times) if times else float("nan"),
        "p95": quantile(times, 0.95) if times else float("nan"),
        "load": os.getloadavg()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setups", default="memory-1,redis-1,redis-2", help="as bench_ws_load.py's, no @REVISION")
    parser.add_argument("--visitors", type=int, default=150, help="concurrent tabs")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of each load")
    parser.add_argument("--think", default="1-3", help="seconds between a tab's actions, MIN-MAX (as bench_ws_load.py)")
    parser.add_argument("--rounds", type=int, default=2, help="times each setup and kind is measured, interleaved")
    parser.add_argument(
        "--mix",
        default="connect=15,navigation=71,event=14",
        help="weights of the kinds in the floor of a mix (default: bench_ws_load.py's visitors, first loads as"
        " connect, paging and counting as event)",
    )
    parser.add_argument(
        "--same-page",
        action="store_true",
        help="navigate to the page the tab is on, as the floor did until 2026-11-29 (no router update)",
    )
    parser.add_argument(
        "--without-document",
        action="store_true",
        help="connect without fetching the page's document first, as the floor did until 2026-11-29",
    )
    args = parser.parse_args()
    if args.same_page:
        navigate_in_place()
    if args.without_document:
        without_document()
    low, _, high = args.think.partition("-")
    args.think = (float(low), float(high or low))
    args.mix = {kind: float(weight) for kind, _, weight in (part.partition("=") for part in args.mix.split(","))}
    if set(args.mix) != set(KINDS):
        parser.error(f"--mix: a weight for each of {', '.join(KINDS)}")
    setups = [Setup.parse(text) for text in args.setups.split(",")]
    if any(setup.revision for setup in setups):
        parser.error("the floor app has no revisions: drop @REVISION")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, cores: {os.cpu_count()}")
    print(f"{args.visitors} tabs, think {args.think[0]:g}-{args.think[1]:g} s, {args.duration:g} s a load")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_floor_app(folder)
        for round_number in range(1, args.rounds + 1):
            for setup in setups:
                with serve_floor(folder, setup, folder / "server.log") as (port, servers):
                    redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
                    for kind in KINDS:
                        row = measure(port, servers, redis_pid, kind, args)
                        rows.append((round_number, setup.label, kind, row))
                        print(
                            f"round {round_number} {setup.label:<10} {kind:<10} {row['actions']:>6} actions"
                            f" ({row['failures']} failed), {row['ms']:.2f} ms CPU an action"
                            f" ({row['ms_redis']:.2f} with Redis), p50/p95 {row['p50']:.1f}/{row['p95']:.1f} ms"
                        )
    width = max(len(setup.label) for setup in setups)
    print(f"\n{'setup':<{width}} kind        actions/s  failed  ms/action  +Redis  cmds   p50    p95  load")
    for _, label, kind, row in rows:
        print(
            f"{label:<{width}} {kind:<11} {row['per_s']:>9.1f} {row['failures']:>7} {row['ms']:>10.2f}"
            f" {row['ms_redis']:>7.2f} {row['cmds']:>5.1f} {row['p50']:>5.1f} {row['p95']:>6.1f} {row['load']:>5.1f}"
        )
    shares = {kind: weight / sum(args.mix.values()) for kind, weight in args.mix.items()}
    print(
        "\nmedian CPU per action over the rounds, ms (with Redis's CPU); the floor of a mix of "
        + ", ".join(f"{100 * share:.0f}% {kind}" for kind, share in shares.items())
    )
    for setup in setups:
        medians = {}
        for kind in KINDS:
            values = [row for _, label, k, row in rows if label == setup.label and k == kind]
            medians[kind] = (median(r["ms"] for r in values), median(r["ms_redis"] for r in values))
        cells = "  ".join(f"{kind} {app:.2f} ({total:.2f})" for kind, (app, total) in medians.items())
        mixed = [sum(shares[kind] * medians[kind][i] for kind in KINDS) for i in (0, 1)]
        print(f"  {setup.label:<{width}}  {cells}  mix {mixed[0]:.2f} ({mixed[1]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
