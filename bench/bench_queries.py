"""Benchmark: the city-page (plain and filtered) and detail queries on PostgreSQL.

    .venv/bin/python bench/bench_queries.py --listings 50000 --runs 500 [--compare-indexes]

Creates a scratch database on the server of BENCH_DATABASE_URL (default: the
local test server), migrates it, fills it with the demo-data command's
generator (printing its rate), vacuums and analyzes it, then times the two public queries the site
runs most, exactly as the pages call them, and prints p50/p95 in ms with the
row count, twice: the whole call (the query, then the cards built from its rows)
and the database's part of it (its round trips: the statements, from psycopg's
send to the last row received): a city page (any tab), a city page with filters (comuna, hourly rate,
age, services: app.models.listing_filters), the communes a city's filter offers,
and a listing's detail. ``--compare-indexes`` then times the same queries as they
were before migration 0014 (a count of every match for the pager, the services
filter probing publicacion_servicio), and again without the indexes the filters
added (migrations 0010, 0014 and 0015), side by side; ``--explain`` prints
``EXPLAIN (ANALYZE, BUFFERS)`` of the slowest variants' queries, both ways. The
scratch database is dropped at the end, unless ``--keep``: then its URL is printed, and
``--database URL`` times the same data again (another variant of the code, back to back) without loading it.
Not part of the tests.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import random
import sys
import tempfile
import time
from pathlib import Path

from common import create_database, percentiles, scratch_database
from sqlalchemy import event, exists, func
from sqlmodel import Session, col, select

from app.core.geo import CITIES
from app.db import make_engine, migrate
from app.models import Listing, ListingService, ListingStatus, Section
from app.models import listing_filters as listing_filters_module
from app.models.filter_tabs import FILTER_TABS, TABS_BY_SLUG
from app.models.listing_filters import ListingFilters
from app.seed import seed
from app.services import city_filters, listings
from app.storage.local import LocalStorage


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument(
        "--compare-indexes",
        action="store_true",
        help="time the filtered queries again as before 0014, and without the filters' indexes",
    )
    parser.add_argument("--explain", action="store_true", help="EXPLAIN (ANALYZE, BUFFERS) the slow variants")
    parser.add_argument(
        "--keep", action="store_true", help="keep the loaded scratch database and print its URL (for --database)"
    )
    parser.add_argument(
        "--database", metavar="URL", help="time on a database a --keep run loaded (not loaded again, not dropped)"
    )
    args = parser.parse_args()
    if args.compare_indexes and (args.keep or args.database):
        parser.error("--compare-indexes drops indexes: not on a database kept for other runs")

    with _database(args.database, keep=args.keep) as url:
        engine = make_engine(url)
        database = _DatabaseClock(engine)
        if args.database is None:
            _load(engine, url, args.listings)
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

            filtered = _filtered_queries(session, rng)
            print(f"rows: {total} listings ({len(uids)} published), {args.runs} runs each, times in ms")
            print(f"{'':42s} {'whole call':>22s}   {'in the database':>22s}")
            for label, fn in (
                ("city page (Todas, page 1)", city_page),
                ("city page (any tab/section, pages 1-3)", city_page_tab),
                *filtered,
                ("listing detail", detail),
            ):
                print(f"{label:42s} {_figures(fn, args.runs, database)}")
            if args.explain:
                _explain(engine, session, _explained_queries(session))
            if args.compare_indexes:
                print("before 0014 (a count of every match, services probed in publicacion_servicio):")
                with _before_0014():
                    for label, fn in (("city page (Todas, page 1)", city_page), *filtered):
                        print(f"{label:42s} {_figures(fn, args.runs, database)}")
                    if args.explain:
                        _explain(engine, session, _explained_queries(session))
                session.rollback()  # its transaction's locks would hold the DROP INDEX back
                with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                    for name in FILTER_INDEXES:
                        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")
                    conn.exec_driver_sql("ANALYZE publicacion")
                print(f"without {', '.join(FILTER_INDEXES)}:")
                for label, fn in filtered:
                    print(f"{label:42s} {_figures(fn, args.runs, database)}")
        engine.dispose()
    return 0


@contextlib.contextmanager
def _database(url: str | None, *, keep: bool):
    """The URL to time on: ``url`` as it is, or a new scratch database (dropped afterwards unless ``keep``)."""
    if url is not None:
        yield url
    elif keep:
        yield create_database()
    else:
        with scratch_database() as scratch:
            yield scratch


def _load(engine, url: str, count: int) -> None:
    """Migrate, load ``count`` demo listings, vacuum and analyze."""
    migrate(url)
    with Session(engine) as session, tempfile.TemporaryDirectory() as media:
        started = time.perf_counter()
        seed(session=session, listings=count, storage=LocalStorage(Path(media)))
        elapsed = time.perf_counter() - started
        print(f"seed: {count} listings in {elapsed:.2f} s = {count / elapsed:,.0f} listings/s")
    # As autovacuum leaves a loaded table: statistics, and the visibility map that lets a count read
    # only the index (without it every count reads one table block per listing of the city).
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM ANALYZE")
    print(f"database: {url}")


@contextlib.contextmanager
def _before_0014():
    """The city page's queries as they were before migration 0014: the pager counted every match, and a
    services filter probed publicacion_servicio for each listing (its parameter the service's uid itself)."""

    def probe(service_uid):
        return exists(
            select(col(ListingService.listing_uid)).where(
                col(ListingService.listing_uid) == col(Listing.uid), col(ListingService.service_uid) == service_uid
            )
        )

    caps = listings.COUNT_CAP, listings.FILTERED_COUNT_CAP
    offers, pattern = listing_filters_module.offers_service, listing_filters_module.service_pattern
    listings.COUNT_CAP = listings.FILTERED_COUNT_CAP = 10**9
    listing_filters_module.offers_service, listing_filters_module.service_pattern = probe, str
    listings._city_statements.cache_clear()  # built with the conditions of now
    try:
        yield
    finally:
        (listings.COUNT_CAP, listings.FILTERED_COUNT_CAP) = caps
        listing_filters_module.offers_service, listing_filters_module.service_pattern = offers, pattern
        listings._city_statements.cache_clear()


def _explained_queries(session: Session) -> list:
    """Fixed cases of the slow variants (Talca, Todas, page 1), the same both ways: (label, function) pairs."""
    catalogue = city_filters.service_options(session=session)
    commune = next(
        found.commune
        for found in city_filters.commune_counts(session=session, section=Section.MUJERES.value, city_slug="talca")
        if found.commune.name != "Talca"
    )
    cases = {
        "no filter": ListingFilters(),
        "1 service": ListingFilters(services=(catalogue[0],)),
        "2 services + max rate 100.000": ListingFilters(services=tuple(catalogue[:2]), price_max=100_000),
        "rate 60.000-110.000 + age 20-30": ListingFilters(price_min=60_000, price_max=110_000, age_min=20, age_max=30),
        f"comuna {commune.name} + rate 60.000-110.000": ListingFilters(
            commune=commune, price_min=60_000, price_max=110_000
        ),
    }

    def run(filters: ListingFilters):
        return lambda: listings.city_cards(
            session=session,
            section=Section.MUJERES.value,
            city_slug="talca",
            tab=TABS_BY_SLUG["todas"],
            filters=filters,
        )

    return [(f"Talca, {label}", run(filters)) for label, filters in cases.items()]


def _explain(engine, session: Session, cases: list) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of the count and the page of each case."""
    for label, fn in cases:
        statements: list = []

        def grab(conn, cursor, statement, parameters, context, executemany, statements=statements):
            statements.append((statement, parameters))

        event.listen(engine, "before_cursor_execute", grab)
        try:
            fn()
        finally:
            event.remove(engine, "before_cursor_execute", grab)
        print(f"--- EXPLAIN {label}")
        for statement, parameters in statements[:2]:  # the count, the page (then its photos)
            plan = session.connection().exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + statement, parameters).all()
            print("\n".join(row[0] for row in plan))


# The indexes migrations 0010, 0014 and 0015 add for the filters and tabs (app/models/listings.py says which
# query each serves).
FILTER_INDEXES = (
    "ix_publicacion_city_commune",
    "ix_publicacion_city_filters",
    "ix_publicacion_city_price",
    "ix_publicacion_city_porn",
    "ix_publicacion_city_available",
    "ix_publicacion_city_visiting",
    "ix_publicacion_servicio_service",
)


class _DatabaseClock:
    """Milliseconds an engine's connections spend in the database: from each statement's send to its last row
    (psycopg's client cursors receive every row before ``execute`` returns)."""

    def __init__(self, engine) -> None:
        self.spent = 0.0
        self._started = 0.0
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)

    def _before(self, *_args) -> None:
        self._started = time.perf_counter()

    def _after(self, *_args) -> None:
        self.spent += (time.perf_counter() - self._started) * 1000


def _figures(fn, runs: int, database: _DatabaseClock) -> str:
    """p50 and p95 of ``runs`` calls of ``fn`` (after 20 to warm up): the whole call, and its database part."""
    calls: list[float] = []
    in_database: list[float] = []
    for run in range(20 + runs):
        database.spent = 0.0
        started = time.perf_counter()
        fn()
        if run >= 20:
            calls.append((time.perf_counter() - started) * 1000)
            in_database.append(database.spent)
    (p50, p95), (db50, db95) = percentiles(calls), percentiles(in_database)
    return f"p50 {p50:6.2f}   p95 {p95:6.2f}   p50 {db50:6.2f}   p95 {db95:6.2f}"


def _filtered_queries(session: Session, rng: random.Random) -> list:
    """The city page with filters, the way a visitor sets them: (label, function) pairs."""
    catalogue = city_filters.service_options(session=session)
    communes = {
        (section.value, city.slug): [
            found.commune
            for found in city_filters.commune_counts(session=session, section=section.value, city_slug=city.slug)
        ]
        for section in Section
        for city in CITIES
    }

    def price_range() -> tuple[int, int]:
        low = rng.randrange(40, 150, 10) * 1000
        return low, low + rng.choice((30, 50, 80)) * 1000

    def age_range() -> tuple[int, int]:
        low = rng.randint(18, 35)
        return low, low + rng.choice((5, 10))

    def run(section: str, city_slug: str, tab=TABS_BY_SLUG["todas"], page: int = 1, **filters) -> None:
        listings.city_cards(
            session=session,
            section=section,
            city_slug=city_slug,
            tab=tab,
            page=page,
            filters=ListingFilters(**filters),
        )

    def some_commune(section: str, city_slug: str):
        return rng.choice(communes[(section, city_slug)] or [None])

    def commune_only():
        city = rng.choice(CITIES).slug
        run(Section.MUJERES.value, city, commune=some_commune(Section.MUJERES.value, city))

    def commune_price():
        city = rng.choice(CITIES).slug
        low, high = price_range()
        run(
            Section.MUJERES.value,
            city,
            commune=some_commune(Section.MUJERES.value, city),
            price_min=low,
            price_max=high,
        )

    def price_age():
        low, high = price_range()
        young, old = age_range()
        run(Section.MUJERES.value, rng.choice(CITIES).slug, price_min=low, price_max=high, age_min=young, age_max=old)

    def services_price():
        _low, high = price_range()
        chosen = tuple(sorted(rng.sample(catalogue, rng.randint(1, 2)), key=lambda option: option.slug))
        run(Section.MUJERES.value, rng.choice(CITIES).slug, price_max=high, services=chosen)

    drawn: list[tuple] = []  # the any mix's calls, in order, for its replay
    replayed = itertools.count()

    def anything():
        section = rng.choice(list(Section)).value
        city = rng.choice(CITIES).slug
        low, high = price_range()
        young, old = age_range()
        filters = {
            "commune": some_commune(section, city) if rng.random() < 0.5 else None,
            "price_min": low if rng.random() < 0.5 else None,
            "price_max": high if rng.random() < 0.5 else None,
            "age_min": young if rng.random() < 0.3 else None,
            "age_max": old if rng.random() < 0.3 else None,
            "services": (rng.choice(catalogue),) if rng.random() < 0.3 else (),
        }
        drawn.append((section, city, rng.choice(FILTER_TABS), rng.randint(1, 2), filters))
        section, city, tab, page, filters = drawn[-1]
        run(section, city, tab=tab, page=page, **filters)

    def anything_again():
        # The any mix's calls once more, in the same order: each shape of statement (a tab and a set of filters)
        # is compiled by now, as in a worker that has served them before.
        section, city, tab, page, filters = drawn[next(replayed) % len(drawn)]
        run(section, city, tab=tab, page=page, **filters)

    def commune_list():
        city_filters.commune_counts(
            session=session, section=rng.choice(list(Section)).value, city_slug=rng.choice(CITIES).slug
        )

    return [
        ("filtered: comuna", commune_only),
        ("filtered: comuna + rate", commune_price),
        ("filtered: rate + age", price_age),
        ("filtered: 1-2 services + max rate", services_price),
        ("filtered: any mix, any tab/section, p1-2", anything),
        ("  the same again, statements compiled", anything_again),
        ("the communes a city offers", commune_list),
    ]


if __name__ == "__main__":
    sys.exit(main())
