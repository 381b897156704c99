"""One transaction per account operation: a failure in the middle leaves nothing half-written.

Each operation of app.services.accounts runs once to the end, then again
with one of its later steps made to fail (the step after the provider's
writes, the user row, the session revocation, the commit itself). After a
failure a fresh database session finds everything as before, no e-mail
leaves, and the operation still works when tried again. Local provider on
PostgreSQL; the Firebase cases use the Auth emulator, where the remote
account is compensated (deleted) or its changes never made.
"""

from __future__ import annotations

import email
from collections.abc import Iterator
from contextlib import contextmanager

import firebase_admin.auth
import pytest
from sqlmodel import Session, select

from app.core.errors import StorageError
from app.db import get_engine
from app.identity.errors import AuthError
from app.identity.local import LocalProvider
from app.models import (
    ActionCode,
    ActionPurpose,
    LocalCredential,
    OutgoingMail,
    ProfileId,
    SessionTicket,
    User,
    UserSession,
)
from app.services import accounts
from app.settings import get_settings
from tests.abuse import use_storage
from tests.factories import actor_of, check_session, exchange_ticket, make_account, open_session
from tests.mailbox import LINK
from tests.waits import wait_until_sent

PASSWORD = "canelo-de-nos-2026"
NEW_PASSWORD = "lago-ranco-nuevo-77"
CLIENT = "cliente-transacciones"


class Injected(StorageError):
    """The failure a test injects into one step of an operation."""

    def __init__(self) -> None:
        super().__init__("Falla inyectada por la prueba.")


def _fail(*_args, **_kwargs):
    raise Injected()


@pytest.fixture
def db(app_database, monkeypatch) -> Iterator[Session]:
    use_storage(monkeypatch, "memory")  # fresh abuse counters for this test
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


@pytest.fixture
def provider(app_database) -> LocalProvider:
    return LocalProvider(engine=get_engine())


@contextmanager
def failing(monkeypatch: pytest.MonkeyPatch, db: Session, step: str) -> Iterator[None]:
    """Make ``step`` raise while the block runs: a dotted attribute, or "commit" (the operation's one commit)."""
    with monkeypatch.context() as patch:
        if step == "commit":
            patch.setattr(db, "commit", _fail)
        else:
            patch.setattr(step, _fail)
        with pytest.raises(Injected):
            yield


def _fresh() -> Session:
    """A session of its own: sees only what was committed."""
    return Session(get_engine())


def _mail_to(address: str) -> list[email.message.Message]:
    """Messages the app sent to ``address`` (written to the outbox: no SMTP server is configured)."""
    wait_until_sent()
    outbox = get_settings().outbox_dir
    messages = [email.message_from_bytes(path.read_bytes()) for path in sorted(outbox.glob("*.eml"))]
    return [m for m in messages if m["To"] == address]


def _link_code(address: str, mode: str) -> str:
    for message in reversed(_mail_to(address)):
        for link in LINK.findall(message.get_payload(decode=True).decode()):
            if f"mode={mode}" in link:
                return link.split("oobCode=")[1]
    raise AssertionError(f"no {mode} link for {address}")


def _sign_up(db, provider, address, profile="profesor"):
    data = {
        "email": address,
        "display_name": "Antonia",
        "password": PASSWORD,
        "password_confirm": PASSWORD,
        "profile": profile,
        "adult": True,
    }
    return accounts.sign_up(session=db, provider=provider, data=data, client_hash=CLIENT)


def _change_password(db, provider, user, new_password=NEW_PASSWORD) -> str:
    return accounts.change_password(
        session=db,
        provider=provider,
        actor=actor_of(user),
        current_password=PASSWORD,
        new_password=new_password,
        confirm_password=new_password,
        client_hash=CLIENT,
    )


def _reset(db, provider, code: str) -> None:
    accounts.reset_password(
        session=db, provider=provider, code=code, new_password=NEW_PASSWORD, confirm_password=NEW_PASSWORD
    )


def _accepts(provider, address, password) -> bool:
    try:
        provider.sign_in(email=address, password=password)
    except AuthError as exc:
        assert exc.code == "invalid-credential"
        return False
    return True


# --- sign-up: credential, verification code, user row, then the e-mail ------------------------


def test_sign_up_writes_credential_user_and_code_and_mails_the_link(db, provider):
    user = _sign_up(db, provider, "nueva@correo.cl")
    with _fresh() as fresh:
        stored = fresh.get(User, user.uid)
        credential = fresh.get(LocalCredential, stored.identity_uid)
        [code] = fresh.exec(select(ActionCode)).all()
    assert (stored.email, stored.profile_uid) == ("nueva@correo.cl", "profesor")
    assert credential.email == "nueva@correo.cl" and not credential.email_verified
    assert (code.credential_uid, code.purpose) == (credential.uid, ActionPurpose.VERIFY_EMAIL.value)
    assert provider.confirm_email(code=_link_code("nueva@correo.cl", "verifyEmail")) == "nueva@correo.cl"


@pytest.mark.parametrize(
    "step",
    [
        "app.identity.local.LocalProvider.set_profile",  # after the credential and its code
        "app.services.users.create_user",  # the user row
        "app.services.mail.defer",  # the e-mail's job cannot be queued
        "commit",  # everything flushed, the commit fails
    ],
)
def test_a_failed_sign_up_leaves_no_credential_user_code_or_mail(db, provider, monkeypatch, step):
    with failing(monkeypatch, db, step):
        _sign_up(db, provider, "a-medias@correo.cl")
    with _fresh() as fresh:
        assert fresh.exec(select(LocalCredential)).all() == []
        assert fresh.exec(select(User)).all() == []
        assert fresh.exec(select(ActionCode)).all() == []
        assert fresh.exec(select(OutgoingMail)).all() == []
    assert _mail_to("a-medias@correo.cl") == []
    # Tried again, it works: the address is free.
    user = _sign_up(db, provider, "a-medias@correo.cl")
    assert db.get(User, user.uid) is not None
    assert _link_code("a-medias@correo.cl", "verifyEmail")


# --- password change: new hash, every session revoked, a ticket for this browser --------------


def _account_with_sessions(db, provider, address, profile=ProfileId.CLIENTE):
    user = make_account(db, provider, address, profile=profile, password=PASSWORD)
    return user, [open_session(db, user.uid), open_session(db, user.uid)]


def test_change_password_commits_hash_revocation_and_ticket(db, provider):
    user, tokens = _account_with_sessions(db, provider, "cambia@correo.cl")
    ticket = _change_password(db, provider, user)
    assert all(check_session(db, token).actor is None for token in tokens)
    assert check_session(db, exchange_ticket(db, ticket)).actor.uid == user.uid
    assert not _accepts(provider, "cambia@correo.cl", PASSWORD)
    assert _accepts(provider, "cambia@correo.cl", NEW_PASSWORD)
    assert len(_mail_to("cambia@correo.cl")) == 1  # the owner is told


@pytest.mark.parametrize(
    "step",
    [
        "app.identity.sessions.revoke_user_sessions",  # after the new hash
        "app.identity.sessions.issue_ticket",  # after the revocation
        "commit",
    ],
)
def test_a_failed_password_change_keeps_the_hash_and_the_sessions(db, provider, monkeypatch, step):
    user, tokens = _account_with_sessions(db, provider, "sigue@correo.cl")
    with _fresh() as fresh:
        before = fresh.get(LocalCredential, user.identity_uid)
    with failing(monkeypatch, db, step):
        _change_password(db, provider, user)
    with _fresh() as fresh:
        after = fresh.get(LocalCredential, user.identity_uid)
        assert (after.password_hash, after.password_changed_at) == (before.password_hash, before.password_changed_at)
        assert fresh.exec(select(SessionTicket)).all() == []
        assert all(s.revoked_at is None for s in fresh.exec(select(UserSession)).all())
    assert all(check_session(db, token).actor.uid == user.uid for token in tokens)
    assert _accepts(provider, "sigue@correo.cl", PASSWORD)
    assert _mail_to("sigue@correo.cl") == []
    _change_password(db, provider, user)  # tried again, it works
    assert _accepts(provider, "sigue@correo.cl", NEW_PASSWORD)


# --- password reset: new hash, code used, every session revoked -------------------------------


def _reset_code(provider, address) -> str:
    provider.send_password_reset(email=address)
    return _link_code(address, "resetPassword")


def test_reset_password_commits_hash_code_and_revocation(db, provider):
    _user, tokens = _account_with_sessions(db, provider, "olvida@correo.cl")
    _reset(db, provider, _reset_code(provider, "olvida@correo.cl"))
    with _fresh() as fresh:
        [code] = fresh.exec(select(ActionCode)).all()
    assert code.used_at is not None
    assert all(check_session(db, token).actor is None for token in tokens)
    assert _accepts(provider, "olvida@correo.cl", NEW_PASSWORD)


@pytest.mark.parametrize("step", ["app.identity.sessions.revoke_user_sessions", "commit"])
def test_a_failed_reset_keeps_the_hash_the_code_and_the_sessions(db, provider, monkeypatch, step):
    user, tokens = _account_with_sessions(db, provider, "recupera@correo.cl")
    code = _reset_code(provider, "recupera@correo.cl")
    with _fresh() as fresh:
        before = fresh.get(LocalCredential, user.identity_uid).password_hash
    with failing(monkeypatch, db, step):
        _reset(db, provider, code)
    with _fresh() as fresh:
        assert fresh.get(LocalCredential, user.identity_uid).password_hash == before
        assert [c.used_at for c in fresh.exec(select(ActionCode)).all()] == [None]
    assert all(check_session(db, token).actor.uid == user.uid for token in tokens)
    assert _accepts(provider, "recupera@correo.cl", PASSWORD)
    assert len(_mail_to("recupera@correo.cl")) == 1  # the reset link only, no "password changed"
    _reset(db, provider, code)  # the link still works
    assert _accepts(provider, "recupera@correo.cl", NEW_PASSWORD)


# --- ban: user row, disabled credential, every session revoked --------------------------------


def _staff_and_target(db, provider, address):
    admin = make_account(db, provider, "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    user, tokens = _account_with_sessions(db, provider, address, profile=ProfileId.PROFESOR)
    return admin, user, tokens


def test_a_ban_commits_user_credential_and_revocation(db, provider):
    admin, user, tokens = _staff_and_target(db, provider, "vetada@correo.cl")
    accounts.set_ban(session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    with _fresh() as fresh:
        assert fresh.get(User, user.uid).ban is True
        assert fresh.get(LocalCredential, user.identity_uid).disabled is True
    assert all(check_session(db, token).banned for token in tokens)


@pytest.mark.parametrize(
    "step",
    [
        "app.identity.local.LocalProvider.set_disabled",  # after the user row
        "app.identity.sessions.revoke_user_sessions",  # after the credential
        "commit",
    ],
)
def test_a_failed_ban_leaves_the_user_free_and_signed_in(db, provider, monkeypatch, step):
    admin, user, tokens = _staff_and_target(db, provider, "libre@correo.cl")
    with failing(monkeypatch, db, step):
        accounts.set_ban(session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    with _fresh() as fresh:
        assert fresh.get(User, user.uid).ban is False
        assert fresh.get(LocalCredential, user.identity_uid).disabled is False
        assert all(s.revoked_at is None for s in fresh.exec(select(UserSession)).all())
    assert all(check_session(db, token).actor.uid == user.uid for token in tokens)
    assert _accepts(provider, "libre@correo.cl", PASSWORD)


# --- profile change and the first administrator -----------------------------------------------


def test_a_profile_change_commits_and_a_failed_one_changes_nothing(db, provider, monkeypatch):
    admin = make_account(db, provider, "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    user = make_account(db, provider, "ascenso@correo.cl", profile=ProfileId.CLIENTE)
    change = {"session": db, "provider": provider, "actor": actor_of(admin), "user_uid": user.uid}
    for step in ("app.identity.local.LocalProvider.set_profile", "commit"):
        with failing(monkeypatch, db, step):
            accounts.set_profile(**change, profile="secretaria")
        with _fresh() as fresh:
            assert fresh.get(User, user.uid).profile_uid == "cliente"
    assert accounts.set_profile(**change, profile="secretaria").profile_uid == "secretaria"
    with _fresh() as fresh:
        assert fresh.get(User, user.uid).profile_uid == "secretaria"


def test_a_failed_create_admin_leaves_no_credential(db, provider, monkeypatch):
    create = {"session": db, "provider": provider, "email": "root@correo.cl", "password": PASSWORD}
    with failing(monkeypatch, db, "app.services.users.create_user"):
        accounts.create_administrator(**create)
    with _fresh() as fresh:
        assert fresh.exec(select(LocalCredential)).all() == [] and fresh.exec(select(User)).all() == []
    assert accounts.create_administrator(**create).profile_uid == "administrador"


# --- Firebase: the remote account is compensated, or never changed -----------------------------


def _firebase_account(provider, address):
    try:
        return firebase_admin.auth.get_user_by_email(address, app=provider.app)
    except firebase_admin.auth.UserNotFoundError:
        return None


@pytest.mark.parametrize(
    "step",
    [
        "app.identity.firebase.FirebaseProvider.set_profile",  # after the remote account was created
        "app.services.users.create_user",
        "commit",  # after the verification e-mail went out, just before the commit
    ],
)
def test_a_failed_firebase_sign_up_leaves_no_remote_account_and_no_row(
    db, firebase_provider, firebase_oob_codes, monkeypatch, step
):
    # An address of this case's own: the emulator keeps the codes it "e-mailed" after its accounts are deleted.
    address = f"remota-{step.rsplit('.', 1)[-1].replace('_', '-')}@correo.cl"
    with failing(monkeypatch, db, step):
        _sign_up(db, firebase_provider, address)
    assert _firebase_account(firebase_provider, address) is None
    with _fresh() as fresh:
        assert fresh.exec(select(User)).all() == []
    if step != "commit":  # the link goes out last, so a failure before the commit sends none
        assert firebase_oob_codes(address, "VERIFY_EMAIL") is None
    user = _sign_up(db, firebase_provider, address)  # tried again, it works
    assert _firebase_account(firebase_provider, address).uid == db.get(User, user.uid).identity_uid
    assert firebase_oob_codes(address, "VERIFY_EMAIL")


def test_a_failed_firebase_create_admin_leaves_no_remote_account(db, firebase_provider, monkeypatch):
    create = {"session": db, "provider": firebase_provider, "email": "root@correo.cl", "password": PASSWORD}
    with failing(monkeypatch, db, "app.services.users.create_user"):
        accounts.create_administrator(**create)
    assert _firebase_account(firebase_provider, "root@correo.cl") is None
    assert accounts.create_administrator(**create).profile_uid == "administrador"
    assert _firebase_account(firebase_provider, "root@correo.cl").custom_claims == {"perfil": "administrador"}


def test_a_failed_firebase_ban_leaves_the_remote_account_enabled(db, firebase_provider, monkeypatch):
    admin, user, tokens = _staff_and_target(db, firebase_provider, "remota-libre@correo.cl")
    with failing(monkeypatch, db, "app.identity.sessions.revoke_user_sessions"):
        accounts.set_ban(session=db, provider=firebase_provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    assert _firebase_account(firebase_provider, "remota-libre@correo.cl").disabled is False
    with _fresh() as fresh:
        assert fresh.get(User, user.uid).ban is False
    assert all(check_session(db, token).actor.uid == user.uid for token in tokens)
    accounts.set_ban(session=db, provider=firebase_provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    assert _firebase_account(firebase_provider, "remota-libre@correo.cl").disabled is True


def test_a_failed_firebase_password_change_keeps_the_remote_password(db, firebase_provider, monkeypatch):
    user, tokens = _account_with_sessions(db, firebase_provider, "remota-clave@correo.cl")
    with failing(monkeypatch, db, "app.identity.sessions.issue_ticket"):
        _change_password(db, firebase_provider, user)
    assert firebase_provider.sign_in(email="remota-clave@correo.cl", password=PASSWORD).uid == user.identity_uid
    assert all(check_session(db, token).actor.uid == user.uid for token in tokens)
    _change_password(db, firebase_provider, user)
    assert firebase_provider.sign_in(email="remota-clave@correo.cl", password=NEW_PASSWORD).uid == user.identity_uid
