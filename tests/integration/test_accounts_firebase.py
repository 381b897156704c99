"""The account flows of app.services.accounts with the Firebase provider (Auth emulator) on PostgreSQL.

The same sign-in flow, sessions and limits as with the local provider: the
users table and our sessions stay in step with the Firebase accounts.
"""

from __future__ import annotations

from types import SimpleNamespace

import firebase_admin.auth
import httpx
import pytest
from sqlmodel import Session, select

from app.db import get_engine
from app.identity.errors import AUTH_MESSAGES, AuthError
from app.identity.sessions import digest
from app.models import ProfileId, User
from app.services import accounts
from app.settings import get_settings
from app.states.account import LoginState
from tests.abuse import redirect_paths
from tests.factories import actor_of, check_session, exchange_ticket, make_account
from tests.firebase_emulator import FIREBASE_PROJECT
from tests.handlers import client_states, invoke, script_of, ticket_in
from tests.ports import free_port

PASSWORD = "desierto-florido-atacama"


def _sign_in(db, provider, email, password=PASSWORD, client="cliente-fb"):
    """Sign in and exchange the ticket as the browser would: the actor and the session's raw token."""
    signed = accounts.sign_in(
        session=db, provider=provider, settings=get_settings(), email=email, password=password, client_hash=client
    )
    return SimpleNamespace(actor=signed.actor, token=exchange_ticket(db, signed.ticket))


def test_sign_up_verify_and_sign_in(db, firebase_provider, firebase_oob_codes):
    data = {
        "email": "anunciante@correo.cl",
        "password": PASSWORD,
        "password_confirm": PASSWORD,
        "profile": "profesor",
        "adult": True,
    }
    user = accounts.sign_up(session=db, provider=firebase_provider, data=data, client_hash="cliente-fb")
    record = firebase_admin.auth.get_user(db.get(User, user.uid).identity_uid, app=firebase_provider.app)
    assert record.custom_claims == {"perfil": "profesor"}
    with pytest.raises(AuthError) as refused:
        _sign_in(db, firebase_provider, "anunciante@correo.cl")
    assert refused.value.code == "email-not-verified"
    firebase_provider.confirm_email(code=firebase_oob_codes("anunciante@correo.cl", "VERIFY_EMAIL"))
    signed = _sign_in(db, firebase_provider, "anunciante@correo.cl")
    assert signed.actor.uid == user.uid and signed.actor.profile_uid == "profesor"
    assert check_session(db, signed.token).actor == signed.actor
    assert db.get(User, user.uid).online is True
    accounts.sign_out(session=db, token_hash=digest(signed.token))
    assert check_session(db, signed.token).actor is None


def test_ban_disables_the_firebase_account_and_ends_sessions(db, firebase_provider):
    admin = make_account(db, firebase_provider, "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    user = make_account(db, firebase_provider, "vetar@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    token = _sign_in(db, firebase_provider, "vetar@correo.cl").token
    accounts.set_ban(session=db, provider=firebase_provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    assert firebase_admin.auth.get_user(user.identity_uid, app=firebase_provider.app).disabled is True
    assert check_session(db, token).banned is True
    with pytest.raises(AuthError) as refused:
        _sign_in(db, firebase_provider, "vetar@correo.cl")
    assert refused.value.code == "user-disabled"


def test_limits_apply_before_firebase_is_asked(db, firebase_provider, monkeypatch):
    make_account(db, firebase_provider, "limite@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    asked = []
    real_sign_in = firebase_provider.sign_in
    monkeypatch.setattr(firebase_provider, "sign_in", lambda **kw: asked.append(1) or real_sign_in(**kw))
    for _ in range(3):
        with pytest.raises(AuthError) as refused:
            _sign_in(db, firebase_provider, "limite@correo.cl", "mala-clave-123")
        assert refused.value.code == "invalid-credential"
    with pytest.raises(AuthError) as held:
        _sign_in(db, firebase_provider, "limite@correo.cl")
    assert held.value.code == "too-many-requests"
    assert len(asked) == 3  # the held-back fourth never reached Firebase
    # The owner on another connection is not held back.
    assert _sign_in(db, firebase_provider, "limite@correo.cl", client="otro-cliente").actor.email == "limite@correo.cl"


def test_password_change_and_reset_end_sessions(db, firebase_provider, firebase_oob_codes):
    user = make_account(db, firebase_provider, "claves@correo.cl", profile=ProfileId.SECRETARIA, password=PASSWORD)
    old = _sign_in(db, firebase_provider, "claves@correo.cl").token
    ticket = accounts.change_password(
        session=db,
        provider=firebase_provider,
        actor=actor_of(user),
        current_password=PASSWORD,
        new_password="glaciar-grey-2026",
        confirm_password="glaciar-grey-2026",
        client_hash="cliente-fb",
    )
    fresh = exchange_ticket(db, ticket)
    assert check_session(db, old).actor is None
    assert check_session(db, fresh).actor.uid == user.uid
    accounts.request_password_reset(provider=firebase_provider, email="claves@correo.cl")
    code = firebase_oob_codes("claves@correo.cl", "PASSWORD_RESET")
    accounts.reset_password(
        session=db,
        provider=firebase_provider,
        code=code,
        new_password="torres-del-paine-9",
        confirm_password="torres-del-paine-9",
    )
    assert check_session(db, fresh).actor is None
    assert _sign_in(db, firebase_provider, "claves@correo.cl", "torres-del-paine-9").actor.profile_uid == "secretaria"


@pytest.fixture
def firebase_app_settings(app_database, firebase_emulator, monkeypatch):
    """The app itself configured for Firebase on the emulator (what production sets, minus the emulator)."""
    monkeypatch.setenv("IDENTITY_PROVIDER", "firebase")
    monkeypatch.setenv("FIREBASE_PROJECT_ID", FIREBASE_PROJECT)
    monkeypatch.setenv("FIREBASE_API_KEY", "fake-api-key")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _sign_up_form(email: str) -> dict:
    return {"email": email, "password": PASSWORD, "password_confirm": PASSWORD, "profile": "cliente", "adult": "on"}


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("WEAK_PASSWORD : Password should be at least 6 characters", "weak-password"),
        ("OPERATION_NOT_ALLOWED", "operation-not-allowed"),
        ("UNAUTHORIZED_DOMAIN : Domain not allowlisted by project", "unauthorized-domain"),
        ("TOO_MANY_ATTEMPTS_TRY_LATER", "too-many-requests"),
    ],
)
def test_firebase_refusals_reach_the_sign_up_form(firebase_app_settings, monkeypatch, reason, code):
    def refuse(url, **kwargs):
        return httpx.Response(400, json={"error": {"code": 400, "message": reason}}, request=httpx.Request("POST", url))

    monkeypatch.setattr("app.identity.firebase.httpx.post", refuse)
    state, _ = client_states(LoginState)
    invoke(state, "load")
    events = invoke(state, "sign_up", form_data=_sign_up_form("rechazo@correo.cl"))
    assert state.error == AUTH_MESSAGES[code]
    assert events == []  # no redirect: the person stays on the form
    with Session(get_engine()) as db:
        assert db.exec(select(User)).all() == []


def test_an_address_firebase_already_has_gets_the_answer_of_a_new_one(firebase_app_settings, monkeypatch):
    def exists(url, **kwargs):
        return httpx.Response(
            400, json={"error": {"code": 400, "message": "EMAIL_EXISTS"}}, request=httpx.Request("POST", url)
        )

    monkeypatch.setattr("app.identity.firebase.httpx.post", exists)
    state, _ = client_states(LoginState)
    invoke(state, "load")
    events = invoke(state, "sign_up", form_data=_sign_up_form("ya-existe@correo.cl"))
    assert state.error == "" and state.pending_email == "ya-existe@correo.cl"
    assert redirect_paths(events) == ["/login/auth/signup-sucessful"]
    with Session(get_engine()) as db:
        assert db.exec(select(User)).all() == []


def test_an_unreachable_firebase_reaches_the_sign_in_form(firebase_app_settings, monkeypatch):
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"127.0.0.1:{free_port()}")  # nothing listens
    state, auth = client_states(LoginState)
    invoke(state, "load")
    events = invoke(state, "sign_in", form_data={"email": "alguien@correo.cl", "password": PASSWORD})
    assert state.error == AUTH_MESSAGES["network-request-failed"]
    assert events == [] and not auth.signed_in and state.busy is False


def test_the_sign_in_form_works_with_firebase(firebase_app_settings, firebase_provider, db):
    make_account(db, firebase_provider, "firebase-ui@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    state, _ = client_states(LoginState)
    invoke(state, "load")
    events = invoke(state, "sign_in", form_data={"email": "firebase-ui@correo.cl", "password": PASSWORD})
    assert state.error == ""
    # The browser gets a ticket to exchange for the cookie, then loads the advertiser's page.
    assert "/my/publicacion/misPublicaciones" in script_of(events)
    token = exchange_ticket(db, ticket_in(events))
    assert check_session(db, token).actor.email == "firebase-ui@correo.cl"
