"""End-to-end fixtures: the app built and served in production mode against a
fresh PostgreSQL database with known listings, and Debian's chromium driven by
Playwright. If the build or the server fails, the tests fail with its log.

The production frontend is exported once for its sources (tests/frontend_export.py), never into
the ``.web`` that a running instance of this checkout serves; each server runs the image's command
(scripts/serve.py) on a copy of it in a folder of its own, and keeps tab state in a database of
this test process's private Redis server (tests/redis_server.py). Under pytest-xdist the tests of
each site run on one worker (``xdist_scope`` in tests/conftest.py), so each site starts once: the
e2e tests in two halves, each against a site of its own on its worker, and the Firebase site.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
import redis
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from sqlmodel import Session

from app.db import make_engine, migrate
from app.models import Listing, ListingReview, Section, utc_now
from app.seed import demo_photos
from app.services import page_cache
from app.services.abuse import REDIS_KEY_PREFIX
from app.services.listings import clock
from app.storage.local import LocalStorage, PrivateLocalStorage
from tests.browsing import moving_context
from tests.conftest import fresh_pg_database
from tests.e2e.server_log import SEEDED, log_problems, record_typed_secrets, secrets_of_mail, typed
from tests.factories import make_listing, make_owner, processed_clip
from tests.firebase_emulator import FIREBASE_PROJECT
from tests.frontend_export import ExportError, exported_client
from tests.invariants import assert_every_listing_in_review_is_queued
from tests.mailbox import Mailbox
from tests.ports import free_port
from tests.processes import stop_process_group
from tests.redis_server import FIREBASE_SITE_DB, SITE_DB, empty_redis, redis_url
from tests.video_samples import h264_mp4

PROJECT = Path(__file__).resolve().parents[2]
# The frontend export and the tests' app servers' copies of it (one folder per server), apart
# from the checkout's own .web.
BUILD_ROOT = PROJECT / ".build"
# The e2e tests' browser: Debian's chromium-headless-shell, Chromium's headless shell (what Playwright
# itself runs for headless tests). The e2e tests took 142 s instead of 200 s with the full browser
# (docs/performance.md).
CHROMIUM = "/usr/bin/chromium-headless-shell"
# Debian's full chromium: the benchmarks' browser (their figures were all measured with it).
FULL_CHROMIUM = "/usr/bin/chromium"
# The pytest-xdist worker of this process: two workers may each serve a site (see xdist_scope),
# each from a copy of the frontend export of its own.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
# How much of its app server's log a failed test's report shows (characters from the end).
SERVER_LOG_TAIL = 6000
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
BUILD_TIMEOUT = 600
# Assertions wait up to this long (Playwright's default is 5 s): a shared 2-core machine
# under load can take longer to hydrate a page; a real failure still fails, only later.
expect.set_options(timeout=15_000)
# Reflex keeps tab state in a database of this process's private Redis (emptied first), so tests
# can scan everything it stored; the Firebase server has a database of its own (two apps sharing
# one would share their job leases).
# Backend worker processes of each server (WEB_WORKERS): two, so the suite runs against several.
E2E_WORKERS = int(os.environ.get("E2E_WORKERS", "2"))
CITY = "temuco"
PAGED_CITY = "osorno"
PAGED_CITY_LISTINGS = 26  # more than one page of 24
# A city of its region's coast whose listings name communes of its area and one outside it (issue 33).
AREA_CITY = "vina-del-mar"
# name: commune (Isla de Pascua is of the city's region, 3,700 km off its area)
AREA_CITY_LISTINGS = {
    "Viñamarina": "Viña del Mar",
    "Conconina": "Concón",
    "Porteña": "Valparaíso",
    "Rapanui": "Isla de Pascua",
}


@dataclass
class Site:
    """The running app and the data it was started with."""

    url: str
    database_url: str
    redis_url: str
    log_path: Path
    names: dict[str, str]
    uids: dict[str, str]
    mailbox: Mailbox


def _seed(database_url: str, media_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Known listings in Temuco: one per filter-tab rule, plus hidden ones."""
    demo_photos(LocalStorage(media_dir))
    engine = make_engine(database_url)
    now = utc_now()
    today = clock(now).today
    old = now - timedelta(days=20)
    specs = {
        "base": ("Amanda", {"published_at": old}),
        "nueva": ("Bárbara", {"published_at": now - timedelta(days=1)}),
        "diamante": ("Catalina", {"tier": "diamante", "published_at": old, "photos": 3}),
        "ruby": ("Daniela", {"tier": "ruby", "published_at": old}),
        "xxx": ("Emilia", {"porn_actress": True, "published_at": old}),
        "pasada": (
            "Fernanda",
            {"visiting_from": today, "visiting_until": today + timedelta(days=2), "published_at": old},
        ),
        "ahora": ("Gabriela", {"available_until": now + timedelta(hours=3), "published_at": old}),
        "verificada": ("Isidora", {"verified": True, "published_at": old}),
        "curvy": ("Javiera", {"curvy": True, "published_at": old}),
        "madura": ("Karla", {"age": 42, "published_at": old}),
        "video": ("Luciana", {"published_at": old}),
        "trans": ("Maite", {"section": Section.TRANS.value, "published_at": old}),
    }
    names, uids = {}, {}
    with Session(engine, expire_on_commit=False) as session:
        owner = make_owner(session, "duena@example.cl")
        banned = make_owner(session, "baneada@example.cl", ban=True)
        for key, (name, fields) in specs.items():
            fields.setdefault("tier", "chicas-del-dia")
            listing = make_listing(session, owner, name=name, city=CITY, whatsapp="+56 9 8765 4321", **fields)
            names[key], uids[key] = name, listing.uid
        hidden = make_listing(session, owner, name="Oculta", city=CITY, status="pendiente")
        session.add(ListingReview(listing_uid=hidden.uid, created_at=now))  # in review, so in the queue
        make_listing(session, banned, name="Vetada", city=CITY)
        names["hidden"], uids["hidden"] = "Oculta", hidden.uid
        # The Video tab's listing plays a real clip (its MP4 and poster made by the worker's service), approved.
        samples = media_dir.parent / "samples"
        samples.mkdir(exist_ok=True)
        processed_clip(
            session,
            uids["video"],
            storage=LocalStorage(media_dir),
            private_storage=PrivateLocalStorage(media_dir.parent / "private"),
            source=h264_mp4(samples, size="640x360", seconds=2),
        )
        names["vetada"] = "Vetada"
        for i in range(PAGED_CITY_LISTINGS):
            make_listing(
                session, owner, name=f"Osornina {i:02d}", city=PAGED_CITY, published_at=now - timedelta(hours=i)
            )
        for name, commune in AREA_CITY_LISTINGS.items():
            make_listing(session, owner, name=name, city=AREA_CITY, commune=commune, tier="chicas-del-dia")
        session.get(Listing, uids["diamante"]).description = "Descripción de prueba <b>sin HTML</b>."
        session.commit()
        assert_every_listing_in_review_is_queued(session)
    engine.dispose()
    return names, uids


def _app_env(**settings: str) -> dict[str, str]:
    """The environment of an app server: this one's, plus ``settings``.

    Every line it logs is JSON, at every level: the sites' logs are read back for secrets (tests/e2e/server_log.py).
    """
    return {
        **os.environ,
        "ENVIRONMENT": "test",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "DEBUG",
        "REFLEX_USE_NPM": "1",
        "REFLEX_TELEMETRY_ENABLED": "false",
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        **settings,
    }


def files_apart(folder: Path) -> dict[str, str]:
    """The settings that keep a server's files under ``folder``: photos, private files, uploads, outbox."""
    return {
        "MEDIA_DIR": str(folder / "media"),
        "PRIVATE_MEDIA_DIR": str(folder / "private"),
        "REFLEX_UPLOADED_FILES_DIR": str(folder / "uploads"),
        "OUTBOX_DIR": str(folder / "outbox"),
    }


@contextmanager
def _serve(
    project: Path,
    port: int,
    env: dict[str, str],
    log_path: Path,
    *,
    workers: int,
    web_dir: Path,
    scheme: str = "http",
) -> Iterator[str]:
    """Serve the app of ``project`` on ``port`` with ``workers``, from its exported frontend copied into ``web_dir``.

    Yields its URL. The server is the image's command (scripts/serve.py): the production backend
    with the exported frontend mounted. ``web_dir`` (REFLEX_WEB_WORKDIR) must be this server's own:
    the server rewrites the backend address in its copy of the build. ``scheme`` is SITE_URL's: with
    "https" the server runs as behind an https proxy while the tests still reach it over http.
    """
    try:
        client = exported_client(project, env)
    except ExportError as exc:
        pytest.fail(str(exc))
    served = web_dir / "build" / "client"
    shutil.rmtree(web_dir, ignore_errors=True)
    shutil.copytree(client, served)
    url = f"http://localhost:{port}"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, str(project / "scripts" / "serve.py")],
            cwd=project,
            env={
                **env,
                "SITE_URL": f"{scheme}://localhost:{port}",
                "PORT": str(port),
                "REFLEX_WEB_WORKDIR": str(web_dir),
            },
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            _wait_until_up(url, process, log_path)
            _check_workers(process.pid, port, workers, log_path)
            yield url
        finally:
            stop_process_group(process)


@pytest.fixture(scope="session")
def site(tmp_path_factory, smtp_server) -> Site:
    """Serve the app (local accounts) in production mode on a free port."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test.sh installs Debian's chromium-headless-shell")
    tmp = tmp_path_factory.mktemp("e2e")
    site_redis = _empty_site_redis(SITE_DB)
    with fresh_pg_database("e2e") as database_url:
        migrate(database_url)
        names, uids = _seed(database_url, tmp / "media")
        env = _app_env(
            DATABASE_URL=database_url,
            **files_apart(tmp),
            SMTP_HOST="127.0.0.1",
            SMTP_PORT=str(smtp_server[0]),
            SMTP_STARTTLS="false",
            IDENTITY_PROVIDER="local",
            REDIS_URL=site_redis,
            # Two backend workers sharing Redis and PostgreSQL: a tab's websocket, its uploads and
            # the jobs may each land on either worker.
            WEB_WORKERS=str(E2E_WORKERS),
        )
        log_path = tmp / "server.log"
        with _serve(
            PROJECT, free_port(), env, log_path, workers=E2E_WORKERS, web_dir=BUILD_ROOT / f"e2e-site-{WORKER}"
        ) as url:
            yield Site(
                url=url,
                database_url=database_url,
                redis_url=site_redis,
                log_path=log_path,
                names=names,
                uids=uids,
                mailbox=smtp_server[1],
            )
        _assert_clean_log(log_path, secrets_of_mail(smtp_server[1].messages))


def _assert_clean_log(log_path: Path, mailed: set[str]) -> None:
    """A stopped site's whole log, at DEBUG, is JSON lines holding no secret of the tests that drove it."""
    problems = log_problems(log_path.read_text(errors="replace"), {*SEEDED, *typed, *mailed})
    if problems:
        pytest.fail(f"the site's log ({log_path}) is not clean:\n" + "\n".join(problems[:30]), pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def typed_secrets_recorded() -> Iterator[None]:
    """Every secret the e2e tests type into a page is remembered for the check of the sites' logs."""
    with record_typed_secrets():
        yield


@dataclass
class FirebaseSite:
    """A second app server whose accounts live in the Firebase Auth emulator."""

    url: str
    database_url: str
    emulator: str
    log_path: Path


@pytest.fixture(scope="session")
def firebase_site(firebase_emulator, tmp_path_factory) -> FirebaseSite:
    """The app with IDENTITY_PROVIDER=firebase against the Auth emulator (the same frontend export)."""
    tmp = tmp_path_factory.mktemp("e2e-firebase")
    site_redis = _empty_site_redis(FIREBASE_SITE_DB)
    with fresh_pg_database("e2efb") as database_url:
        migrate(database_url)
        env = _app_env(
            DATABASE_URL=database_url,
            **files_apart(tmp),
            IDENTITY_PROVIDER="firebase",
            FIREBASE_PROJECT_ID=FIREBASE_PROJECT,
            FIREBASE_API_KEY="fake-api-key",
            FIREBASE_AUTH_EMULATOR_HOST=firebase_emulator,
            REDIS_URL=site_redis,
            WEB_WORKERS=str(E2E_WORKERS),
        )
        web_dir = BUILD_ROOT / "e2e-firebase"
        log_path = tmp / "server.log"
        with _serve(PROJECT, free_port(), env, log_path, workers=E2E_WORKERS, web_dir=web_dir) as url:
            yield FirebaseSite(url=url, database_url=database_url, emulator=firebase_emulator, log_path=log_path)
        _assert_clean_log(log_path, set())


@pytest.fixture(scope="module")
def https_site(tmp_path_factory) -> Iterator[str]:
    """The app with an https SITE_URL (one worker, memory state, an empty database); its http URL.

    As behind an https proxy, but reached over http at localhost, which Chromium counts as a
    secure context: cookies marked Secure are stored and sent there as on https.
    """
    tmp = tmp_path_factory.mktemp("e2e-https")
    with fresh_pg_database("e2ehttps") as database_url:
        migrate(database_url)
        env = _app_env(DATABASE_URL=database_url, **files_apart(tmp), REDIS_URL="", WEB_WORKERS="1")
        web_dir = BUILD_ROOT / f"e2e-https-{WORKER}"
        with _serve(PROJECT, free_port(), env, tmp / "server.log", workers=1, web_dir=web_dir, scheme="https") as url:
            yield url


def _empty_site_redis(db: int) -> str:
    """Database ``db`` of this process's private Redis, emptied, for one app server; its URL."""
    try:
        return empty_redis(db)
    except (RuntimeError, redis.RedisError) as exc:
        pytest.fail(f"no Redis for the app server (scripts/test.sh installs redis-server): {exc}")


def _listening_inodes(port: int) -> set[str]:
    """Inodes of the sockets listening on ``port`` (IPv4 and IPv6)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(fields[9])
    return inodes


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def _serving_workers(supervisor: int, port: int) -> tuple[list[int], list[int]]:
    """(worker processes of Granian's supervisor, those of them holding ``port``'s listening socket)."""
    command = Path(f"/proc/{supervisor}/cmdline").read_bytes()
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent == supervisor and (entry / "cmdline").read_bytes() == command:
                children.append(int(entry.name))
    listening = _listening_inodes(port)
    return children, [pid for pid in children if _socket_inodes(pid) & listening]


def _check_workers(supervisor: int, port: int, expected: int, log_path: Path) -> None:
    """Granian's supervisor (the scripts/serve.py process) has ``expected`` worker children, each serving ``port``.

    A worker is forked from the supervisor, so it has the supervisor's command line;
    serving means holding the listening socket. The first worker may answer before the others
    have started (a busy machine): wait for them, up to the build's timeout.
    """
    deadline = time.monotonic() + BUILD_TIMEOUT
    while True:
        children, serving = _serving_workers(supervisor, port)
        if len(serving) == expected or time.monotonic() > deadline or len(serving) > expected:
            break
        time.sleep(0.5)
    if len(serving) != expected:
        pytest.fail(
            f"expected {expected} backend workers serving port {port}, found {len(serving)} "
            f"(worker processes {sorted(children)}):\n{log_path.read_text()[-3000:]}"
        )


def _wait_until_up(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + BUILD_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the app exited while starting:\n{log_path.read_text()[-6000:]}")
        try:
            health = httpx.get(f"{url}/healthz", timeout=2)
            page = httpx.get(f"{url}/escorts", timeout=2, follow_redirects=True)
            if health.status_code == 200 and page.status_code == 200 and "<html" in page.text:
                return
        except httpx.HTTPError:
            pass
        time.sleep(2)
    pytest.fail(f"the app did not start within {BUILD_TIMEOUT} s:\n{log_path.read_text()[-6000:]}")


@pytest.fixture
def db(site: Site) -> Iterator[Session]:
    """A session on the running site's database (for seeding through services)."""
    engine = make_engine(site.database_url)
    with Session(engine, expire_on_commit=False) as session:
        yield session
    engine.dispose()


@pytest.fixture(autouse=True)
def writes_reach_the_site_cache(monkeypatch) -> Iterator[None]:
    """Publish this process's writes to the sites' page caches, as the sites' own workers do.

    Tests seed and change the sites' databases from this process, as another worker of the
    site would. The write listener of app.services.page_cache sees them here; like a worker
    with the site's REDIS_URL, each change is then counted in the sites' Redis, so the pages
    they serve show it at once (and not after PAGE_CACHE_SECONDS).
    """
    bump = page_cache.versions.bump
    clients = [redis.Redis.from_url(redis_url(db)) for db in (SITE_DB, FIREBASE_SITE_DB)]

    def bump_everywhere(database: str) -> None:
        bump(database)
        for client in clients:
            client.incr(page_cache.REDIS_KEY.format(database=database))

    monkeypatch.setattr(page_cache.versions, "bump", bump_everywhere)
    yield
    for client in clients:
        client.close()


@pytest.fixture
def no_earlier_attempts(site: Site) -> None:
    """Every test browses from 127.0.0.1: start without the failed sign-ins counted by the ones before."""
    store = redis.Redis.from_url(site.redis_url)
    for key in store.scan_iter(f"{REDIS_KEY_PREFIX}*"):
        store.delete(key)


class _Chromium:
    """Playwright and its chromium, stopped as soon as this process has run its last e2e test.

    Playwright's synchronous API keeps its event loop set on the main thread while it runs: a
    later test of the same process (an xdist worker takes other tests after the e2e ones) could
    not call ``asyncio.run``.
    """

    def __init__(self) -> None:
        self._playwright = None
        self.browser: Browser | None = None

    def start(self) -> Browser:
        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        return self.browser

    def stop(self) -> None:
        if self._playwright is None:
            return
        self.browser.close()
        self._playwright.stop()
        self._playwright = self.browser = None


_CHROMIUM = _Chromium()


class MovingVisitors:
    """The browser, whose new contexts are visitors who move at once (tests.browsing.VISITOR_MOVES_AT_ONCE), unless
    made with ``idle=True``: a visitor who only looks (tests/e2e/test_first_screen.py)."""

    def __init__(self, browser: Browser) -> None:
        self._browser = browser

    def new_context(self, *, idle: bool = False, **options) -> BrowserContext:
        return self._browser.new_context(**options) if idle else moving_context(self._browser, **options)

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture
def browser() -> MovingVisitors:
    """This process's chromium: started by its first e2e test, and again by an e2e test that
    comes after other tests (a worker may run both halves' units, see ``xdist_scope``)."""
    return MovingVisitors(_CHROMIUM.browser or _CHROMIUM.start())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed e2e test's report ends with what its app server last wrote to its log."""
    report = yield
    if report.failed and call.when == "call":
        for name in ("site", "firebase_site"):
            server = item.funcargs.get(name)
            if server is not None and server.log_path.exists():
                tail = server.log_path.read_text(errors="replace")[-SERVER_LOG_TAIL:]
                report.sections.append((f"{name}: the end of its server log", tail))
    return report


@pytest.hookimpl(trylast=True)  # after the test's own fixtures (its browser context) are torn down
def pytest_runtest_teardown(item, nextitem) -> None:
    """After the last e2e test of this process, stop Playwright (see ``_Chromium``)."""
    if nextitem is None or nextitem.get_closest_marker("e2e") is None:
        _CHROMIUM.stop()


@pytest.fixture
def page(browser: MovingVisitors, site: Site) -> Page:
    """A fresh browser context (no cookies) on the site, in Spanish, desktop size."""
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    tab = context.new_page()
    yield tab
    typed.update(cookie["value"] for cookie in context.cookies() if len(cookie["value"]) >= 16)  # the session's
    context.close()


def accept_age(page: Page) -> None:
    """Confirm the 18+ notice, and wait until the app runs the page.

    Before the app has hydrated, the notice is the server's preview (app.web.preview), whose
    form reloads the page with the cookie set; either way the page then shows the app's own
    listings, once the preview has left.
    """
    page.get_by_role("button", name="Tengo 18 años o más, entrar").click()
    page.get_by_role("dialog").wait_for(state="detached")
    page.locator("#vista-previa").wait_for(state="detached")
