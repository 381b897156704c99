"""Benchmark: the city-page and detail queries on PostgreSQL.

    .venv/bin/python bench/bench_queries.py --listings 50000 --runs 500

Creates a scratch database on the server of BENCH_DATABASE_URL (default: the
local test server), migrates it, fills it with the demo-data command's
generator (printing its rate), then times the two public queries the site
runs most, exactly as the pages call them, and prints p50/p95 in ms with the
row count. The scratch database is dropped at the end. Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
from sqlalchemy import func
from sqlalchemy.engine import make_url
from sqlmodel import Session, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core.geo import CITIES  # noqa: E402
from app.db import make_engine, migrate  # noqa: E402
from app.models import Listing, ListingStatus, Section  # noqa: E402
from app.seed import seed  # noqa: E402
from app.services import listings  # noqa: E402
from app.services.filter_tabs import FILTER_TABS, TABS_BY_SLUG  # noqa: E402

SERVER = os.environ.get("BENCH_DATABASE_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres")


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def _time(fn, runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()

    name = f"bench_{uuid.uuid4().hex[:10]}"
    libpq = make_url(SERVER).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = make_url(SERVER).set(database=name).render_as_string(hide_password=False)
    try:
        migrate(url)
        engine = make_engine(url)
        with Session(engine) as session, tempfile.TemporaryDirectory() as media:
            started = time.perf_counter()
            seed(session=session, listings=args.listings, media_dir=Path(media))
            elapsed = time.perf_counter() - started
            print(f"seed: {args.listings} listings in {elapsed:.2f} s = {args.listings / elapsed:,.0f} listings/s")
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
        with Session(engine) as session:
            total = session.exec(select(func.count()).select_from(Listing)).one()
            uids = list(session.exec(select(Listing.uid).where(Listing.status == ListingStatus.PUBLICADA.value)).all())
            rng = random.Random(1)
            todas = TABS_BY_SLUG["todas"]

            def city_page():
                listings.city_cards(session=session, section=Section.MUJERES.value, city_slug=rng.choice(CITIES).slug, tab=todas)

            def city_page_tab():
                listings.city_cards(
                    session=session, section=rng.choice(list(Section)).value, city_slug=rng.choice(CITIES).slug,
                    tab=rng.choice(FILTER_TABS), page=rng.randint(1, 3),
                )

            def detail():
                listings.public_listing(session=session, uid=rng.choice(uids))

            print(f"rows: {total} listings ({len(uids)} published), {args.runs} runs each, times in ms")
            for label, fn in (("city page (Todas, page 1)", city_page), ("city page (any tab/section, pages 1-3)", city_page_tab), ("listing detail", detail)):
                _time(fn, 20)  # warm-up
                p50, p95 = _percentiles(_time(fn, args.runs))
                print(f"{label:42s} p50 {p50:6.2f}   p95 {p95:6.2f}")
        engine.dispose()
    finally:
        with psycopg.connect(libpq, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    sys.exit(main())
