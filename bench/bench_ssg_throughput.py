"""Throughput of the server-rendered pages against /healthz on the same production server.

Loads the demo data (``app.seed``) into a scratch PostgreSQL database, serves
the app in production mode the way the e2e tests do (``tests.e2e.conftest``:
the production build, Redis for the state, WEB_WORKERS workers), and loads
each URL with wrk (Debian's ``wrk`` package: a C client, so the client is not
what limits the figure): /healthz, the busiest city's first page and the SSG
home, each as a first visit (no cookie: the 18+ notice is in the page) and as a
returning visitor (the 18+ cookie set). Runs alternate between the URLs, round
after round, and each figure is the median requests/second of its runs; the
ratio is against /healthz's median.

After the load it pauses the city's first listing through the owner's
service in this process (as another worker would: the change reaches the
server's workers through Redis), asks for the page 40 times and fails if any
answer still shows it; the listing is then resumed.

Target (issue 10): a city page at 50% or more of /healthz's throughput.
Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_ssg_throughput.py [--listings 50000] [--rounds 5]

``--revision REV`` serves a copy of the project whose ``app`` package is the
one committed at REV (to measure an earlier version on the same machine).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import busiest_city, demo_database, serve_demo

TARGET_RATIO = 0.5
REQUESTS_PER_SECOND = re.compile(r"Requests/sec:\s+([\d.]+)")
NOT_OK = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
SOCKET_ERRORS = re.compile(r"Socket errors: (.*)")


def wrk(url: str, *, seconds: int, connections: int, threads: int, cookie: str | None) -> float:
    """Requests/second of one wrk run; fails when any response was not 2xx/3xx or a socket failed."""
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s"]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    if NOT_OK.search(out) or SOCKET_ERRORS.search(out):
        raise RuntimeError(f"wrk reported failures for {url}:\n{out}")
    return float(REQUESTS_PER_SECOND.search(out).group(1))


# What a copy of the app needs to build and run (its frontend builds into common.BENCH_WEB_DIR).
# scripts/: the server the copy runs (scripts/serve.py, as the end-to-end tests serve the app).
APP_FILES = ("app", "assets", "alembic", "alembic.ini", "rxconfig.py", "reflex.lock", "requirements.txt", "scripts")


def _project_at(project: Path, revision: str, copy: Path, committed: tuple[str, ...] = ("app",)) -> Path:
    """A copy of what the app needs to build and run, with ``committed`` (``app`` alone by default) as committed
    at ``revision``."""
    for name in APP_FILES:
        source = project / name
        if name in committed:
            continue
        if source.is_dir():
            shutil.copytree(source, copy / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            copy.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    copy.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "archive", revision, *committed], cwd=project, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(copy)], input=archive, check=True)
    print(f"serving {', '.join(committed)} at {revision} from {copy}")
    return copy


def check_invalidation(site: str, city: str, redis_url: str, requests: int) -> None:
    """Pause the first listing of ``city``'s page through the owner's service, in this process (as another
    worker would), and check that none of ``requests`` requests spread over the workers still shows it."""
    import httpx
    from sqlmodel import Session

    from app.db import get_engine
    from app.models import Listing, ListingStatus, Section
    from app.models.filter_tabs import DEFAULT_TAB
    from app.services import listings, my_listings, page_cache  # noqa: F401  (page_cache: the write listener)
    from app.settings import get_settings

    os.environ["REDIS_URL"] = redis_url
    get_settings.cache_clear()
    page = f"{site}/escorts-ssg/{city}"
    with Session(get_engine()) as session:
        first = listings.city_cards(
            session=session, section=Section.MUJERES.value, city_slug=city, tab=DEFAULT_TAB
        ).cards[0]
        if first.uid not in httpx.get(page).text:
            raise RuntimeError(f"{first.uid} is not on {page} before the change")
        owner = session.get(Listing, first.uid).owner_uid
        my_listings.pause_listing(session=session, owner_uid=owner, uid=first.uid)
        stale = sum(first.uid in httpx.get(page).text for _ in range(requests))
        print(f"after pausing {first.uid}: {stale} of {requests} requests still showed it")
        my_listings.resume_listing(session=session, owner_uid=owner, uid=first.uid)
        assert session.get(Listing, first.uid).status == ListingStatus.PUBLICADA
    get_engine().dispose()
    if stale:
        raise RuntimeError("a worker served a page cached before the change")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds over every URL")
    parser.add_argument("--seconds", type=int, default=5, help="length of one wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (the machine's other core serves)")
    parser.add_argument("--workers", type=int, default=1, help="WEB_WORKERS of the app")
    parser.add_argument("--revision", help="serve the app package of this git revision instead of the working tree")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is missing: apt-get install -y wrk")
        return 2
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    with demo_database(args.listings) as data:
        from sqlmodel import Session

        from app.db import get_engine
        from app.states.public import AGE_COOKIE

        with Session(get_engine()) as session:
            city, count = busiest_city(session)
            print(f"busiest city: {city}, {count} public listings")
        get_engine().dispose()

        adult = f"{AGE_COOKIE}=1"
        targets = [
            ("/healthz", "/healthz", None),
            ("city, first visit", f"/escorts-ssg/{city}", None),
            ("city, returning (18+)", f"/escorts-ssg/{city}", adult),
            ("city page 2, returning", f"/escorts-ssg/{city}?pagina=2", adult),
            ("home, first visit", "/escorts-ssg", None),
            ("home, returning (18+)", "/escorts-ssg", adult),
        ]
        from tests.e2e.conftest import PROJECT
        from tests.redis_server import SITE_DB, redis_url

        project = _project_at(PROJECT, args.revision, data.folder / "project") if args.revision else None
        with serve_demo(data, workers=args.workers, project=project) as site:
            print(
                f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s, {args.rounds} alternating rounds;"
                f" city: {city}"
            )
            for _, path, cookie in targets:  # warm up every URL once (and check it answers)
                wrk(site + path, seconds=1, connections=args.connections, threads=args.threads, cookie=cookie)
            results: dict[str, list[float]] = {label: [] for label, _, _ in targets}
            try:
                for _ in range(args.rounds):
                    for label, path, cookie in targets:
                        results[label].append(
                            wrk(
                                site + path,
                                seconds=args.seconds,
                                connections=args.connections,
                                threads=args.threads,
                                cookie=cookie,
                            )
                        )
                check_invalidation(site, city, redis_url(SITE_DB), requests=40)
            except Exception:
                print(f"server log tail:\n{data.server_log.read_text()[-3000:]}")
                raise
        health = statistics.median(results["/healthz"])
        print(f"{'URL':<26} {'median req/s':>12} {'vs /healthz':>11}  runs")
        worst = float("inf")
        for label, samples in results.items():
            median = statistics.median(samples)
            ratio = median / health
            if label.startswith("city"):
                worst = min(worst, ratio)
            runs = " ".join(f"{s:.0f}" for s in samples)
            print(f"{label:<26} {median:>12.0f} {ratio:>10.0%}  {runs}")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        verdict = "met" if worst >= TARGET_RATIO else "MISSED"
        print(f"worst city page: {worst:.0%} of /healthz (target {TARGET_RATIO:.0%}): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
