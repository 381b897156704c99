"""What the directory costs per visitor action against what Reflex alone costs, in one run: the cost ratio.

Issue 37 replaces absolute CPU targets (which move with the host) by a ratio, which barely does. For each
setup (``--setups``: memory state with one worker, Redis with one and with two workers) and each round
(``--rounds``), this runs, interleaved and with the same websocket client and think time:

1. the framework's floor: ``bench_event_floor.py``'s app of one counter, served as this app is, loaded
   with its three kinds of action (a tab's connect and hydrate, an event, a navigation), one load each;
2. the directory: ``bench_ws_load.py``'s visitors on the demo data (``--listings``), doing what people do.

The floor's CPU per action is weighted by the directory's own mix of that round: first loads count as
connects; paging and counting as events; listings, tabs, cities, filters and going back as navigations.
Both count the Redis server's CPU. It prints, per setup and round, the CPU per action of each (ms, with
Redis), the Redis commands and the update bytes per action of each, and the ratio; then per setup the
median ratio over the rounds with its spread (lowest and highest round). Target: at most 2.0 on every setup,
then 1.5. Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_cost_ratio.py [--rounds 2] [--visitors 150]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_event_floor import KINDS, measure, serve_floor, write_floor_app
from bench.bench_ws_load import (
    FIRST_LOAD,
    Setup,
    _redis_pid,
    run_load,
    serve_setup,
    served_hashes,
    top_cities,
)
from bench.common import demo_database
from tests.redis_server import SITE_DB, redis_url

# Which of the floor's kinds each of the directory's actions is (bench_event_floor.py's default mix says the same).
FLOOR_KIND = {
    FIRST_LOAD: "connect",
    "next_page": "event",
    "previous_page": "event",
    "count": "event",
    "city": "navigation",
    "tab": "navigation",
    "detail": "navigation",
    "back": "navigation",
    "filter": "navigation",
}
TARGETS = (2.0, 1.5)


@dataclass
class Measured:
    """One side of one round: CPU per action (ms, and with Redis's), Redis commands and update bytes an action."""

    ms: float
    ms_redis: float
    cmds: float
    bytes: float
    actions: int
    failures: int


def floor_side(folder: Path, setup: Setup, shares: dict[str, float], args) -> Measured:
    """The floor app on ``setup``: one load per kind, weighted by ``shares`` (the directory's mix)."""
    rows = {}
    with serve_floor(folder, setup, folder / "floor.log") as (port, servers):
        redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
        for kind in KINDS:
            rows[kind] = measure(port, servers, redis_pid, kind, args)

    def weighted(key: str) -> float:
        return sum(shares[kind] * rows[kind][key] for kind in KINDS)

    return Measured(
        ms=weighted("ms"),
        ms_redis=weighted("ms_redis"),
        cmds=weighted("cmds"),
        bytes=weighted("bytes"),
        actions=sum(row["actions"] for row in rows.values()),
        failures=sum(row["failures"] for row in rows.values()),
    )


def directory_side(data, setup: Setup, cities: list[str], args) -> tuple[Measured, dict[str, float]]:
    """The directory on ``setup`` under bench_ws_load.py's visitors; and the shares of the floor's kinds in it."""
    from reflex_base.constants.base import Reflex

    with serve_setup(data, setup, data.folder) as site:
        port = urlsplit(site).port
        hashes = served_hashes(setup, data.folder)
        redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
        stats, _elapsed, app_cpu, redis_cpu, _load = asyncio.run(
            run_load(site, port, args, cities, hashes, Reflex.VERSION, redis_pid)
        )
    done = max(1, stats.events_ok)
    counts = dict.fromkeys(KINDS, 0)
    for kind, times in stats.times.items():
        counts[FLOOR_KIND[kind]] += len(times)
    total = sum(counts.values()) or 1
    sizes = [size for values in stats.sizes.values() for size in values]
    measured = Measured(
        ms=1000 * app_cpu / done,
        ms_redis=1000 * (app_cpu + redis_cpu) / done,
        cmds=stats.redis_commands / done,
        bytes=sum(sizes) / max(1, len(sizes)),
        actions=stats.events_ok,
        failures=stats.failed,
    )
    return measured, {kind: count / total for kind, count in counts.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setups", default="memory-1,redis-1,redis-2", help="as bench_ws_load.py's, no @REVISION")
    parser.add_argument("--rounds", type=int, default=2, help="floor, directory, floor, directory… per setup")
    parser.add_argument("--visitors", type=int, default=150, help="concurrent tabs of each side")
    parser.add_argument("--duration", type=int, default=30, help="seconds of each load")
    parser.add_argument("--think", default="1-3", help="seconds between a tab's actions, MIN-MAX")
    parser.add_argument("--listings", type=int, default=3000)
    parser.add_argument("--cities", type=int, default=10, help="busiest cities the directory's visitors pick from")
    parser.add_argument("--rate", type=float, default=50, help="directory visitors started a second")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds an action may take before it fails")
    args = parser.parse_args()
    setups = [Setup.parse(text) for text in args.setups.split(",")]
    if any(setup.revision for setup in setups):
        parser.error("the floor app has no revisions: drop @REVISION")
    low, _, high = args.think.partition("-")
    floor_args = argparse.Namespace(
        visitors=args.visitors, duration=args.duration, think=(float(low), float(high or low))
    )
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, commit {commit}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.visitors} tabs a side, think {args.think} s, {args.duration} s a load, {args.rounds} rounds")

    rows: list[tuple[int, str, Measured, Measured]] = []
    with demo_database(args.listings) as data, tempfile.TemporaryDirectory() as tmp:
        from sqlmodel import Session

        from app.db import get_engine

        with Session(get_engine()) as session:
            cities = top_cities(session, pages=3, limit=args.cities)
        get_engine().dispose()
        if not cities:
            raise RuntimeError("no city has three pages of listings: seed more (--listings)")
        floor_folder = Path(tmp)
        write_floor_app(floor_folder)
        for round_number in range(1, args.rounds + 1):
            for setup in setups:
                print(f"\n== round {round_number}, {setup.label}: the directory ==", flush=True)
                directory, shares = directory_side(data, setup, cities, args)
                print(f"== round {round_number}, {setup.label}: the floor ==", flush=True)
                floor = floor_side(floor_folder, setup, shares, floor_args)
                rows.append((round_number, setup.label, floor, directory))
                print(
                    f"round {round_number} {setup.label}: floor {floor.ms_redis:.2f} ms, directory"
                    f" {directory.ms_redis:.2f} ms an action (with Redis): ratio {directory.ms_redis / floor.ms_redis:.2f};"
                    f" mix " + ", ".join(f"{kind} {share:.0%}" for kind, share in shares.items()),
                    flush=True,
                )

    width = max(len(label) for _, label, _, _ in rows)
    print(
        f"\n{'setup':<{width}} round  floor ms (+Redis)  directory ms (+Redis)  ratio  cmds floor/dir"
        "  bytes floor/dir  failed floor/dir"
    )
    for round_number, label, floor, directory in rows:
        print(
            f"{label:<{width}} {round_number:>5}  {floor.ms:>8.2f} ({floor.ms_redis:>5.2f})"
            f"  {directory.ms:>12.2f} ({directory.ms_redis:>5.2f})  {directory.ms_redis / floor.ms_redis:>5.2f}"
            f"  {floor.cmds:>5.1f} / {directory.cmds:<5.1f}  {floor.bytes:>6.0f} / {directory.bytes:<6.0f}"
            f"  {floor.failures:>6} / {directory.failures}"
        )
    print("\nratio: the directory's CPU per action over the floor's, Redis's CPU counted in both; median over rounds")
    for setup in setups:
        ratios = [d.ms_redis / f.ms_redis for _, label, f, d in rows if label == setup.label]
        verdicts = ", ".join(f"≤ {target}: {'met' if max(ratios) <= target else 'MISSED'}" for target in TARGETS)
        print(
            f"  {setup.label:<{width}}  {median(ratios):.2f} (rounds {min(ratios):.2f}–{max(ratios):.2f})  {verdicts}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
