"""Accounts with the local provider on PostgreSQL, e-mail caught by a real SMTP server.

Covers sign-up and verification, sign-in rules, the session lifecycle (sign-in,
sign-out, expiry, ban, password change and reset), the brute-force limits,
staff-only operations and the create-admin command. The abuse limits under
concurrency and their e-mails are in test_abuse_limits.py.
"""

from __future__ import annotations

import io
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from app import cli
from app.core.errors import ForbiddenError, InvalidInputError
from app.db import get_engine
from app.identity.errors import AuthError
from app.identity.local import LocalProvider
from app.identity.sessions import digest
from app.models import (
    ActionCode,
    LocalCredential,
    ProfileId,
    User,
    UserSession,
    utc_now,
)
from app.services import accounts
from app.settings import get_settings
from tests.abuse import install_clock
from tests.factories import actor_of, check_session, exchange_ticket, make_account
from tests.waits import wait_until_sent

PASSWORD = "luna-llena-sobre-chiloe"
CLIENT = "client-hash-1"


def _sign_up(db, provider, email, profile="cliente", **changes):
    data = {
        "email": email,
        "display_name": "Camila",
        "password": PASSWORD,
        "password_confirm": PASSWORD,
        "profile": profile,
        "adult": True,
    }
    return accounts.sign_up(session=db, provider=provider, data={**data, **changes}, client_hash=CLIENT)


def _sign_in(db, provider, email, password=PASSWORD, client=CLIENT):
    """Sign in and exchange the ticket as the browser would: the actor and the session's raw token."""
    signed = accounts.sign_in(
        session=db, provider=provider, settings=get_settings(), email=email, password=password, client_hash=client
    )
    return SimpleNamespace(actor=signed.actor, token=exchange_ticket(db, signed.ticket))


def _code(link: str) -> str:
    return link.split("oobCode=")[1]


def test_sign_up_verify_by_email_then_sign_in(db, provider, mailbox):
    user = _sign_up(db, provider, "Nueva@Correo.cl", profile="profesor")
    assert (user.email, user.profile_uid, user.online) == ("nueva@correo.cl", "profesor", False)
    with pytest.raises(AuthError) as refused:
        _sign_in(db, provider, "nueva@correo.cl")
    assert refused.value.code == "email-not-verified"
    # The sign-up e-mailed a working link; the refused sign-in minutes later sent none.
    wait_until_sent()
    assert len(mailbox.to("nueva@correo.cl")) == 1
    wait_until_sent()  # the worker delivers the queued e-mail
    link = mailbox.wait_for_link("nueva@correo.cl", "verifyEmail")
    assert link.startswith(get_settings().site_url + "/login/accion?")
    assert provider.confirm_email(code=_code(link)) == "nueva@correo.cl"
    with pytest.raises(AuthError) as reused:
        provider.confirm_email(code=_code(link))
    assert reused.value.code == "invalid-action-code"
    signed = _sign_in(db, provider, "NUEVA@correo.cl")
    assert signed.actor.profile_uid == "profesor"
    assert db.get(User, user.uid).online is True
    # Only the digest of the token is stored.
    assert db.get(UserSession, digest(signed.token)) is not None
    assert db.exec(select(UserSession).where(UserSession.token_hash == signed.token)).first() is None


def test_sign_up_refuses_staff_profiles_minors_and_mismatched_passwords(db, provider, mailbox):
    for changes, message in (
        ({"profile": "administrador"}, "Elige si quieres ver avisos o publicar avisos."),
        ({"profile": "secretaria"}, "Elige si quieres ver avisos o publicar avisos."),
        ({"adult": False}, "Debes confirmar que eres mayor de 18 años."),
        ({"password_confirm": "otra-clave-distinta"}, "Las contraseñas no coinciden."),
        ({"display_name": "x" * 81}, "Revisa los datos del formulario."),
    ):
        with pytest.raises(InvalidInputError) as refused:
            _sign_up(db, provider, "x@correo.cl", **changes)
        assert refused.value.message == message
    with pytest.raises(InvalidInputError) as bad_email:
        _sign_up(db, provider, "sin-arroba")
    assert bad_email.value.message == "El correo electrónico no es válido."
    assert db.exec(select(User)).all() == []
    assert db.exec(select(LocalCredential)).all() == []
    assert mailbox.to("x@correo.cl") == []


@pytest.mark.parametrize("password", ["corta1", "password1", "contraseña", "Qwertyuiop", "x" * 129])
def test_weak_passwords_are_refused(db, provider, mailbox, password):
    with pytest.raises(AuthError) as refused:
        _sign_up(db, provider, "debil@correo.cl", password=password, password_confirm=password)
    assert refused.value.code == "weak-password"
    assert db.exec(select(User)).all() == []


def test_a_second_sign_up_creates_nothing_and_tells_the_owner(db, provider, mailbox):
    first = _sign_up(db, provider, "dos@correo.cl")
    assert (
        _sign_up(
            db, provider, "DOS@correo.cl", password="otra-clave-distinta-7", password_confirm="otra-clave-distinta-7"
        )
        is None
    )
    assert [u.uid for u in db.exec(select(User)).all()] == [first.uid]
    assert len(db.exec(select(LocalCredential)).all()) == 1
    # The second sign-up's password changed nothing.
    wait_until_sent()  # the worker delivers the queued e-mail
    provider.confirm_email(code=_code(mailbox.wait_for_link("dos@correo.cl", "verifyEmail")))
    assert _sign_in(db, provider, "dos@correo.cl").actor.uid == first.uid


def test_unknown_email_and_wrong_password_fail_the_same_way(db, provider):
    make_account(db, provider, "real@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    errors = []
    for email, password in (("nadie@correo.cl", PASSWORD), ("real@correo.cl", "equivocada-123")):
        with pytest.raises(AuthError) as refused:
            _sign_in(db, provider, email, password)
        errors.append((refused.value.code, refused.value.message))
    assert errors[0] == errors[1] == ("invalid-credential", "El correo o la contraseña no son correctos.")


def test_session_lifecycle(db, provider):
    user = make_account(db, provider, "vida@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    first = _sign_in(db, provider, "vida@correo.cl")
    second = _sign_in(db, provider, "vida@correo.cl")
    assert first.token != second.token  # a new token at every sign-in
    assert check_session(db, first.token).actor.uid == user.uid
    assert check_session(db, "inventado").actor is None
    # Sign-out ends that browser's session only, and marks the user offline.
    accounts.sign_out(session=db, token_hash=digest(first.token))
    assert check_session(db, first.token).actor is None
    assert check_session(db, second.token).actor is not None
    db.refresh(user)
    assert user.online is False
    # Expiry.
    db.execute(update(UserSession).where(UserSession.token_hash == digest(second.token)).values(expires_at=utc_now()))
    db.commit()
    assert check_session(db, second.token).actor is None


def test_a_ban_ends_every_session_and_blocks_sign_in(db, provider):
    admin = make_account(db, provider, "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    secretary = make_account(db, provider, "secre@correo.cl", profile=ProfileId.SECRETARIA)
    user = make_account(db, provider, "mala@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    token = _sign_in(db, provider, "mala@correo.cl").token
    accounts.set_ban(session=db, provider=provider, actor=actor_of(secretary), user_uid=user.uid, banned=True)
    assert db.get(UserSession, digest(token)).revoked_at is not None  # revoked outright
    check = check_session(db, token)
    assert check.actor is None and check.banned is True  # and the open tab learns why
    with pytest.raises(AuthError) as refused:
        _sign_in(db, provider, "mala@correo.cl")
    assert refused.value.code == "user-disabled"
    # The secretary cannot ban an administrator; an advertiser cannot ban anyone.
    with pytest.raises(Exception) as refused_admin:
        accounts.set_ban(session=db, provider=provider, actor=actor_of(secretary), user_uid=admin.uid, banned=True)
    assert "administrador" in str(refused_admin.value)
    with pytest.raises(ForbiddenError):
        accounts.set_ban(session=db, provider=provider, actor=actor_of(user), user_uid=secretary.uid, banned=True)
    accounts.set_ban(session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, banned=False)
    assert check_session(db, token).actor is None  # lifting a ban revives nothing
    assert _sign_in(db, provider, "mala@correo.cl").actor.uid == user.uid


def test_password_change_rotates_sessions(db, provider):
    user = make_account(db, provider, "cambio@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    here = _sign_in(db, provider, "cambio@correo.cl").token
    elsewhere = _sign_in(db, provider, "cambio@correo.cl").token
    change = {"session": db, "provider": provider, "actor": actor_of(user), "client_hash": CLIENT}
    with pytest.raises(AuthError) as wrong:
        accounts.change_password(
            **change, current_password="no-es-esta", new_password="nueva-clave-77", confirm_password="nueva-clave-77"
        )
    assert wrong.value.code == "wrong-password"
    with pytest.raises(AuthError) as weak:
        accounts.change_password(
            **change, current_password=PASSWORD, new_password="12345678", confirm_password="12345678"
        )
    assert weak.value.code == "weak-password"
    assert check_session(db, elsewhere).actor is not None  # failures change nothing
    fresh = exchange_ticket(
        db,
        accounts.change_password(
            **change, current_password=PASSWORD, new_password="nueva-clave-77", confirm_password="nueva-clave-77"
        ),
    )
    for old in (here, elsewhere):
        assert check_session(db, old).actor is None
    assert check_session(db, fresh).actor.uid == user.uid
    with pytest.raises(AuthError):
        _sign_in(db, provider, "cambio@correo.cl")
    assert _sign_in(db, provider, "cambio@correo.cl", "nueva-clave-77").actor.uid == user.uid


def test_password_reset_by_email(db, provider, mailbox):
    user = make_account(db, provider, "olvido@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    token = _sign_in(db, provider, "olvido@correo.cl").token
    accounts.request_password_reset(provider=provider, email="nadie@correo.cl")
    wait_until_sent()
    assert mailbox.to("nadie@correo.cl") == []  # silent: no account, no mail, same answer
    accounts.request_password_reset(provider=provider, email="Olvido@correo.cl")
    wait_until_sent()  # the worker delivers the queued e-mail
    code = _code(mailbox.wait_for_link("olvido@correo.cl", "resetPassword"))
    reset = {"session": db, "provider": provider, "code": code}
    with pytest.raises(AuthError) as weak:
        accounts.reset_password(**reset, new_password="abc", confirm_password="abc")
    assert weak.value.code == "weak-password"
    with pytest.raises(InvalidInputError):
        accounts.reset_password(**reset, new_password="nueva-clave-88", confirm_password="otra-clave-88")
    accounts.reset_password(
        **reset, new_password="nueva-clave-88", confirm_password="nueva-clave-88"
    )  # code still good
    assert check_session(db, token).actor is None
    assert _sign_in(db, provider, "olvido@correo.cl", "nueva-clave-88").actor.uid == user.uid
    with pytest.raises(AuthError) as reused:
        accounts.reset_password(**reset, new_password="tercera-clave-99", confirm_password="tercera-clave-99")
    assert reused.value.code == "invalid-action-code"


def test_expired_codes_are_refused(db, provider, mailbox):
    make_account(db, provider, "tarde@correo.cl", profile=ProfileId.CLIENTE)
    accounts.request_password_reset(provider=provider, email="tarde@correo.cl")
    wait_until_sent()  # the worker delivers the queued e-mail
    code = _code(mailbox.wait_for_link("tarde@correo.cl", "resetPassword"))
    db.execute(update(ActionCode).values(expires_at=utc_now() - timedelta(seconds=1)))
    db.commit()
    with pytest.raises(AuthError) as refused:
        provider.confirm_password_reset(code=code, new_password="nueva-clave-88")
    assert refused.value.code == "expired-action-code"


def test_failures_from_one_client_delay_that_client_only(db, provider, monkeypatch):
    clock = install_clock(monkeypatch)
    make_account(db, provider, "fuerza@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    for _ in range(3):
        with pytest.raises(AuthError) as refused:
            _sign_in(db, provider, "fuerza@correo.cl", "mala-clave", client="atacante")
        assert refused.value.code == "invalid-credential"
    with pytest.raises(AuthError) as held:
        _sign_in(db, provider, "fuerza@correo.cl", client="atacante")  # right password, too soon
    assert held.value.code == "too-many-requests"
    assert "espera 2 segundos" in held.value.message
    # The owner, from anywhere else, is not locked out.
    assert _sign_in(db, provider, "fuerza@correo.cl", client="duena").actor.email == "fuerza@correo.cl"
    clock.advance(2)
    assert _sign_in(db, provider, "fuerza@correo.cl", client="atacante").actor.email == "fuerza@correo.cl"


def test_failures_across_accounts_close_the_client(db, provider):
    make_account(db, provider, "una@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    for attempt in range(30):
        with pytest.raises(AuthError) as refused:
            _sign_in(db, provider, f"prueba{attempt}@correo.cl", "mala-clave", client="atacante")
        assert refused.value.code == "invalid-credential"
    with pytest.raises(AuthError) as locked:
        _sign_in(db, provider, "una@correo.cl", client="atacante")
    assert locked.value.code == "too-many-requests"
    assert _sign_in(db, provider, "una@correo.cl", client="vecino").actor.email == "una@correo.cl"


def test_a_success_clears_the_delays_of_that_client(db, provider):
    make_account(db, provider, "despistada@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    for _ in range(3):  # six failures in all, never held back: each success starts over
        for _ in range(2):
            with pytest.raises(AuthError) as refused:
                _sign_in(db, provider, "despistada@correo.cl", "mala-clave")
            assert refused.value.code == "invalid-credential"
        _sign_in(db, provider, "despistada@correo.cl")


def test_only_an_administrator_gives_profiles(db, provider):
    admin = make_account(db, provider, "admin@correo.cl", profile=ProfileId.ADMINISTRADOR)
    secretary = make_account(db, provider, "sec@correo.cl", profile=ProfileId.SECRETARIA)
    user = make_account(db, provider, "ascenso@correo.cl", profile=ProfileId.CLIENTE)
    with pytest.raises(ForbiddenError):
        accounts.set_profile(
            session=db, provider=provider, actor=actor_of(secretary), user_uid=user.uid, profile="secretaria"
        )
    updated = accounts.set_profile(
        session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, profile="secretaria"
    )
    assert updated.profile_uid == "secretaria"


def test_create_admin_command(app_database, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("una-clave-muy-segura-2026\n"))
    assert cli.main(["create-admin", "root@correo.cl", "--password-stdin"]) == 0
    out = capsys.readouterr().out
    assert "Administrador creado: root@correo.cl" in out and "segundo factor" in out
    with Session(get_engine()) as db:
        signed = _sign_in(db, LocalProvider(engine=get_engine()), "root@correo.cl", "una-clave-muy-segura-2026")
    assert signed.actor.profile_uid == ProfileId.ADMINISTRADOR
    # Twice is refused; a generated password is printed once and works.
    monkeypatch.setattr("sys.stdin", io.StringIO("una-clave-muy-segura-2026\n"))
    assert cli.main(["create-admin", "root@correo.cl", "--password-stdin"]) == 1
    assert cli.main(["create-admin", "otro@correo.cl", "--generate"]) == 0
    generated = capsys.readouterr().out.rsplit(": ", 1)[1].strip()
    with Session(get_engine()) as db:
        assert (
            _sign_in(db, LocalProvider(engine=get_engine()), "otro@correo.cl", generated).actor.email
            == "otro@correo.cl"
        )


def test_reset_emails_are_capped_per_hour(db, provider, mailbox):
    make_account(db, provider, "inundada@correo.cl", profile=ProfileId.CLIENTE)
    for _ in range(5):
        accounts.request_password_reset(provider=provider, email="inundada@correo.cl")  # same answer every time
    wait_until_sent()
    assert len(mailbox.to("inundada@correo.cl")) == 3
