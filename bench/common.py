"""Shared pieces of the benchmarks: a scratch PostgreSQL database with the demo data, the app served on it
the way the end-to-end tests serve it, and timing helpers."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SERVER = os.environ.get("BENCH_DATABASE_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres")


def _admin_url() -> str:
    return make_url(SERVER).set(drivername="postgresql").render_as_string(hide_password=False)


def create_database() -> str:
    """A new, empty database on the BENCH_DATABASE_URL server; returns its URL (the caller drops it)."""
    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_admin_url(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return make_url(SERVER).set(database=name).render_as_string(hide_password=False)


@contextmanager
def scratch_database() -> Iterator[str]:
    """A new, empty database on the BENCH_DATABASE_URL server, dropped afterwards; yields its URL."""
    url = create_database()
    try:
        yield url
    finally:
        with psycopg.connect(_admin_url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')


@dataclass(frozen=True)
class DemoData:
    """A scratch database loaded with the demo data, and the folders the app writes to."""

    url: str
    folder: Path

    @property
    def media(self) -> Path:
        return self.folder / "media"

    @property
    def server_log(self) -> Path:
        """Where :func:`serve_demo` writes the app server's output."""
        return self.folder / "server.log"


@contextmanager
def demo_database(listings: int, *, analyze: bool = True) -> Iterator[DemoData]:
    """A scratch database migrated and loaded with ``listings`` demo listings (``app.seed``), dropped afterwards.

    The app's settings point at it while it lasts (``DATABASE_URL``, ``MEDIA_DIR``); ``analyze`` gives the
    planner the statistics a live database has.
    """
    with scratch_database() as url, tempfile.TemporaryDirectory() as tmp:
        data = DemoData(url=url, folder=Path(tmp))
        os.environ.update(DATABASE_URL=url, MEDIA_DIR=str(data.media), ENVIRONMENT="test", REDIS_URL="")
        from sqlmodel import Session

        from app.db import get_engine, migrate
        from app.seed import seed
        from app.settings import get_settings
        from app.storage.local import LocalStorage

        get_settings.cache_clear()
        get_engine.cache_clear()
        migrate(url)
        with Session(get_engine()) as session:
            started = time.perf_counter()
            seed(session=session, listings=listings, storage=LocalStorage(data.media))
            print(f"seed: {listings} listings in {time.perf_counter() - started:.1f} s")
        if analyze:
            with get_engine().connect() as connection:
                connection.exec_driver_sql("ANALYZE")
                connection.commit()
        yield data
        get_engine().dispose()


# The benchmarks' frontend build: a folder of its own, never the .web that an instance of this
# checkout (scripts/run.sh) serves, whose Content-Security-Policy was hashed from its own build.
BENCH_WEB_DIR = Path(__file__).resolve().parents[1] / ".build" / "bench"


@contextmanager
def serve_demo(
    data: DemoData,
    *,
    workers: int = 1,
    project: Path | None = None,
    redis: bool = True,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """The app in production mode on ``data``, built into BENCH_WEB_DIR and served as the end-to-end tests serve
    it (state in a private Redis server, ``workers`` backend workers); yields its URL. ``project``: another copy
    of the project to serve; ``redis=False``: state in the one worker's memory; ``env``: more of the app's
    environment. It logs as production does (JSON at INFO, compose.yaml), not at the tests' DEBUG: a benchmark
    measures what a site costs."""
    from tests.e2e.conftest import PROJECT, _app_env, _serve
    from tests.mailbox import free_port
    from tests.redis_server import SITE_DB, empty_redis

    env = _app_env(
        **{
            "DATABASE_URL": data.url,
            "MEDIA_DIR": str(data.media),
            "PRIVATE_MEDIA_DIR": str(data.folder / "private"),
            "OUTBOX_DIR": str(data.folder / "outbox"),
            "IDENTITY_PROVIDER": "local",
            "REDIS_URL": empty_redis(SITE_DB) if redis else "",
            "WEB_WORKERS": str(workers),
            "LOG_LEVEL": "INFO",
            **(env or {}),  # a setup's own variables win (LOG_LEVEL=WARNING: the site without its INFO lines)
        }
    )
    started = time.perf_counter()
    with _serve(project or PROJECT, free_port(), env, data.server_log, workers=workers, web_dir=BENCH_WEB_DIR) as url:
        print(
            f"app built and serving in {time.perf_counter() - started:.0f} s ({workers} worker(s),"
            f" {'Redis' if redis else 'memory'} state)"
        )
        yield url


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p95) of the samples."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds taken by each of ``runs`` calls of ``fn``."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def quantile(samples: list[float], q: float) -> float:
    """The ``q`` quantile of the samples (nearest rank, as ``percentiles``' p95)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def busiest_city(session) -> tuple[str, int]:
    """The city with the most public listings in the women's section, and that count."""
    from sqlalchemy import func
    from sqlmodel import select

    from app.models import Listing, ListingStatus, Section

    return session.exec(
        select(Listing.city_slug, func.count())
        .where(Listing.status == ListingStatus.PUBLICADA.value, Listing.section == Section.MUJERES.value)
        .group_by(Listing.city_slug)
        .order_by(func.count().desc())
        .limit(1)
    ).one()


def admin_token() -> str:
    """A new administrator on the demo database and a session token for them; prints the directory's size."""
    from sqlalchemy import func
    from sqlmodel import Session, select

    from app.db import get_engine
    from app.models import Listing, ProfileId, User

    with Session(get_engine()) as session:
        users = session.exec(select(func.count()).select_from(User)).one()
        listings = session.exec(select(func.count()).select_from(Listing)).one()
    print(f"directory: {users} users, {listings} listings")
    return session_token(ProfileId.ADMINISTRADOR)


def session_token(profile, *, owner_of_listings: bool = False) -> str:
    """A session token on the demo database for a new user of ``profile``, or, with ``owner_of_listings``,
    for the demo advertiser in good standing who owns the most listings."""
    from sqlalchemy import func
    from sqlmodel import Session, select

    from app.db import get_engine
    from app.models import Listing, User
    from app.services.users import create_user
    from tests.factories import open_session

    with Session(get_engine()) as session:
        if owner_of_listings:
            uid = session.exec(
                select(Listing.owner_uid)
                .join(User, User.uid == Listing.owner_uid)
                .where(User.activo, ~User.ban)  # a banned owner's session is refused
                .group_by(Listing.owner_uid)
                .order_by(func.count().desc())
                .limit(1)
            ).one()
        else:
            email = f"{profile.name.lower()}@bench.example"
            uid = create_user(
                session=session, data={"email": email, "display_name": profile.name.title(), "profile_uid": profile}
            ).uid
        token = open_session(session, uid)
    get_engine().dispose()
    return token
