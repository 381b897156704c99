"""Listing statistics on both databases: views and contact clicks counted once per visitor per day,
never for the owner or staff, exact under concurrency; the 7/30-day totals and the owner's daily series;
the public detail page counting through its handlers without ever failing because of it, and its
document counting through POST /contar before the app runs."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta

import pytest
from reflex.istate.data import SessionData
from reflex_base.constants import RouteVar
from sqlmodel import Session, select
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.core.errors import InvalidInputError, NotFoundError
from app.db import get_engine
from app.identity.sessions import SESSION_COOKIE
from app.models import ListingDailyStats, ProfileId, User
from app.routes import COUNT_HIT
from app.services import listings, stats
from app.services.users import create_user
from app.states import public as public_state
from app.states.public import DirectoryState
from app.web.api import build_api
from tests.abuse import use_storage
from tests.factories import actor_of, claiming_staff, make_listing, make_owner, open_session
from tests.handlers import client_states, invoke
from tests.waits import wait_for_counts

TODAY = date(2026, 11, 21)


@pytest.fixture
def db(db_on_both: Session, monkeypatch) -> Session:
    """SQLite, then PostgreSQL, with empty counters in memory."""
    use_storage(monkeypatch, "memory")
    return db_on_both


def _user(db: Session, email: str, profile: ProfileId) -> User:
    public = create_user(session=db, data={"email": email, "display_name": "Alguien", "profile_uid": profile.value})
    return db.get(User, public.uid)


def _record(listing_uid: str, kind: str = stats.VIEW, visitor: str = "visitante-1", actor=None, today=TODAY):
    """One count through a session of its own, as each request would."""
    with Session(get_engine(), expire_on_commit=False) as session:
        return stats.record(
            session=session, listing_uid=listing_uid, kind=kind, visitor=visitor, actor=actor, today=today
        )


def _rows(listing_uid: str) -> dict[date, tuple[int, int, int]]:
    with Session(get_engine()) as session:
        rows = session.exec(select(ListingDailyStats).where(ListingDailyStats.listing_uid == listing_uid)).all()
        return {row.day: (row.views, row.whatsapp_clicks, row.call_clicks) for row in rows}


def _add_day(db: Session, listing_uid: str, day: date, views: int = 0, whatsapp: int = 0, call: int = 0) -> None:
    db.add(ListingDailyStats(listing_uid=listing_uid, day=day, views=views, whatsapp_clicks=whatsapp, call_clicks=call))
    db.commit()


# --- recording ------------------------------------------------------------------------------


@pytest.mark.parametrize("counters", ["memory", "redis"])
def test_a_view_counts_once_per_visitor_per_day(db, monkeypatch, counters):
    use_storage(monkeypatch, counters)
    listing = make_listing(db, make_owner(db, "duena@example.cl"))
    assert _record(listing.uid) is True
    assert _record(listing.uid) is False  # same visitor, same day
    assert _record(listing.uid, visitor="visitante-2") is True
    assert _record(listing.uid, today=TODAY + timedelta(days=1)) is True  # next day
    assert _rows(listing.uid) == {TODAY: (2, 0, 0), TODAY + timedelta(days=1): (1, 0, 0)}


def test_the_owner_and_staff_are_never_counted(db):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    admin = _user(db, "admin@example.cl", ProfileId.ADMINISTRADOR)
    secretary = _user(db, "secre@example.cl", ProfileId.SECRETARIA)
    for viewer in (owner, admin, secretary):
        for kind in stats.KIND_COLUMNS:
            assert _record(listing.uid, kind=kind, visitor=f"de-{viewer.uid}", actor=actor_of(viewer)) is False
    assert _rows(listing.uid) == {}
    # Signed-in visitors who are neither count like anyone else.
    client = _user(db, "cliente@example.cl", ProfileId.CLIENTE)
    other_advertiser = make_owner(db, "otra@example.cl")
    assert _record(listing.uid, visitor="a", actor=actor_of(client)) is True
    assert _record(listing.uid, visitor="b", actor=actor_of(other_advertiser)) is True
    # A claimed staff profile is not believed: the database says who is staff.
    assert _record(listing.uid, visitor="c", actor=claiming_staff(client.uid)) is True
    assert _rows(listing.uid) == {TODAY: (3, 0, 0)}


def test_only_published_listings_are_counted(db):
    owner = make_owner(db, "duena@example.cl")
    for status in ("borrador", "pendiente", "rechazada", "pausada", "expirada"):
        hidden = make_listing(db, owner, status=status)
        assert _record(hidden.uid) is False
        assert _rows(hidden.uid) == {}
    assert _record("no-existe") is False


def test_each_kind_counts_in_its_own_column_once_per_visitor(db):
    listing = make_listing(db, make_owner(db, "duena@example.cl"))
    for kind in (stats.VIEW, stats.WHATSAPP, stats.CALL, stats.WHATSAPP, stats.CALL):
        _record(listing.uid, kind=kind)
    _record(listing.uid, kind=stats.CALL, visitor="visitante-2")
    assert _rows(listing.uid) == {TODAY: (1, 1, 2)}
    with pytest.raises(InvalidInputError):
        _record(listing.uid, kind="like")


def test_concurrent_counts_from_distinct_visitors_add_up_exactly(db):
    listing = make_listing(db, make_owner(db, "duena@example.cl"))
    visitors = 40
    with ThreadPoolExecutor(max_workers=8) as pool:
        views = list(pool.map(lambda i: _record(listing.uid, visitor=f"v{i}"), range(visitors)))
        clicks = list(pool.map(lambda i: _record(listing.uid, kind=stats.WHATSAPP, visitor=f"v{i}"), range(visitors)))
        # One visitor pressing again and again at once still counts once.
        again = list(pool.map(lambda _: _record(listing.uid, kind=stats.CALL, visitor="insistente"), range(16)))
    assert views == clicks == [True] * visitors
    assert sorted(again) == [False] * 15 + [True]
    assert _rows(listing.uid) == {TODAY: (visitors, visitors, 1)}


# --- reading --------------------------------------------------------------------------------


def test_totals_cover_the_last_7_and_30_days_including_today(db):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    quiet = make_listing(db, owner, name="Sin visitas")
    _add_day(db, listing.uid, TODAY, views=1, whatsapp=1)
    _add_day(db, listing.uid, TODAY - timedelta(days=6), views=2, call=1)
    _add_day(db, listing.uid, TODAY - timedelta(days=7), views=4)
    _add_day(db, listing.uid, TODAY - timedelta(days=29), views=8, whatsapp=1, call=1)
    _add_day(db, listing.uid, TODAY - timedelta(days=30), views=16, whatsapp=5)
    _add_day(db, listing.uid, TODAY + timedelta(days=1), views=32)  # not yet (a clock ahead elsewhere)
    totals = stats.totals_for(session=db, listing_uids=[listing.uid, quiet.uid], today=TODAY)
    assert totals == {
        listing.uid: stats.StatTotals(views_7=3, views_30=15, clicks_7=2, clicks_30=4),
        quiet.uid: stats.StatTotals(views_7=0, views_30=0, clicks_7=0, clicks_30=0),
    }
    assert stats.totals_for(session=db, listing_uids=[], today=TODAY) == {}


def test_the_daily_series_is_zero_filled_oldest_first_and_only_for_the_owner(db):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    _add_day(db, listing.uid, date(2026, 11, 30), views=3, whatsapp=1, call=1)
    _add_day(db, listing.uid, date(2026, 12, 2), views=1)
    _add_day(db, listing.uid, date(2026, 11, 27), views=9)  # before the window
    series = stats.daily_series(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, today=date(2026, 12, 3), days=5
    )
    assert [(d.day, d.views, d.clicks) for d in series] == [
        ("29/11", 0, 0),
        ("30/11", 3, 2),
        ("01/12", 0, 0),
        ("02/12", 1, 0),
        ("03/12", 0, 0),
    ]
    assert len(stats.daily_series(session=db, owner_uid=owner.uid, listing_uid=listing.uid, today=TODAY)) == 30
    stranger = make_owner(db, "otra@example.cl")
    for owner_uid, uid in ((stranger.uid, listing.uid), (owner.uid, "no-existe")):
        with pytest.raises(NotFoundError) as refused:
            stats.daily_series(session=db, owner_uid=owner_uid, listing_uid=uid, today=TODAY)
        assert refused.value.message == "No encontramos esa publicación entre las tuyas."


# --- the public detail page -----------------------------------------------------------------


def _detail_page(listing, token: str = "", address: str = "203.0.113.7") -> DirectoryState:
    """A new browser tab at the listing's detail URL, from ``address``, holding session ``token``."""
    state, _ = client_states(DirectoryState, token)
    path = listings.listing_path(
        section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
    )
    root = state._get_root_state()
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path, RouteVar.QUERY: {}}, {})
    state.rx_router_session = SessionData(client_ip=address)
    return state


def _open(state: DirectoryState) -> None:
    invoke(state, "load")
    wait_for_counts()
    assert state.view == "detail"


def _today_counts(listing_uid: str) -> tuple[int, int, int]:
    return _rows(listing_uid).get(listings.clock().today, (0, 0, 0))


def test_the_detail_page_counts_visitors_but_not_the_owner_or_staff(db):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    admin = _user(db, "admin@example.cl", ProfileId.ADMINISTRADOR)
    for user in (owner, admin):
        _open(_detail_page(listing, open_session(db, user.uid), address="198.51.100.1"))
    assert _today_counts(listing.uid) == (0, 0, 0)
    visitor = _detail_page(listing)
    _open(visitor)
    _open(_detail_page(listing))  # the same visitor again (a reload, a new tab)
    assert _today_counts(listing.uid) == (1, 0, 0)
    for handler in ("count_whatsapp", "count_call", "count_whatsapp"):
        invoke(visitor, handler)
    wait_for_counts()
    assert _today_counts(listing.uid) == (1, 1, 1)
    _open(_detail_page(listing, address="2800:150:1:2::1"))
    assert _today_counts(listing.uid) == (2, 1, 1)


def test_a_batch_counts_each_hit_as_one_count_would(db):
    owner = make_owner(db, "duena@example.cl")
    listing, other = make_listing(db, owner), make_listing(db, owner, name="Otra")
    admin = actor_of(_user(db, "admin@example.cl", ProfileId.ADMINISTRADOR))
    hits = [
        stats.Hit(listing.uid, stats.VIEW, "visitante-1"),
        stats.Hit(listing.uid, stats.VIEW, "visitante-1"),  # the same visitor again: once a day
        stats.Hit(listing.uid, stats.VIEW, "visitante-2"),
        stats.Hit(listing.uid, stats.CALL, "visitante-2"),
        stats.Hit(listing.uid, stats.VIEW, "dueña", actor_of(owner)),
        stats.Hit(listing.uid, stats.VIEW, "admin", admin),
        stats.Hit(other.uid, stats.WHATSAPP, "visitante-1"),
        stats.Hit("no-existe", stats.VIEW, "visitante-3"),
        stats.Hit(listing.uid, "otra-cosa", "visitante-3"),
    ]
    with Session(get_engine(), expire_on_commit=False) as session:
        assert stats.record_many(session=session, hits=hits, today=TODAY) == 4
    assert _rows(listing.uid) == {TODAY: (2, 0, 1)} and _rows(other.uid) == {TODAY: (0, 1, 0)}


def test_a_click_counts_only_the_listing_the_tab_shows(db):
    listing = make_listing(db, make_owner(db, "duena@example.cl"))
    state, _ = client_states(DirectoryState)  # no detail loaded: nothing to count
    invoke(state, "count_whatsapp")
    invoke(state, "count_call")
    wait_for_counts()
    assert _today_counts(listing.uid) == (0, 0, 0)


def test_a_failing_count_neither_breaks_nor_blocks_the_detail_page(db, monkeypatch, caplog):
    listing = make_listing(db, make_owner(db, "duena@example.cl"))

    def broken(**_kwargs):
        raise RuntimeError("contadores caídos")

    monkeypatch.setattr(stats, "record_many", broken)
    state = _detail_page(listing)
    with caplog.at_level(logging.WARNING, logger=public_state.__name__):
        _open(state)
        invoke(state, "count_call")
        wait_for_counts()
    assert state.detail is not None and state.detail.uid == listing.uid
    messages = [record.getMessage() for record in caplog.records]
    assert messages == ["listing counts dropped: 1 (RuntimeError)"] * 2  # the view's batch, then the click's
    assert _today_counts(listing.uid) == (0, 0, 0)


# --- the detail document's own counts (POST /contar, sent by assets/site.js) ---------------------


@pytest.fixture
def client(db) -> TestClient:
    with TestClient(build_api(reflex_app), base_url="http://localhost") as test_client:
        yield test_client


def _post_count(client: TestClient, path: str, kind: str = stats.VIEW, origin: str = "http://localhost", **cookies):
    client.cookies.clear()
    client.cookies.update(cookies)
    return client.post(COUNT_HIT, data={"ruta": path, "tipo": kind}, headers={"Origin": origin})


def _path(listing) -> str:
    return listings.listing_path(
        section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
    )


def test_a_detail_document_counts_its_view_and_clicks_as_the_app_does(db, client):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    path = _path(listing)
    for kind in (stats.VIEW, stats.VIEW, stats.WHATSAPP, stats.CALL):  # the same visitor: once a day each
        response = _post_count(client, path, kind)
        assert response.status_code == 204 and response.headers["cache-control"] == "no-store"
    _post_count(client, path, stats.VIEW, **{SESSION_COOKIE: open_session(db, owner.uid)})  # the owner: never
    wait_for_counts()
    assert _today_counts(listing.uid) == (1, 1, 1)
    # The app's own count of the same visitor's view (the page's hydrate) is the same one.
    _open(_detail_page(listing, address="testclient"))
    assert _today_counts(listing.uid) == (1, 1, 1)


def test_the_count_route_counts_only_details_and_refuses_bad_input(db, client):
    listing = make_listing(db, make_owner(db, "duena@example.cl"))
    city = f"/escorts/{listing.city_slug}"
    assert _post_count(client, city).status_code == 204  # no detail: nothing to count
    assert _post_count(client, _path(listing) + "-x").status_code == 204
    assert _post_count(client, _path(listing), origin="https://otro.example").status_code == 403
    for path, kind in ((_path(listing), "otra-cosa"), ("escorts", stats.VIEW), ("", stats.VIEW)):
        refused = _post_count(client, path, kind)
        assert refused.status_code == 400 and refused.text == "Solicitud no válida."
    as_json = client.post(COUNT_HIT, json={"ruta": _path(listing)}, headers={"Origin": "http://localhost"})
    assert as_json.status_code == 415
    assert (
        client.post(
            COUNT_HIT,
            content=b"ruta=" + b"a" * 4096,
            headers={"Origin": "http://localhost", "Content-Type": "application/x-www-form-urlencoded"},
        ).status_code
        == 400
    )
    assert client.get(COUNT_HIT).status_code in (404, 405)
    wait_for_counts()
    assert _today_counts(listing.uid) == (0, 0, 0)
