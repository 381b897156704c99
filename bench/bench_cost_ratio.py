"""What the directory costs per visitor action against what Reflex alone costs, in one run: the cost ratio.

Issue 37 replaces absolute CPU targets (which move with the host) by a ratio, which barely does. For each
setup (``--setups``: memory state with one worker, Redis with one and with two workers) and each round
(``--rounds``), this runs, interleaved and with the same websocket client and think time:

1. the framework's floor: ``bench_event_floor.py``'s app of one counter, served as this app is, loaded
   with its three kinds of action (a tab's first load: its document, connect and hydrate; an event; a
   navigation), one load each;
2. the directory: ``bench_ws_load.py``'s visitors on the demo data (``--listings``), doing what people do.

The floor's CPU per action is weighted by the directory's own mix of that round: first loads count as
connects; paging and counting as events; listings, tabs, cities, filters and going back as navigations.
Both count the Redis server's CPU. It prints, per setup and round, the CPU per action of each (ms, with
Redis), the Redis commands and the update bytes per action of each, and the ratio; then per setup the
median ratio over the rounds with its spread (lowest and highest round). Target: at most 2.0 on every setup,
then 1.5. Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_cost_ratio.py [--rounds 2] [--visitors 150]

``--by-kind`` profiles each kind of action alone instead (``bench_ws_load.ONLY``: first loads, cities, tabs, a
listing and back, paging, counting, filtering), each against the floor's kind of action it is, and with
``--profile`` py-spy samples the server during a second load of each, printing where its CPU went.
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

from bench.bench_event_floor import (
    KINDS,
    measure,
    navigate_in_place,
    serve_floor,
    without_document,
    write_floor_app,
)
from bench.bench_ws_load import (
    FIRST_LOAD,
    ONLY,
    Setup,
    _redis_pid,
    profile,
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
# The floor's kind of action each of bench_ws_load.ONLY's loads is.
ONLY_FLOOR_KIND = {"first_load": "connect", "paging": "event", "count": "event"}


@dataclass
class Measured:
    """One side of one round: CPU per action (ms, and with Redis's), Redis commands and update bytes an action."""

    ms: float
    ms_redis: float
    cmds: float
    bytes: float
    actions: int
    failures: int


def floor_by_kind(folder: Path, setup: Setup, args) -> dict[str, Measured]:
    """The floor app on ``setup``: one load of each of its kinds."""
    with serve_floor(folder, setup, folder / "floor.log") as (port, servers):
        redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
        rows = {kind: measure(port, servers, redis_pid, kind, args) for kind in KINDS}
    return {
        kind: Measured(row["ms"], row["ms_redis"], row["cmds"], row["bytes"], row["actions"], row["failures"])
        for kind, row in rows.items()
    }


def floor_side(folder: Path, setup: Setup, shares: dict[str, float], args) -> Measured:
    """The floor app on ``setup``: one load per kind, weighted by ``shares`` (the directory's mix)."""
    rows = floor_by_kind(folder, setup, args)

    def weighted(key: str) -> float:
        return sum(shares[kind] * getattr(rows[kind], key) for kind in KINDS)

    return Measured(
        ms=weighted("ms"),
        ms_redis=weighted("ms_redis"),
        cmds=weighted("cmds"),
        bytes=weighted("bytes"),
        actions=sum(row.actions for row in rows.values()),
        failures=sum(row.failures for row in rows.values()),
    )


def directory_side(
    data,
    setup: Setup,
    cities: list[str],
    args,
    profile_to: Path | None = None,
    first_load: Measured | None = None,
) -> tuple[Measured, dict[str, float]]:
    """The directory on ``setup`` under bench_ws_load.py's visitors; and the shares of the floor's kinds in it.

    With ``profile_to``, a second load of as many visitors follows with py-spy sampling the server (printed).
    With ``first_load`` (what one costs, measured alone), the visitors' first loads are taken out: the figures
    are those of the other actions."""
    from reflex_base.constants.base import Reflex

    with serve_setup(data, setup, data.folder) as site:
        port = urlsplit(site).port
        hashes = served_hashes(setup, data.folder)
        redis_pid = _redis_pid(redis_url(SITE_DB)) if setup.redis else None
        stats, _elapsed, app_cpu, redis_cpu, _load = asyncio.run(
            run_load(site, port, args, cities, hashes, Reflex.VERSION, redis_pid)
        )
        if profile_to is not None:
            profile(
                site,
                port,
                argparse.Namespace(**{**vars(args), "profile": args.visitors}),
                cities,
                hashes,
                Reflex.VERSION,
                profile_to,
            )
    done = max(1, stats.events_ok)
    counts = dict.fromkeys(KINDS, 0)
    for kind, times in stats.times.items():
        counts[FLOOR_KIND[kind]] += len(times)
    total = sum(counts.values()) or 1
    ms, ms_redis, cmds = 1000 * app_cpu, 1000 * (app_cpu + redis_cpu), float(stats.redis_commands)
    if first_load is not None:
        loads = len(stats.times.get(FIRST_LOAD, []))
        done = max(1, stats.events_ok - loads)
        ms, ms_redis = ms - loads * first_load.ms, ms_redis - loads * first_load.ms_redis
        cmds -= loads * first_load.cmds
    sizes = [
        size for kind, values in stats.sizes.items() if first_load is None or kind != FIRST_LOAD for size in values
    ]
    measured = Measured(
        ms=ms / done,
        ms_redis=ms_redis / done,
        cmds=cmds / done,
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
    parser.add_argument("--by-kind", action="store_true", help="each kind of action alone, against the floor's kind")
    parser.add_argument("--profile", action="store_true", help="with --by-kind: py-spy on a second load of each kind")
    parser.add_argument(
        "--same-page", action="store_true", help="the floor's navigations to the page it is on, as before 2026-11-29"
    )
    parser.add_argument(
        "--without-document",
        action="store_true",
        help="the floor's first loads without their HTTP document, as before 2026-11-29",
    )
    args = parser.parse_args()
    if args.same_page:
        navigate_in_place()
    if args.without_document:
        without_document()
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
        if args.by_kind:
            by_kind(data, floor_folder, setups, cities, args, floor_args)
            return 0
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


def by_kind(data, floor_folder: Path, setups: list[Setup], cities: list[str], args, floor_args) -> None:
    """Per setup: the floor's kinds once, then each of bench_ws_load.ONLY's kinds of action alone; one table."""
    for setup in setups:
        print(f"\n== {setup.label}: the floor, each kind ==", flush=True)
        floor = floor_by_kind(floor_folder, setup, floor_args)
        rows = []
        first_load = None
        for only in ONLY:  # first loads first: the others' figures are taken net of their visitors' first loads
            print(f"\n== {setup.label}: the directory, {only} alone ==", flush=True)
            load = argparse.Namespace(**{**vars(args), "only": only})
            out = Path(tempfile.gettempdir()) / f"cost-profile-{setup.label}-{only}.txt" if args.profile else None
            directory, _ = directory_side(data, setup, cities, load, out, first_load)
            first_load = first_load or directory
            rows.append((only, directory, floor[ONLY_FLOOR_KIND.get(only, "navigation")]))
        print(
            f"\n{setup.label}: each kind of action alone against the floor's kind (ms CPU an action, Redis's counted;"
            " after the first loads', net of them)"
        )
        print(
            f"{'action':<11} {'floor kind':<11} {'floor':>6} {'directory':>9} {'ratio':>6} {'cmds f/d':>11} {'bytes f/d':>13}"
        )
        for only, directory, base in rows:
            kind = ONLY_FLOOR_KIND.get(only, "navigation")
            print(
                f"{only:<11} {kind:<11} {base.ms_redis:>6.2f} {directory.ms_redis:>9.2f}"
                f" {directory.ms_redis / base.ms_redis:>6.2f} {base.cmds:>5.1f}/{directory.cmds:<5.1f}"
                f" {base.bytes:>6.0f}/{directory.bytes:<6.0f}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
