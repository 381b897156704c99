"""The cache of /escorts-ssg pages (app.services.page_cache) through the app's own HTTP routes:
a cached city page shows every change of a listing on it at the next request, whatever service made it
(publication, pause, take-down, an owner's ban, a tier reorder); writes the app cannot see are bounded by
the entry's age (on the cache's clock, never a sleep); the 18+ variants never mix; and with Redis a
change made by another worker drops this worker's pages."""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest
import redis
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from sqlmodel import Session, select
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import ProfileId, Tier
from app.services import my_listings, page_cache
from app.services.staff import catalogues
from app.services.staff import listings as staff_listings
from app.services.staff import users as staff_users
from app.settings import get_settings
from app.states.public import AGE_COOKIE
from app.web.api import build_api
from tests.factories import actor_of, make_account, make_listing
from tests.handlers import run_async
from tests.redis_server import empty_redis

pytestmark = pytest.mark.integration

CITY = "temuco"
NOTICE = 'class="age"'


class FakeClock:
    """The cache's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """An empty page cache on a clock the test moves."""
    fake = FakeClock()
    monkeypatch.setattr(page_cache, "pages", page_cache.PageCache(clock=fake))
    return fake


@pytest.fixture
def site(app_database, tmp_path, monkeypatch, clock):
    """The API on this test's database without Redis; an administrator, an owner and two listings in Temuco."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()
    local = LocalProvider(engine=get_engine())
    with Session(get_engine(), expire_on_commit=False) as session:
        people = {
            "admin": make_account(session, local, "admin@example.cl", profile=ProfileId.ADMINISTRADOR),
            "duena": make_account(session, local, "duena@example.cl", profile=ProfileId.PROFESOR),
        }
        shown = {
            name: make_listing(session, people["duena"], name=name, city=CITY, tier=tier)
            for name, tier in (("Antonia", "diamante"), ("Bernarda", "platino"))
        }
    with TestClient(build_api(reflex_app), base_url="http://localhost") as client:
        yield client, people, shown, local


def _city(client: TestClient, adult: bool = True) -> str:
    client.cookies.clear()
    if adult:
        client.cookies.set(AGE_COOKIE, "1")
    response = client.get(f"/escorts-ssg/{CITY}")
    assert response.status_code == 200
    return response.text


def _cached(client: TestClient, adult: bool = True) -> str:
    """The page twice: the second must come from the cache, and be the same."""
    first = _city(client, adult)
    hits = page_cache.pages.hits
    assert _city(client, adult) == first
    assert page_cache.pages.hits == hits + 1
    return first


def _raw_rename(database_url: str, old: str, new: str) -> None:
    """A write the app's engines never see (as psql would make it)."""
    libpq = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as connection:
        connection.execute("UPDATE publicacion SET display_name = %s WHERE display_name = %s", (new, old))


def test_a_newly_published_listing_shows_at_once(site):
    client, people, _, _ = site
    assert "Carolina" not in _cached(client)
    with Session(get_engine()) as session:
        make_listing(session, people["duena"], name="Carolina", city=CITY)
    assert "Carolina" in _city(client)


def test_a_paused_listing_leaves_at_once_and_comes_back_when_resumed(site):
    client, people, shown, _ = site
    assert "Antonia" in _cached(client)
    with Session(get_engine()) as session:
        my_listings.pause_listing(session=session, owner_uid=people["duena"].uid, uid=shown["Antonia"].uid)
    assert "Antonia" not in _cached(client)
    with Session(get_engine()) as session:
        my_listings.resume_listing(session=session, owner_uid=people["duena"].uid, uid=shown["Antonia"].uid)
    assert "Antonia" in _city(client)


def test_a_listing_taken_down_by_staff_leaves_at_once(site):
    client, people, shown, _ = site
    assert "Bernarda" in _cached(client)
    with Session(get_engine()) as session:
        staff_listings.unpublish_listing(
            session=session, actor=actor_of(people["admin"]), uid=shown["Bernarda"].uid, reason="Fotos ajenas."
        )
    assert "Bernarda" not in _city(client)


def test_a_ban_of_the_owner_hides_her_listings_at_once(site):
    client, people, _, local = site
    page = _cached(client)
    assert "Antonia" in page and "Bernarda" in page
    with Session(get_engine()) as session:
        staff_users.set_ban(
            session=session, provider=local, actor=actor_of(people["admin"]), user_uid=people["duena"].uid, banned=True
        )
    page = _city(client)
    assert "Antonia" not in page and "Bernarda" not in page


def test_a_tier_reorder_changes_the_order_at_once(site):
    client, people, _, _ = site
    page = _cached(client)
    assert page.index("Antonia") < page.index("Bernarda")  # diamante before platino
    with Session(get_engine()) as session:
        order = list(session.exec(select(Tier.uid, Tier.slug).order_by(Tier.display_order)))
        platino_first = [uid for uid, slug in order if slug == "platino"] + [u for u, s in order if s != "platino"]
        catalogues.reorder_tiers(session=session, actor=actor_of(people["admin"]), ordered_uids=platino_first)
    page = _city(client)
    assert page.index("Bernarda") < page.index("Antonia")


def test_a_write_the_app_cannot_see_is_stale_at_most_the_age_limit(site, app_database, clock):
    client, _, _, _ = site
    assert "Antonia" in _cached(client)
    _raw_rename(app_database, "Antonia", "Anabella")
    clock.now += page_cache.pages.max_age - 1
    assert "Antonia" in _city(client)  # still served from the cache: it was not told
    clock.now += 1
    page = _city(client)
    assert "Anabella" in page and "Antonia" not in page


@pytest.mark.parametrize("first_adult", [True, False])
def test_the_18_plus_variants_never_mix(site, first_adult):
    client, _, _, _ = site
    for adult in (first_adult, not first_adult, first_adult, not first_adult):
        page = _city(client, adult)
        assert (NOTICE in page) is (not adult)
        assert "Antonia" in page
    client.cookies.clear()
    client.cookies.set(AGE_COOKIE, "0")  # anything but "1" is a first visit
    assert NOTICE in client.get(f"/escorts-ssg/{CITY}").text
    for adult in (True, False):
        client.cookies.clear()
        if adult:
            client.cookies.set(AGE_COOKIE, "1")
        home = client.get("/escorts-ssg").text
        assert (NOTICE in home) is (not adult)


def test_with_redis_a_change_another_worker_made_drops_this_workers_pages(site, app_database, monkeypatch):
    client, _, _, _ = site
    url = empty_redis()
    shared = redis.Redis.from_url(url, socket_connect_timeout=5)
    monkeypatch.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    assert "Antonia" in _cached(client)
    # Another worker's commit: the row changes without this process's listener seeing it, and that
    # worker's listener bumps the shared version.
    _raw_rename(app_database, "Antonia", "Anabella")
    assert "Antonia" in _city(client)
    shared.incr(page_cache.REDIS_KEY.format(database=page_cache.engine_database(get_engine())))
    page = _city(client)
    assert "Anabella" in page and "Antonia" not in page


def test_with_redis_this_workers_writes_reach_the_shared_version(site, monkeypatch):
    _client, people, _, _ = site
    url = empty_redis()
    shared = redis.Redis.from_url(url, socket_connect_timeout=5)
    monkeypatch.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    key = page_cache.REDIS_KEY.format(database=page_cache.engine_database(get_engine()))
    with Session(get_engine()) as session:
        make_listing(session, people["duena"], name="Carolina", city=CITY)
    assert int(shared.get(key)) >= 1


def test_with_redis_one_event_reads_the_shared_version_once_and_sees_its_own_writes_at_once(monkeypatch):
    url = empty_redis()
    shared = redis.Redis.from_url(url, socket_connect_timeout=5)
    monkeypatch.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    database = "base-de-prueba"
    key = page_cache.REDIS_KEY.format(database=database)

    def gets() -> int:
        return shared.info("commandstats").get("cmdstat_get", {}).get("calls", 0)

    async def one_event():
        first = await page_cache.versions.current(database)
        shared.incr(key)  # another worker commits while this event renders
        again = await page_cache.versions.current(database)
        page_cache.versions.bump(database)  # this event's own write
        after_own_write = await page_cache.versions.current(database)
        return first, again, after_own_write

    before = gets()
    first, again, after_own_write = asyncio.run(one_event())
    assert gets() - before == 1
    assert again == first
    assert after_own_write != again
    # The next event (another task) reads Redis again and sees both workers' changes.
    later = asyncio.run(page_cache.versions.current(database))
    assert gets() - before == 2
    assert later not in (first, after_own_write)


def test_when_redis_is_unreachable_pages_are_rendered_fresh(site, monkeypatch, app_database):
    client, _, _, _ = site
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    get_settings.cache_clear()
    assert "Antonia" in _city(client)
    _raw_rename(app_database, "Antonia", "Anabella")
    assert "Anabella" in _city(client)
    assert len(page_cache.pages) == 0


def _concurrent(render, requests: int) -> list:
    """``requests`` concurrent cached() calls for one page, released once the first render has started."""
    engine = create_engine("sqlite://")

    async def scenario():
        tasks = [asyncio.ensure_future(page_cache.cached("page", engine, render.run)) for _ in range(requests)]
        while not render.calls:  # the first render is under way and every task has reached the cache
            await asyncio.sleep(0.01)
        render.release.set()
        return await asyncio.gather(*tasks, return_exceptions=True)

    return run_async(scenario())


class Render:
    """A render that holds until released; ``fail_first`` makes the first call raise."""

    def __init__(self, fail_first: bool = False) -> None:
        self.calls = 0
        self.fail_first = fail_first
        self.release = threading.Event()

    def run(self) -> str:
        self.calls += 1
        self.release.wait(30)
        if self.fail_first and self.calls == 1:
            raise RuntimeError("database down")
        return "the page"


@pytest.fixture
def no_redis(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()


def test_concurrent_requests_for_a_page_share_one_render(clock, no_redis):
    render = Render()
    assert _concurrent(render, 5) == ["the page"] * 5
    assert render.calls == 1


def test_when_the_shared_render_fails_the_others_render_their_own(clock, no_redis):
    render = Render(fail_first=True)
    first, *others = _concurrent(render, 3)
    assert isinstance(first, RuntimeError) and others == ["the page", "the page"]
    assert render.calls == 3


def test_the_cache_keeps_at_most_its_bound(clock):
    cache = page_cache.PageCache(max_entries=3, clock=clock)
    for i in range(5):
        cache.put(i, 1, f"page {i}")
    assert len(cache) == 3
    assert cache.get(0, 1) is None and cache.get(4, 1) == "page 4"
    assert cache.get(4, 2) is None  # another version


@pytest.mark.parametrize(
    ("statement", "table"),
    [
        ('UPDATE publicacion SET status="x"', "publicacion"),
        ("insert into publicacion_foto (a) values (1)", "publicacion_foto"),
        ('DELETE FROM "usuarios" WHERE uid = 1', "usuarios"),
        ("UPDATE public.categoria_profesor SET display_order=1", "categoria_profesor"),
        ("SELECT * FROM publicacion", None),
    ],
)
def test_written_table(statement, table):
    assert page_cache.written_table(statement) == table
