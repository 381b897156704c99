"""The staff second factor on PostgreSQL (issue 20 §1): setup, sign-in, codes used once, limits, resets.

Time steps come from a clock the test sets (``two_factor.utc_now``), so a code is
never checked across a step boundary by chance.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.header import decode_header, make_header
from types import SimpleNamespace

import pyotp
import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError
from app.db import get_engine
from app.identity.errors import AuthError
from app.identity.sessions import digest
from app.models import AuditEntry, ProfileId, RecoveryCode, StaffSecondFactor, User, UserSession
from app.routes import SECOND_FACTOR
from app.services import accounts, two_factor
from app.settings import get_settings
from app.states.account import LoginState, PasswordDialogState
from app.states.second_factor import SecondFactorState
from tests.abuse import STORAGES, at_once, use_storage
from tests.factories import (
    STAFF_TOTP_SECRET,
    actor_of,
    check_session,
    enrol_staff,
    exchange_ticket,
    make_account,
    open_session,
)
from tests.handlers import client_states, invoke, script_of, ticket_in
from tests.waits import wait_until_sent

PASSWORD = "glaciar-grey-torres-7"
NOW = datetime(2026, 11, 26, 15, 0, 10, tzinfo=UTC)  # 10 s into a 30 s step
RECOVERY = ["abcde-fghjk", "mnpqr-stuvw"]


@pytest.fixture(autouse=True)
def counters(app_database, monkeypatch) -> None:
    """Fresh counters in memory for each test (the limits' own test runs on Redis as well)."""
    use_storage(monkeypatch, "memory")


@pytest.fixture
def clock(monkeypatch) -> SimpleNamespace:
    """The time the second factor sees; move it with ``clock.now``."""
    clock = SimpleNamespace(now=NOW)
    monkeypatch.setattr(two_factor, "utc_now", lambda: clock.now)
    return clock


def _code(at: datetime, secret: str = STAFF_TOTP_SECRET) -> str:
    return pyotp.TOTP(secret).at(at)


def _staff(db, provider, email: str, profile: ProfileId = ProfileId.ADMINISTRADOR, **kw) -> User:
    return make_account(db, provider, email, profile=profile, password=PASSWORD, **kw)


def _pending(db, user: User) -> str:
    """A session of ``user`` that has not passed the second factor; its raw token."""
    return open_session(db, user.uid, second_factor=False)


def _verify(db, user: User, token: str, code: str, client: str = "cliente-1") -> None:
    two_factor.verify_sign_in(session=db, actor=actor_of(user), token_hash=digest(token), code=code, client_hash=client)


def _message(call) -> str:
    try:
        call()
    except (InvalidInputError, AuthError, ConflictError) as exc:
        return exc.message
    return "accepted"


def test_a_staff_sign_in_grants_nothing_until_the_second_factor(db, provider, clock):
    admin = _staff(db, provider, "jefa@correo.cl")
    enrol_staff(db, admin.uid)
    signed = accounts.sign_in(
        session=db, provider=provider, settings=get_settings(), email=admin.email, password=PASSWORD, client_hash="c"
    )
    token = exchange_ticket(db, signed.ticket)
    check = check_session(db, token)
    assert check.actor is None and check.pending == actor_of(admin)  # half signed in: no staff rights
    _verify(db, admin, token, _code(NOW))
    assert check_session(db, token).actor == actor_of(admin)
    # An advertiser's session is whole at once: the second factor is for staff only.
    owner = make_account(db, provider, "duena@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    signed = accounts.sign_in(
        session=db, provider=provider, settings=get_settings(), email=owner.email, password=PASSWORD, client_hash="c"
    )
    assert check_session(db, exchange_ticket(db, signed.ticket)).actor == actor_of(owner)


def test_a_user_made_staff_must_pass_the_second_factor_in_an_open_session(db, provider):
    user = make_account(db, provider, "ascendida@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    token = _pending(db, user)
    assert check_session(db, token).actor is not None
    user.profile_uid = ProfileId.SECRETARIA.value
    db.add(user)
    db.commit()
    check = check_session(db, token)
    assert check.actor is None and check.pending is not None and check.pending.uid == user.uid


def test_a_setup_begun_in_two_tabs_at_once_shows_both_the_same_secret(db, provider, clock, monkeypatch):
    admin = _staff(db, provider, "dos-pestanas@correo.cl")
    with Session(get_engine()) as other_tab:
        first = two_factor.begin_setup(session=other_tab, actor=actor_of(admin))
    # This tab looked before the other one committed: it finds no row, and its insert is refused.
    found = db.get
    calls: list[type] = []

    def before_the_other_tab(model, key, **options):
        calls.append(model)
        return None if len(calls) == 1 else found(model, key, **options)

    monkeypatch.setattr(db, "get", before_the_other_tab)
    assert two_factor.begin_setup(session=db, actor=actor_of(admin)).secret == first.secret
    assert len(calls) == 2


def test_setup_shows_qr_and_secret_confirms_and_gives_ten_hashed_recovery_codes(db, provider, clock):
    admin = _staff(db, provider, "nueva-jefa@correo.cl")
    token = _pending(db, admin)
    assert two_factor.status(session=db, user_uid=admin.uid) == two_factor.SETUP
    view = two_factor.begin_setup(session=db, actor=actor_of(admin))
    assert view.qr_path.startswith("M") and view.qr_size > 21
    secret = view.secret.replace(" ", "")
    assert len(secret) == 32 and secret not in repr(view)
    # The same secret on a reload (the QR the phone scanned stays valid); never stored in clear.
    assert two_factor.begin_setup(session=db, actor=actor_of(admin)).secret == view.secret
    stored = db.get(StaffSecondFactor, admin.uid)
    assert secret not in stored.secret_encrypted and stored.confirmed_at is None

    def confirm(code: str) -> list[str]:
        return two_factor.confirm_setup(
            session=db, actor=actor_of(admin), token_hash=digest(token), code=code, client_hash="c"
        )

    assert _message(lambda: confirm("000000" if _code(NOW, secret) != "000000" else "111111")) == two_factor.WRONG_CODE
    assert check_session(db, token).actor is None
    codes = confirm(_code(NOW, secret))
    assert len(codes) == 10 and len(set(codes)) == 10
    assert check_session(db, token).actor == actor_of(admin)
    db.expire_all()
    hashes = [row.code_hash for row in db.exec(select(RecoveryCode).where(RecoveryCode.user_uid == admin.uid))]
    assert len(hashes) == 10 and all(h.startswith("$argon2") for h in hashes)
    assert not any(code in h or code.replace("-", "") in h for code in codes for h in hashes)
    assert two_factor.status(session=db, user_uid=admin.uid) == two_factor.VERIFY
    # Once confirmed the secret is never shown again.
    with pytest.raises(ConflictError):
        two_factor.begin_setup(session=db, actor=actor_of(admin))
    # A recovery code given at setup signs in, once.
    other = _pending(db, admin)
    _verify(db, admin, other, codes[3].upper().replace("-", " "))
    assert check_session(db, other).actor is not None
    assert _message(lambda: _verify(db, admin, _pending(db, admin), codes[3])) == two_factor.WRONG_CODE


def test_codes_are_checked_one_step_either_side_and_never_accepted_twice(db, provider, clock):
    admin = _staff(db, provider, "ventana@correo.cl")
    enrol_staff(db, admin.uid)
    step = timedelta(seconds=30)

    def attempt(code: str) -> str:
        return _message(lambda: _verify(db, admin, _pending(db, admin), code, client=f"c-{code}"))

    assert attempt(_code(NOW - 2 * step)) == two_factor.WRONG_CODE  # outside the window
    assert attempt(_code(NOW + 2 * step)) == two_factor.WRONG_CODE
    assert attempt(_code(NOW - step)) == "accepted"  # the step before
    assert attempt(_code(NOW - step)) == two_factor.WRONG_CODE  # the same code again
    assert attempt(_code(NOW)) == "accepted"
    assert attempt(_code(NOW)) == two_factor.WRONG_CODE  # replayed, even within its step
    assert attempt(_code(NOW + step)) == "accepted"  # the step after
    clock.now = NOW + step
    # Now current: an older step's code stays refused although it is inside the window.
    assert attempt(_code(NOW)) == two_factor.WRONG_CODE
    clock.now = NOW + 2 * step
    assert attempt(_code(NOW + 2 * step)) == "accepted"


def test_concurrent_uses_of_one_code_accept_it_once(db, provider, clock):
    admin = _staff(db, provider, "carrera@correo.cl")
    enrol_staff(db, admin.uid, recovery_codes=RECOVERY)
    tokens = [_pending(db, admin) for _ in range(8)]

    def use(code: str):
        def run(i: int) -> str:
            with Session(get_engine(), expire_on_commit=False) as session:
                return _message(lambda: _verify(session, admin, tokens[i], code, client=f"c{i}"))

        return run

    assert sorted(at_once(use(_code(NOW)), 4)).count("accepted") == 1
    assert sorted(at_once(lambda i: use(RECOVERY[0])(i + 4), 4)).count("accepted") == 1


@pytest.mark.parametrize("storage", STORAGES)
def test_wrong_codes_are_limited_per_account_and_client_atomically(db, provider, clock, monkeypatch, storage):
    use_storage(monkeypatch, storage)
    admin = _staff(db, provider, f"limite-{storage}@correo.cl")
    enrol_staff(db, admin.uid)
    wrong = "999999" if _code(NOW) != "999999" else "888888"
    tokens = [_pending(db, admin) for _ in range(7)]

    def guess(i: int) -> str:
        with Session(get_engine(), expire_on_commit=False) as session:
            try:
                _verify(session, admin, tokens[i], wrong, client="ataque")
            except AuthError as exc:
                return exc.code
            except InvalidInputError:
                return "wrong"
        return "accepted"

    answers = at_once(guess, 6)
    assert sorted(answers) == ["too-many-requests"] * 3 + ["wrong"] * 3
    # Even the right code waits now from that client; the owner elsewhere is not locked out.
    assert _message(lambda: _verify(db, admin, tokens[6], _code(NOW), client="ataque")).startswith("Demasiados")
    _verify(db, admin, tokens[6], _code(NOW), client="oficina")
    assert check_session(db, tokens[6]).actor is not None


def test_an_administrator_resets_another_staff_member_audited_and_mailed(db, provider, mailbox, clock):
    admin = _staff(db, provider, "admin@correo.cl")
    secretary = _staff(db, provider, "secre@correo.cl", ProfileId.SECRETARIA)
    enrol_staff(db, secretary.uid, recovery_codes=RECOVERY)
    live = open_session(db, secretary.uid)
    two_factor.reset_second_factor(session=db, actor=actor_of(admin), user_uid=secretary.uid)
    db.expire_all()
    assert db.get(StaffSecondFactor, secretary.uid) is None
    assert db.exec(select(RecoveryCode).where(RecoveryCode.user_uid == secretary.uid)).all() == []
    assert check_session(db, live).actor is None and check_session(db, live).pending is None  # signed out
    entry = db.exec(select(AuditEntry).where(AuditEntry.entity_uid == secretary.uid)).one()
    assert (entry.actor_uid, entry.action, entry.entity) == (admin.uid, "restablecer_segundo_factor", "usuarios")
    assert json.loads(entry.after_json) == {"segundo_factor": "sin configurar"}
    wait_until_sent()
    (message,) = mailbox.to(secretary.email)
    assert "segundo factor" in str(make_header(decode_header(message["Subject"])))  # as a mail client reads it
    # Next sign-in: the setup again.
    assert two_factor.status(session=db, user_uid=secretary.uid) == two_factor.SETUP


def test_a_refused_reset_changes_nothing_and_mails_nobody(db, provider, mailbox, clock):
    admin = _staff(db, provider, "admin2@correo.cl")
    enrol_staff(db, admin.uid, recovery_codes=RECOVERY)
    secretary = _staff(db, provider, "secre2@correo.cl", ProfileId.SECRETARIA)
    enrol_staff(db, secretary.uid)
    with pytest.raises(ConflictError) as own:
        two_factor.reset_second_factor(session=db, actor=actor_of(admin), user_uid=admin.uid)
    assert "código de recuperación" in own.value.message
    with pytest.raises(ForbiddenError):  # a secretary resets nobody's
        two_factor.reset_second_factor(session=db, actor=actor_of(secretary), user_uid=admin.uid)
    token = open_session(db, admin.uid)

    def own_reset(code: str) -> None:
        two_factor.reset_own_with_recovery_code(
            session=db, actor=actor_of(admin), token_hash=digest(token), code=code, client_hash="c"
        )

    # Their own, only with a recovery code: a code of the app is not enough.
    assert _message(lambda: own_reset(_code(NOW))) == two_factor.RECOVERY_ONLY
    db.expire_all()
    assert db.get(StaffSecondFactor, admin.uid) is not None
    assert db.exec(select(AuditEntry)).all() == []
    wait_until_sent()
    assert mailbox.to(admin.email) == [] and mailbox.to(secretary.email) == []
    other = open_session(db, admin.uid)
    own_reset(RECOVERY[1])
    db.expire_all()
    assert db.get(StaffSecondFactor, admin.uid) is None
    assert check_session(db, token).pending is not None  # this browser goes on to the setup
    assert check_session(db, other).pending is None and check_session(db, other).actor is None  # others end
    assert db.exec(select(AuditEntry).where(AuditEntry.entity_uid == admin.uid)).one().actor_uid == admin.uid
    wait_until_sent()
    assert len(mailbox.to(admin.email)) == 1


def test_check_second_factor_for_a_staff_account_deletion(db, provider, clock):
    admin = _staff(db, provider, "borrar@correo.cl")
    enrol_staff(db, admin.uid, recovery_codes=RECOVERY)
    with pytest.raises(InvalidInputError) as wrong:
        two_factor.check_second_factor(db, admin, "123")
    assert wrong.value.message == two_factor.WRONG_CODE
    two_factor.check_second_factor(db, admin, _code(NOW))
    db.commit()
    with pytest.raises(InvalidInputError):  # the same code does not serve twice
        two_factor.check_second_factor(db, admin, _code(NOW))
    two_factor.check_second_factor(db, actor_of(admin), RECOVERY[0])
    unset = _staff(db, provider, "sin-factor@correo.cl")
    with pytest.raises(InvalidInputError):
        two_factor.check_second_factor(db, unset, _code(NOW))


def test_a_password_change_keeps_the_passed_second_factor(db, provider, clock):
    admin = _staff(db, provider, "clave@correo.cl")
    token = open_session(db, admin.uid)
    state, _ = client_states(PasswordDialogState, token)
    events = invoke(
        state,
        "change_password",
        form_data={
            "current_password": PASSWORD,
            "new_password": "otra-clave-patagonia-9",
            "new_password_confirm": "otra-clave-patagonia-9",
        },
    )
    renewed = exchange_ticket(db, ticket_in(events))
    assert check_session(db, renewed).actor == actor_of(admin)


def test_the_pages_handlers_walk_the_steps_and_keep_secrets_out_of_the_state(db, provider, clock):
    admin = _staff(db, provider, "pantalla@correo.cl")
    state, _ = client_states(LoginState, "")
    invoke(state, "load")
    events = invoke(state, "sign_in", form_data={"email": admin.email, "password": PASSWORD})
    assert json.dumps(SECOND_FACTOR) in script_of(events)  # staff go on to the second factor
    token = exchange_ticket(db, ticket_in(events))

    page, _ = client_states(SecondFactorState, token)
    events = invoke(page, "load")
    assert page.step == "configurar"
    secret = db.get(StaffSecondFactor, admin.uid)
    plain = two_factor.begin_setup(session=db, actor=actor_of(admin)).secret
    assert plain in script_of(events) and "createElementNS" in script_of(events)
    events = invoke(page, "confirm", form_data={"code": _code(NOW, plain.replace(" ", ""))})
    assert page.step == "codigos" and page.error == ""
    codes = json.loads(script_of(events).split("const d = ", 1)[1].split("; let tries", 1)[0])["codes"]
    assert len(codes) == 10
    held = json.dumps({name: repr(getattr(page, name)) for name in page.base_vars})
    assert plain not in held and plain.replace(" ", "") not in held and not any(c in held for c in codes)
    assert secret is not None
    assert db.get(UserSession, digest(token)).second_factor_at is not None

    # Next sign-in: the code step; a wrong code says so under the field, a right one lands.
    second = open_session(db, admin.uid, second_factor=False)
    page, _ = client_states(SecondFactorState, second)
    invoke(page, "load")
    assert page.step == "verificar"
    invoke(page, "verify", form_data={"code": "12"})
    assert page.field_errors == {"code": two_factor.WRONG_CODE}
    clock.now = NOW + timedelta(seconds=30)
    events = invoke(page, "verify", form_data={"code": _code(clock.now, plain.replace(" ", ""))})
    assert check_session(db, second).actor == actor_of(admin)
    assert "/admin/escorts" in str(events)


def test_with_firebase_the_second_factor_is_ours_on_top(db, firebase_provider, clock):
    secretary = make_account(
        db, firebase_provider, "fb-secre@correo.cl", profile=ProfileId.SECRETARIA, password=PASSWORD
    )
    enrol_staff(db, secretary.uid)
    signed = accounts.sign_in(
        session=db,
        provider=firebase_provider,
        settings=get_settings(),
        email=secretary.email,
        password=PASSWORD,
        client_hash="c",
    )
    token = exchange_ticket(db, signed.ticket)
    assert check_session(db, token).actor is None and check_session(db, token).pending == actor_of(secretary)
    assert _message(lambda: _verify(db, secretary, token, "000000" if _code(NOW) != "000000" else "1")) != "accepted"
    _verify(db, secretary, token, _code(NOW))
    assert check_session(db, token).actor == actor_of(secretary)


def test_a_staff_account_deletion_asks_the_real_second_factor(db, provider, clock, tmp_path):
    """The privacy helper's deletion (issue 20 §2) checks the code through check_second_factor."""
    from app.services import privacy
    from app.storage.local import LocalStorage, PrivateLocalStorage

    _staff(db, provider, "queda@correo.cl")
    secretary = _staff(db, provider, "se-va@correo.cl", ProfileId.SECRETARIA)
    enrol_staff(db, secretary.uid, recovery_codes=RECOVERY)

    def delete(code: str) -> None:
        privacy.delete_account(
            session=db,
            provider=provider,
            storage=LocalStorage(tmp_path / "media"),
            private_storage=PrivateLocalStorage(tmp_path / "private"),
            actor=actor_of(secretary),
            password=PASSWORD,
            code=code,
            client_hash="c",
        )

    with pytest.raises(InvalidInputError) as wrong:
        delete("000000" if _code(NOW) != "000000" else "111111")
    assert wrong.value.fields == {"code": two_factor.WRONG_CODE}
    db.expire_all()
    assert db.get(User, secretary.uid) is not None
    delete(_code(NOW))
    db.expire_all()
    assert db.get(User, secretary.uid) is None
    assert db.get(StaffSecondFactor, secretary.uid) is None
    assert db.exec(select(RecoveryCode).where(RecoveryCode.user_uid == secretary.uid)).all() == []
