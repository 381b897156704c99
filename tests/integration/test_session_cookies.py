"""The session cookie: ticket exchange and sign-out over HTTP, the websocket handshake, the guarded check.

On PostgreSQL, through the app's own HTTP routes (Starlette's TestClient on
``app.web.api.build_api(reflex_app)``) and event handlers called as the Reflex backend
would, with the handshake headers a browser's websocket would bring.
"""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from reflex_base.constants import Endpoint, RouteVar
from sqlalchemy import update
from sqlmodel import select
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import get_engine
from app.identity import sessions
from app.identity.guards import HOME
from app.identity.jobs import purge_once
from app.identity.local import LocalProvider
from app.identity.sessions import DIGEST_COOKIE, SESSION_COOKIE
from app.models import ActionCode, ProfileId, SessionTicket, UserSession, utc_now
from app.services import accounts
from app.settings import get_settings
from app.states.advertiser.my_listings import MyListingsState
from app.states.areas import AreaState
from app.states.public import DirectoryState
from app.states.staff.overview import StaffOverviewState
from app.web.api import build_api
from app.web.cookies import EVENT_PATH
from tests.abuse import redirect_paths
from tests.factories import actor_of, check_session, make_account, make_staff, open_session
from tests.handlers import _CONNECTIONS, client_states, handshake_headers, invoke, script_of

PASSWORD = "archipielago-de-juan-fernandez"
SAME_ORIGIN = {"Origin": "http://testserver"}


@pytest.fixture
def advertiser(db):
    return make_account(
        db, LocalProvider(engine=get_engine()), "cookie@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD
    )


@pytest.fixture
def client(app_database):
    with TestClient(build_api(reflex_app), base_url="http://testserver") as http:
        yield http


def _ticket(db) -> str:
    signed = accounts.sign_in(
        session=db,
        provider=LocalProvider(engine=get_engine()),
        settings=get_settings(),
        email="cookie@correo.cl",
        password=PASSWORD,
        client_hash="c1",
    )
    return signed.ticket


def _open(client: TestClient, ticket: str, headers: dict | None = None):
    return client.post("/sesion", headers={"X-Ticket": ticket, **(SAME_ORIGIN if headers is None else headers)})


def test_the_websocket_path_is_reflexs():
    assert str(Endpoint.EVENT) == EVENT_PATH


def test_a_ticket_becomes_an_httponly_cookie_once(db, advertiser, client):
    ticket = _ticket(db)
    opened = _open(client, ticket)
    assert opened.status_code == 204
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    for attribute in ("HttpOnly", "Path=/", "SameSite=lax", f"Max-Age={30 * 24 * 3600}"):
        assert attribute.lower() in cookie.lower()
    assert "secure" not in cookie.lower()  # http site: a Secure cookie would never come back
    token = client.cookies[SESSION_COOKIE]
    assert check_session(db, token).actor.uid == advertiser.uid
    # Only the digest is stored; the ticket is gone.
    assert db.get(UserSession, sessions.digest(token)) is not None
    assert db.exec(select(SessionTicket)).all() == []
    # Single use.
    assert _open(client, ticket).status_code == 400


def test_the_cookie_is_secure_on_an_https_site(db, advertiser, app_database, monkeypatch):
    monkeypatch.setenv("SITE_URL", "https://escorts.example")
    get_settings.cache_clear()
    with TestClient(build_api(reflex_app), base_url="https://escorts.example") as http:
        opened = http.post("/sesion", headers={"X-Ticket": _ticket(db), "Origin": "https://escorts.example"})
    assert opened.status_code == 204
    assert "secure" in opened.headers["set-cookie"].lower()


def test_an_expired_or_invented_ticket_is_refused(db, advertiser, client):
    ticket = _ticket(db)
    db.execute(update(SessionTicket).values(expires_at=utc_now() - timedelta(seconds=1)))
    db.commit()
    refused = _open(client, ticket)
    assert refused.status_code == 400 and "Vuelve a ingresar" in refused.json()["error"]
    assert _open(client, "inventado").status_code == 400
    assert SESSION_COOKIE not in client.cookies


def test_another_origin_cannot_sign_a_browser_in_or_out(db, advertiser, client):
    ticket = _ticket(db)
    for headers in ({"Origin": "https://otro-sitio.example"}, {}, {**SAME_ORIGIN, "Sec-Fetch-Site": "cross-site"}):
        assert _open(client, ticket, headers).status_code == 403
    assert _open(client, ticket).status_code == 204  # the refusals did not use the ticket up
    token = client.cookies[SESSION_COOKIE]
    assert client.post("/sesion/cerrar", headers={"Origin": "https://otro-sitio.example"}).status_code == 403
    assert check_session(db, token).actor is not None


def test_concurrent_exchanges_of_one_ticket_open_one_session(db, advertiser, client):
    ticket = _ticket(db)
    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(
            pool.map(
                lambda _: (
                    TestClient(build_api(reflex_app))
                    .post("/sesion", headers={"X-Ticket": ticket, **SAME_ORIGIN})
                    .status_code
                ),
                range(6),
            )
        )
    assert sorted(statuses) == [204] + [400] * 5
    assert len(db.exec(select(UserSession)).all()) == 1


def test_a_new_sign_in_ends_the_browsers_previous_session(db, advertiser, client):
    assert _open(client, _ticket(db)).status_code == 204
    first = client.cookies[SESSION_COOKIE]
    assert _open(client, _ticket(db)).status_code == 204
    second = client.cookies[SESSION_COOKIE]
    assert first != second
    assert check_session(db, first).actor is None
    assert check_session(db, second).actor is not None


def test_sign_out_revokes_and_clears_the_cookie(db, advertiser, client):
    _open(client, _ticket(db))
    token = client.cookies[SESSION_COOKIE]
    closed = client.post("/sesion/cerrar", headers=SAME_ORIGIN)
    assert closed.status_code == 204
    assert (
        f'{SESSION_COOKIE}="";' in closed.headers["set-cookie"] or "max-age=0" in closed.headers["set-cookie"].lower()
    )
    assert check_session(db, token).actor is None
    db.refresh(advertiser)
    assert advertiser.online is False


def test_the_handshake_carries_only_the_digest():
    token = "raw-session-token-value"
    headers = handshake_headers(
        f"mayor_de_edad=1; {SESSION_COOKIE}={token}; {DIGEST_COOKIE}=forged-by-the-client",
        extra=[(b"cookie", b"otra=2")],
    )
    assert headers["cookie"] == f"mayor_de_edad=1; otra=2; {DIGEST_COOKIE}={sessions.digest(token)}"
    assert token not in repr(headers)
    # A client cannot name a session by sending the digest cookie itself.
    assert "cookie" not in handshake_headers(f"{DIGEST_COOKIE}={sessions.digest(token)}")


def _connect(state, cookie_header: str) -> None:
    """The same tab (same Reflex client token, same state) reached through a new websocket connection."""
    _CONNECTIONS[id(state._get_root_state())] = handshake_headers(cookie_header)


def _area_of(state) -> AreaState:
    """The area guard's state in the same tab as ``state``."""
    return state._get_root_state().get_substate(AreaState.get_full_name().split("."))


def test_a_replayed_client_token_without_the_cookie_is_refused(db, advertiser, client):
    _open(client, _ticket(db))
    token = client.cookies[SESSION_COOKIE]
    page, _ = client_states(MyListingsState, token)
    state = _area_of(page)
    invoke(page, "open_page")
    assert state.ready is True
    # Someone who learned the tab's client token opens a websocket without the cookie.
    invoke(state, "close")
    _connect(state, "")
    events = invoke(page, "open_page")
    assert state.ready is False and any("_redirect" in str(event) for event in events)
    # Nor can they claim the session by sending its digest (read off stored state) as the digest cookie.
    _connect(state, f"{DIGEST_COOKIE}={sessions.digest(token)}")
    invoke(page, "open_page")
    assert state.ready is False
    # The browser itself, with its cookie, still gets in.
    _connect(state, f"{SESSION_COOKIE}={token}")
    invoke(page, "open_page")
    assert state.ready is True
    # What Reflex stores for the tab (memory or Redis) holds the digest, never the raw token.
    root = state._get_root_state()
    root.router_data = root._update_router_vars({RouteVar.HEADERS: _CONNECTIONS[id(root)]}, {})
    stored = pickle.dumps(root)
    assert sessions.digest(token).encode() in stored
    assert token.encode() not in stored


def test_idle_and_expired_sessions_end_and_are_purged(db, advertiser, client):
    _open(client, _ticket(db))
    token = client.cookies[SESSION_COOKIE]
    digest = sessions.digest(token)
    idle = get_settings().session_idle_days
    assert idle == 7
    # Used six days ago: still alive, and the use is recorded.
    db.execute(update(UserSession).values(last_seen_at=utc_now() - timedelta(days=6)))
    db.commit()
    assert check_session(db, token).actor is not None
    db.expire_all()
    assert utc_now() - db.get(UserSession, digest).last_seen_at < timedelta(minutes=1)
    # Unused for longer than the idle period: ended.
    db.execute(update(UserSession).values(last_seen_at=utc_now() - timedelta(days=idle, minutes=1)))
    db.commit()
    assert check_session(db, token).actor is None
    # The periodic job deletes it once it has been over for a week, with used codes and stale tickets.
    _ticket(db)
    db.execute(update(SessionTicket).values(expires_at=utc_now() - timedelta(seconds=1)))
    db.execute(update(UserSession).values(last_seen_at=utc_now() - timedelta(days=idle + 8)))
    db.add(
        ActionCode(
            code_hash="x" * 64,
            credential_uid=advertiser.identity_uid,
            purpose="verifyEmail",
            expires_at=utc_now() + timedelta(hours=1),
            used_at=utc_now(),
        )
    )
    db.commit()
    assert purge_once() == 3
    db.expire_all()
    assert db.exec(select(UserSession)).all() == []
    assert db.exec(select(SessionTicket)).all() == []
    assert db.exec(select(ActionCode).where(ActionCode.code_hash == "x" * 64)).all() == []


def test_refusals_are_logged_without_the_token(db, advertiser, client, caplog):
    _open(client, _ticket(db))
    token = client.cookies[SESSION_COOKIE]
    state, _ = client_states(StaffOverviewState, token)
    with caplog.at_level("WARNING", logger="app.states.auth"):
        invoke(state, "open_page")  # an advertiser knocking on the administrators' door
        _connect(state, "")
        invoke(state._get_root_state().get_substate(MyListingsState.get_full_name().split(".")), "open_page")
    lines = [record.getMessage() for record in caplog.records if record.name == "app.states.auth"]
    assert any("StaffOverviewState.open_page" in line and advertiser.uid in line for line in lines), lines
    assert any("MyListingsState.open_page" in line and "no live session" in line for line in lines), lines
    assert all(token not in line and sessions.digest(token) not in line for line in lines)


def test_a_directory_page_checks_the_session_in_its_own_load(db, advertiser):
    """The directory's pages load in one event (DirectoryState.load) that does what AuthState.check_session does
    on every other public page: a live session is remembered, a ban signs the tab out, a dead cookie is dropped."""

    def load(token: str, path: str = "/escorts"):
        state, auth = client_states(DirectoryState, token)
        root = state._get_root_state()
        root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path}, {})
        return auth, state, invoke(state, "load")

    token = open_session(db, advertiser.uid)
    auth, state, _ = load(token)
    assert auth._record()["uid"] == advertiser.uid
    assert state.view == "home"

    auth, _, events = load("token-que-no-existe")
    assert auth.user == ""
    assert "/sesion/cerrar" in script_of(events)

    admin = make_staff(db, "jefa-directorio@correo.cl", ProfileId.ADMINISTRADOR)
    accounts.set_ban(
        session=db,
        provider=LocalProvider(engine=get_engine()),
        actor=actor_of(admin),
        user_uid=advertiser.uid,
        banned=True,
    )
    auth, state, events = load(token, "/escorts/trans")
    assert auth.user == ""
    assert "/sesion/cerrar" in script_of(events)
    assert redirect_paths(events) == [HOME]
    # Home itself is not sent home again: its load would find the ban again on this connection, without end.
    auth, state, events = load(token)
    assert auth.user == ""
    assert "/sesion/cerrar" in script_of(events)
    assert redirect_paths(events) == []
    assert state.view == "home"
