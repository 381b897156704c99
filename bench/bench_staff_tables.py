"""Staff tables under a full directory: every table pages, searches and sorts.

Loads the demo data (``app.seed``: 50,000 listings and their owners, about
16,700 users) into a scratch PostgreSQL database, signs in an administrator, then calls
every staff table's handlers in-process, the way the backend runs an event:
the area opener, searches, a sort on each sortable column both ways, and
paging. For each call it measures the handler's wall time (including the
session check and the query) and the size of the state update the browser
would receive (the JSON of the state's delta). The websocket hop (measured by
bench_staff_ws.py) and the browser's rendering are not in the figure.

Targets (issue 9): state update under 100 KB and round trip under 200 ms at p95.

    .venv/bin/python bench/bench_staff_tables.py [--listings 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import admin_token, demo_database, percentiles

SEARCHES = ("a", "ana", "demo", "temuco", "zzzz-nada")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3, help="rounds of every call per table")
    args = parser.parse_args()

    with demo_database(args.listings, analyze=False):
        token = admin_token()

        from app.states.staff.table import StaffTableState
        from tests.handlers import client_states, invoke

        tables = sorted(
            (
                cls
                for cls in _subclasses(StaffTableState)
                if hasattr(cls, "_spec") and "open_admin" in cls.event_handlers
            ),
            key=lambda cls: cls.__name__,
        )
        print(f"{'table':<32} {'calls':>5} {'p50 ms':>7} {'p95 ms':>7} {'max KB':>7}  target p95<200 ms, <100 KB")
        worst_ms, worst_kb = 0.0, 0.0
        for cls in tables:
            state, _ = client_states(cls, token)
            root = state._get_root_state()
            spec = cls._spec
            calls = [("open_admin", {})]
            calls += [("search", {"form_data": {"q": text}}) for text in SEARCHES]
            calls += [("search", {"form_data": {"q": ""}})]
            for column in spec.columns:
                if column.sortable:
                    calls += [("sort", {"key": column.key}), ("sort", {"key": column.key})]
            calls += [("next_page", {}), ("next_page", {}), ("prev_page", {})]
            times, sizes = [], []
            for _ in range(args.runs):
                for name, kwargs in calls:
                    root._clean()
                    started = time.perf_counter()
                    invoke(state, name, **kwargs)
                    delta = root.get_delta()
                    times.append((time.perf_counter() - started) * 1000)
                    sizes.append(len(json.dumps(delta, default=str).encode()) / 1024)
            p50, p95 = percentiles(times)
            worst_ms, worst_kb = max(worst_ms, p95), max(worst_kb, max(sizes))
            print(f"{cls.__name__:<32} {len(times):>5} {p50:>7.1f} {p95:>7.1f} {max(sizes):>7.1f}")
        verdict = "met" if worst_ms < 200 and worst_kb < 100 else "MISSED"
        print(f"worst table: p95 {worst_ms:.1f} ms, largest update {worst_kb:.1f} KB: targets {verdict}")
    return 0


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_subclasses(sub))
    return found


if __name__ == "__main__":
    raise SystemExit(main())
