"""Shared fixtures: migrated SQLite and PostgreSQL databases, data factories.

PostgreSQL comes from TEST_DATABASE_URL (scripts/test.sh starts or installs
the server). A test that needs it and cannot reach it fails; it never skips.

Every database is a copy of one migrated per session (per xdist worker): a PostgreSQL
template database, a SQLite template file. Passwords are hashed with PASSWORD_HASHER=fast
(argon2 at its lowest cost); a test that needs the real cost asks for ``real_argon2``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url
from sqlmodel import Session

from app.db import make_engine, migrate
from tests.firebase_emulator import firebase_emulator, firebase_oob_codes, firebase_provider  # noqa: F401  (fixtures)

DEFAULT_PG = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres"


def pytest_configure(config) -> None:
    """The test run hashes passwords with the fast hasher (the app servers of the e2e tests inherit it).

    Set here, under pytest only: benchmarks that import the test helpers keep the real argon2.
    """
    from app.settings import get_settings

    os.environ.setdefault("PASSWORD_HASHER", "fast")
    get_settings.cache_clear()


# The end-to-end files run by a second site on another worker, about half of the e2e time (the
# accessibility sweeps, accounts, the Nu checker, the favourites and staff tables). Every other
# e2e file, and any new one, belongs to the first site, with the database restart test last.
SECOND_SITE_FILES = frozenset(
    f"tests/e2e/{name}.py"
    for name in (
        "test_accessibility",
        "test_accounts",
        "test_city_filters",
        "test_favourites",
        "test_html_validity",
        "test_origins",
        "test_session_digest",
        "test_staff_catalogues",
        "test_staff_users",
    )
)
# The unit holding tests/e2e/test_zz_database_restart.py: its tests run in file order on one
# worker, before the restart, so they need not hold the cluster "in use".
RESTART_UNIT = "e2e"


def xdist_scope(nodeid: str) -> str:
    """The unit of work a test belongs to under pytest-xdist: tests that share an expensive session
    server run on one worker, so that it starts once; every other test is a unit of its own.

    - ``firebase``: the tests named for Firebase, which use its Auth emulator (about 20 s to start),
      the end-to-end ones with the Firebase app server included;
    - ``e2e`` and ``e2e-2``: the other end-to-end tests, split in two halves
      (:data:`SECOND_SITE_FILES`) so that two workers each build and drive a site of their own at
      the same time; the database restart test runs last in ``e2e``, in file order.
    """
    if "firebase" in nodeid.lower():
        return "firebase"
    if nodeid.startswith("tests/e2e/"):
        return "e2e-2" if nodeid.split("::", 1)[0] in SECOND_SITE_FILES else RESTART_UNIT
    return nodeid


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` (pytest.ini) hands out the units of :func:`xdist_scope`, biggest first.

    pytest-xdist's own loadgroup reads ``xdist_group`` marks by renaming node ids, which pytest 9
    no longer allows; its scope scheduler with this grouping does the same job.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedServerScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return SharedServerScheduling(config, log)


# tests/e2e/test_zz_database_restart.py stops the PostgreSQL cluster that every test on this
# machine shares. Every other test holds it "in use" (a shared lock) while it runs, and the
# restart waits until it has the cluster to itself; a gate taken first by the restart stops new
# tests from starting meanwhile, so it is not starved. One pair of files per machine: runs of
# other checkouts are protected too.
CLUSTER_LOCK = Path(tempfile.gettempdir()) / "tests-postgresql-cluster.lock"
CLUSTER_GATE = Path(tempfile.gettempdir()) / "tests-postgresql-cluster.gate"


@contextmanager
def _flocked(path: Path, operation: int) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, operation)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def postgresql_cluster_in_use() -> Iterator[None]:
    """Keep the shared PostgreSQL cluster from being stopped by the restart test meanwhile."""
    with _flocked(CLUSTER_GATE, fcntl.LOCK_SH):
        pass
    with _flocked(CLUSTER_LOCK, fcntl.LOCK_SH):
        yield


@contextmanager
def postgresql_cluster_to_itself() -> Iterator[None]:
    """Wait until no other test uses the shared PostgreSQL cluster, and keep them waiting meanwhile."""
    with _flocked(CLUSTER_GATE, fcntl.LOCK_EX), _flocked(CLUSTER_LOCK, fcntl.LOCK_EX):
        yield


@pytest.fixture(autouse=True)
def _postgresql_cluster_stays_up(request) -> Iterator[None]:
    """Every test but those of the restart test's unit (one worker, run in order) runs with the cluster "in use"."""
    if xdist_scope(request.node.nodeid) == RESTART_UNIT:
        yield
        return
    with postgresql_cluster_in_use():
        yield


def pg_server_url() -> str:
    """The SQLAlchemy URL of the PostgreSQL server the tests may use."""
    return os.environ.get("TEST_DATABASE_URL", DEFAULT_PG)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def create_pg_database(prefix: str = "t", template: str | None = None) -> str:
    """Create an empty (or templated) database of a fresh name; its URL."""
    server = pg_server_url()
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(_libpq(server), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:  # pragma: no cover - environment failure
        pytest.fail(f"PostgreSQL is not reachable at {server}: {exc}")
    with admin:
        suffix = f" TEMPLATE {template}" if template else ""
        admin.execute(f'CREATE DATABASE "{name}"{suffix}')
    return make_url(server).set(database=name).render_as_string(hide_password=False)


def drop_pg_database(url: str) -> None:
    """Drop the database of ``url``, closing its connections."""
    with psycopg.connect(_libpq(pg_server_url()), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')


@contextmanager
def fresh_pg_database(prefix: str = "t", template: str | None = None) -> Iterator[str]:
    """Create an empty (or templated) database, yield its URL, drop it after."""
    url = create_pg_database(prefix, template)
    try:
        yield url
    finally:
        drop_pg_database(url)


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A migrated PostgreSQL database used as a template for per-test copies."""
    with postgresql_cluster_in_use():  # session set-up and tear-down run outside any test's hold
        url = create_pg_database("tmpl")
        migrate(url)
    yield make_url(url).database
    with postgresql_cluster_in_use():
        drop_pg_database(url)


def _drop_while_in_use(url: str) -> None:
    with postgresql_cluster_in_use():
        drop_pg_database(url)


# Dropping a database makes PostgreSQL checkpoint (about a second on a busy machine, waiting on
# the disk): a test's database is dropped on these threads while the next tests run, and
# concurrent drops share one checkpoint. The session waits for them at its end.
_dropper = ThreadPoolExecutor(max_workers=4, thread_name_prefix="drop-test-database")
_drops: list[Future] = []


@pytest.fixture(scope="session")
def _test_databases_dropped() -> Iterator[None]:
    """Wait, at the end of the session, until every test database has been dropped."""
    yield
    for drop in _drops:
        drop.result()


@pytest.fixture
def pg_url(pg_template: str, _test_databases_dropped) -> Iterator[str]:
    """A migrated PostgreSQL database of this test's own (dropped in the background after it)."""
    url = create_pg_database("t", template=pg_template)
    yield url
    _drops.append(_dropper.submit(_drop_while_in_use, url))


@pytest.fixture
def pg_session(pg_url: str) -> Iterator[Session]:
    """A session on this test's own PostgreSQL database."""
    engine = make_engine(pg_url)
    with Session(engine, expire_on_commit=False) as session:
        yield session
    engine.dispose()


@pytest.fixture
def real_argon2(monkeypatch) -> Iterator[None]:
    """This test hashes passwords as production does (argon2's recommended cost), not with the fast hasher."""
    from app.settings import get_settings

    monkeypatch.setenv("PASSWORD_HASHER", "argon2")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite file migrated once per session, copied by each test that needs one."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    migrate(f"sqlite:///{path}")
    return path


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path) -> str:
    """A migrated SQLite file of this test's own (the embedded default), copied from the template."""
    path = tmp_path / "test.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def session(sqlite_url: str) -> Iterator[Session]:
    """A session on this test's own migrated SQLite database."""
    engine = make_engine(sqlite_url)
    with Session(engine, expire_on_commit=False) as db:
        yield db
    engine.dispose()


@pytest.fixture
def app_database(pg_url: str, tmp_path, monkeypatch) -> Iterator[str]:
    """Point the app's own settings and engine at this test's PostgreSQL database.

    E-mail goes to an outbox under tmp_path. Yields the database URL.
    """
    from app.db import get_engine
    from app.settings import get_settings

    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setenv("OUTBOX_DIR", str(tmp_path / "outbox"))
    monkeypatch.setenv("SMTP_HOST", "")
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield pg_url
    get_engine().dispose()
    get_settings.cache_clear()
    get_engine.cache_clear()


@pytest.fixture
def http_engine(app_database: str, tmp_path, monkeypatch):
    """The app on this test's database, its public and private media on local disk under tmp_path."""
    from app.db import make_engine
    from app.settings import get_settings

    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()
    engine = make_engine(app_database)
    yield engine
    engine.dispose()
    get_settings.cache_clear()


@pytest.fixture
def http_db(http_engine):
    """A session on :func:`http_engine`'s database."""
    from sqlmodel import Session

    with Session(http_engine, expire_on_commit=False) as session:
        yield session


@pytest.fixture
def http_client(http_engine):
    """The app's plain HTTP routes and middleware (app.web.api.build_api), in process, on :func:`http_engine`."""
    from starlette.testclient import TestClient

    from app.app import app as reflex_app
    from app.web.api import build_api

    with TestClient(build_api(reflex_app), base_url="http://localhost") as test_client:
        yield test_client


@pytest.fixture(scope="session")
def smtp_server():
    """A real SMTP server on loopback for the whole run: yields (port, mailbox)."""
    from tests.mailbox import start_smtp

    controller, mailbox = start_smtp()
    yield controller.port, mailbox
    controller.stop()
