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
import random
import sys
import tempfile
import time
from pathlib import Path

from common import percentiles, scratch_database, timed
from sqlalchemy import func
from sqlmodel import Session, select

from app.core.geo import CITIES
from app.db import make_engine, migrate
from app.models import Listing, ListingStatus, Section
from app.models.filter_tabs import FILTER_TABS, TABS_BY_SLUG
from app.seed import seed
from app.services import listings
from app.storage.local import LocalStorage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()

    with scratch_database() as url:
        migrate(url)
        engine = make_engine(url)
        with Session(engine) as session, tempfile.TemporaryDirectory() as media:
            started = time.perf_counter()
            seed(session=session, listings=args.listings, storage=LocalStorage(Path(media)))
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
                listings.city_cards(
                    session=session, section=Section.MUJERES.value, city_slug=rng.choice(CITIES).slug, tab=todas
                )

            def city_page_tab():
                listings.city_cards(
                    session=session,
                    section=rng.choice(list(Section)).value,
                    city_slug=rng.choice(CITIES).slug,
                    tab=rng.choice(FILTER_TABS),
                    page=rng.randint(1, 3),
                )

            def detail():
                listings.public_listing(session=session, uid=rng.choice(uids))

            print(f"rows: {total} listings ({len(uids)} published), {args.runs} runs each, times in ms")
            for label, fn in (
                ("city page (Todas, page 1)", city_page),
                ("city page (any tab/section, pages 1-3)", city_page_tab),
                ("listing detail", detail),
            ):
                timed(fn, 20)  # warm-up
                p50, p95 = percentiles(timed(fn, args.runs))
                print(f"{label:42s} p50 {p50:6.2f}   p95 {p95:6.2f}")
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
