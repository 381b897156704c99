"""Abuse limits that hold under concurrency, the e-mails they cap, answers that tell nothing, the security log.

Concurrent calls are released together (threads behind a barrier), and those
tests run once per counter storage: this process's memory, and Redis (a
database of the test run's own). Tests that move time forward do it on the
counters' clock (tests.abuse.Clock), never by sleeping.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import threading
import time
from email.header import decode_header, make_header

import pytest
from aiosmtpd.controller import Controller
from reflex.istate.data import SessionData
from sqlmodel import Session, select

from app.core import proof_of_work
from app.core.actor import Actor
from app.core.errors import RateLimitedError
from app.db import get_engine
from app.identity import local
from app.identity.errors import AUTH_MESSAGES, AuthError, ProofRequired
from app.identity.local import LocalProvider
from app.identity.sessions import digest, resolve_session
from app.identity.throttle import SIGN_UPS_PER_CLIENT
from app.models import LocalCredential, ProfileId, Report, User
from app.services import accounts
from app.services.abuse import Rule, client_key, limiter
from app.services.reports import create_report
from app.settings import get_settings
from app.states import account as account_state
from app.states.account import LoginState
from app.states.report import ReportState
from tests.abuse import STORAGES, at_once, install_clock, redirect_paths, use_storage
from tests.factories import actor_of, make_account, open_session
from tests.handlers import client_states, invoke, run_async
from tests.mailbox import LINK, Mailbox
from tests.ports import free_port
from tests.waits import wait_until_sent

PASSWORD = "bosque-valdiviano-31"
REPORT = {"kind": "menor", "message": "Creo que la persona del aviso es menor de edad, por las fotos y el texto."}


@pytest.fixture(params=STORAGES)
def storage(request, app_database, monkeypatch) -> str:
    """Empty counters in memory, then in Redis."""
    use_storage(monkeypatch, request.param)
    return request.param


@pytest.fixture
def memory_counters(app_database, monkeypatch) -> None:
    use_storage(monkeypatch, "memory")


def _form(email: str, password: str = PASSWORD) -> dict:
    return {"email": email, "password": password, "password_confirm": password, "profile": "cliente", "adult": True}


def _sign_up(provider, email: str, client: str = "cliente-1", password: str = PASSWORD):
    with Session(get_engine(), expire_on_commit=False) as session:
        return accounts.sign_up(session=session, provider=provider, data=_form(email, password), client_hash=client)


def _sign_in(provider, email: str, password: str = PASSWORD, client: str = "cliente-1"):
    with Session(get_engine(), expire_on_commit=False) as session:
        return accounts.sign_in(
            session=session,
            provider=provider,
            settings=get_settings(),
            email=email,
            password=password,
            client_hash=client,
        )


def _refusal(call) -> str:
    """The AuthError code ``call`` raises ("" when it raises nothing)."""
    try:
        call()
    except AuthError as exc:
        return exc.code
    return ""


def _links(mailbox: Mailbox, address: str, mode: str) -> list[str]:
    wait_until_sent()
    found = []
    for message in mailbox.to(address):
        found += [link for link in LINK.findall(message.get_payload(decode=True).decode()) if f"mode={mode}" in link]
    return found


def _code(link: str) -> str:
    return link.split("oobCode=")[1]


class CountingProvider(LocalProvider):
    """The local provider, counting the password checks that reach it."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._checks = [0]  # shared with the copies bound() makes for each operation
        self._lock = threading.Lock()

    @property
    def checks(self) -> int:
        return self._checks[0]

    def _count(self) -> None:
        with self._lock:
            self._checks[0] += 1

    def sign_in(self, **kwargs):
        self._count()
        return super().sign_in(**kwargs)

    def change_password(self, **kwargs):
        self._count()
        return super().change_password(**kwargs)


# --- 1. verification e-mails ---------------------------------------------------------


def test_an_unverified_account_gets_a_new_link_at_most_every_ten_minutes_and_five_a_day(
    provider, mailbox, storage, monkeypatch
):
    clock = install_clock(monkeypatch)
    email = f"lenta-{storage}@correo.cl"  # the mailbox serves the whole run
    _sign_up(provider, email)  # the first link
    answers = [_refusal(lambda: _sign_in(provider, email)) for _ in range(3)]
    for _ in range(5):
        clock.advance(601)
        answers += [_refusal(lambda: _sign_in(provider, email)) for _ in range(2)]
    assert (
        answers
        == ["email-not-verified"] * 3
        + ["email-not-verified-resent", "email-not-verified"] * 4
        + ["email-not-verified"] * 2
    )  # the fifth e-mail of the day was the sign-up's
    assert len(_links(mailbox, email, "verifyEmail")) == 5
    clock.advance(86_400)
    assert _refusal(lambda: _sign_in(provider, email)) == "email-not-verified-resent"
    assert len(_links(mailbox, email, "verifyEmail")) == 6
    # The words say what happened: only the second one promises a new link.
    assert "enlace nuevo" not in AUTH_MESSAGES["email-not-verified"]
    assert "te enviamos un enlace nuevo" in AUTH_MESSAGES["email-not-verified-resent"]


def test_concurrent_sign_ins_of_an_unverified_account_send_one_link(provider, mailbox, storage, monkeypatch):
    clock = install_clock(monkeypatch)
    email = f"simultanea-{storage}@correo.cl"
    _sign_up(provider, email)
    clock.advance(601)
    answers = at_once(lambda i: _refusal(lambda: _sign_in(provider, email, client=f"c{i}")), 6)
    assert sorted(answers) == ["email-not-verified"] * 5 + ["email-not-verified-resent"]
    assert len(_links(mailbox, email, "verifyEmail")) == 2


def test_older_verification_links_stop_working_once_the_address_is_verified(
    provider, mailbox, memory_counters, monkeypatch
):
    clock = install_clock(monkeypatch)
    _sign_up(provider, "dos-enlaces@correo.cl")
    clock.advance(601)
    _refusal(lambda: _sign_in(provider, "dos-enlaces@correo.cl"))
    first, second = _links(mailbox, "dos-enlaces@correo.cl", "verifyEmail")
    assert provider.confirm_email(code=_code(second)) == "dos-enlaces@correo.cl"
    with pytest.raises(AuthError) as stale:
        provider.confirm_email(code=_code(first))
    assert stale.value.code == "invalid-action-code"
    # A reset link proves the address too: the verification link of the sign-up dies with it.
    _sign_up(provider, "por-reset@correo.cl")
    accounts.request_password_reset(provider=provider, email="por-reset@correo.cl")
    [verify] = _links(mailbox, "por-reset@correo.cl", "verifyEmail")
    [reset] = _links(mailbox, "por-reset@correo.cl", "resetPassword")
    provider.confirm_password_reset(code=_code(reset), new_password="clave-nueva-de-reset-5")
    with pytest.raises(AuthError) as after_reset:
        provider.confirm_email(code=_code(verify))
    assert after_reset.value.code == "invalid-action-code"


# --- 2. sign-up limits and the argon2 pool ---------------------------------------------


def test_sign_ups_per_client_hold_under_concurrency(provider, storage):
    answers = at_once(lambda i: _refusal(lambda: _sign_up(provider, f"alta{i}@correo.cl", client="granja")), 14)
    # Past the client's ten an hour, a proof of work is asked for instead.
    assert sorted(answers) == [""] * 10 + ["proof-required"] * 4
    with Session(get_engine()) as session:
        assert len(session.exec(select(User)).all()) == 10
    assert _refusal(lambda: _sign_up(provider, "otra-red@correo.cl", client="vecina")) == ""


def test_sign_ups_per_address_hold_under_concurrency(provider, storage):
    answers = at_once(lambda i: _refusal(lambda: _sign_up(provider, "una-sola@correo.cl", client=f"red-{i}")), 7)
    assert sorted(answers) == [""] * 5 + ["too-many-requests"] * 2
    with Session(get_engine()) as session:
        assert len(session.exec(select(LocalCredential)).all()) == 1
        assert len(session.exec(select(User)).all()) == 1


def test_the_too_many_sign_ups_message_says_how_long_to_wait(provider, memory_counters):
    for index in range(5):
        _sign_up(provider, "espera@correo.cl", client=f"red-{index}")
    with pytest.raises(AuthError) as refused:
        _sign_up(provider, "espera@correo.cl", client="otra-red")
    assert refused.value.message.startswith("Demasiados intentos. Por seguridad, espera ")
    assert "horas antes de volver a intentarlo." in refused.value.message


@pytest.fixture
def easy_proofs(app_database, monkeypatch) -> None:
    """Proofs of 8 zero bits (256 tries) and empty counters in memory."""
    monkeypatch.setenv("SIGN_UP_PROOF_BITS", "8")
    use_storage(monkeypatch, "memory")


def _users_named(prefix: str) -> int:
    with Session(get_engine()) as session:
        return len([u for u in session.exec(select(User)).all() if u.email.startswith(prefix)])


def _asked(call) -> str:
    """The challenge a ProofRequired refusal carries (fails the test on any other outcome)."""
    with pytest.raises(ProofRequired) as asked:
        call()
    assert asked.value.message == AUTH_MESSAGES["proof-required"]
    return asked.value.challenge


def test_past_the_client_limit_a_sign_up_brings_a_proof_of_work_once(provider, easy_proofs, caplog):
    def sign_up(email: str, proof: str = ""):
        with Session(get_engine(), expire_on_commit=False) as session:
            return accounts.sign_up(
                session=session, provider=provider, data=_form(email), client_hash="cafe", proof=proof
            )

    for index in range(10):
        sign_up(f"vecina{index}@correo.cl")
    # The eleventh from the same address is asked for a proof, not refused: nothing is created.
    with caplog.at_level(logging.WARNING, logger="app.identity.throttle"):
        challenge = _asked(lambda: sign_up("once@correo.cl"))
    assert "proof of work missing or invalid" in caplog.text
    assert _users_named("once") == 0
    # A wrong answer, or one to a challenge the server did not sign, is asked again.
    _asked(lambda: sign_up("once@correo.cl", proof=f"{challenge}~x"))
    forged = challenge.replace(".8.", ".1.", 1)
    _asked(lambda: sign_up("once@correo.cl", proof=f"{forged}~{proof_of_work.solve(forged)}"))
    # The browser's answer lets it through.
    proof = f"{challenge}~{proof_of_work.solve(challenge)}"
    assert sign_up("once@correo.cl", proof=proof).email == "once@correo.cl"
    # The same proof a second time is spent: a new challenge, nobody created.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="app.identity.throttle"):
        again = _asked(lambda: sign_up("doce@correo.cl", proof=proof))
    assert again != challenge and "already used" in caplog.text
    assert _users_named("doce") == 0
    assert sign_up("doce@correo.cl", proof=f"{again}~{proof_of_work.solve(again)}").email == "doce@correo.cl"
    # Another address is not affected.
    assert _refusal(lambda: _sign_up(provider, "otra-red@correo.cl", client="vecina")) == ""


def test_a_proof_of_work_does_not_lift_the_limit_per_e_mail_address(provider, easy_proofs):
    for index in range(10):
        _sign_up(provider, f"relleno{index}@correo.cl", client="oficina")
    for index in range(5):
        _sign_up(provider, "misma@correo.cl", client=f"casa-{index}")
    challenge = _asked(lambda: _sign_up(provider, "otra@correo.cl", client="oficina"))
    with Session(get_engine(), expire_on_commit=False) as session, pytest.raises(AuthError) as refused:
        accounts.sign_up(
            session=session,
            provider=provider,
            data=_form("misma@correo.cl"),
            client_hash="oficina",
            proof=f"{challenge}~{proof_of_work.solve(challenge)}",
        )
    assert refused.value.code == "too-many-requests"


def test_the_sign_up_form_asks_the_browser_for_a_proof_and_takes_it(provider, mailbox, easy_proofs):
    """Through the handler, as a browser behind a carrier's shared address: asked, answered, replay refused."""
    shared = "200.14.5.9"
    key = client_key(shared, get_settings().secret_key)
    for _ in range(10):
        assert limiter().hit([(SIGN_UPS_PER_CLIENT, key)]) == 0.0

    def form_state():
        state, _ = client_states(LoginState)
        state.rx_router_session = SessionData(client_ip=shared)
        invoke(state, "load")
        return state

    state = form_state()
    form = {**_form("movil@correo.cl"), "adult": "on"}
    events = invoke(state, "sign_up", form_data={**form, "prueba": ""})
    assert redirect_paths(events) == [] and state.error == AUTH_MESSAGES["proof-required"]
    challenge = state.proof_challenge
    assert challenge and not state.busy and _users_named("movil") == 0
    proof = f"{challenge}~{proof_of_work.solve(challenge)}"
    events = invoke(state, "sign_up", form_data={**form, "prueba": proof})
    assert redirect_paths(events) == ["/login/auth/signup-sucessful"]
    assert (state.error, state.proof_challenge) == ("", "")
    assert _users_named("movil") == 1
    # Replayed by another tab: asked again with a new challenge.
    replay = form_state()
    events = invoke(replay, "sign_up", form_data={**_form("copia@correo.cl"), "adult": "on", "prueba": proof})
    assert redirect_paths(events) == [] and replay.proof_challenge not in ("", challenge)
    assert _users_named("copia") == 0


def test_argon2_runs_at_most_two_at_a_time(monkeypatch):
    active, most = 0, 0
    lock = threading.Lock()

    class Hasher:
        def hash(self, password: str) -> str:
            nonlocal active, most
            with lock:
                active += 1
                most = max(most, active)
            time.sleep(0.05)  # the work of one hash
            with lock:
                active -= 1
            return "hash"

    monkeypatch.setattr(local, "_hasher", Hasher)
    assert at_once(lambda i: local._hash("x"), 8) == ["hash"] * 8
    assert most == local.ARGON2_WORKERS == 2


def test_a_sign_up_flood_leaves_the_session_checks_their_threads(app_database, provider, memory_counters, monkeypatch):
    with Session(get_engine(), expire_on_commit=False) as session:
        user = make_account(session, provider, "activa@correo.cl", profile=ProfileId.CLIENTE)
        token = open_session(session, user.uid)
    release = threading.Event()

    class SlowHasher:
        def hash(self, password: str) -> str:
            release.wait(60)  # argon2 busy for as long as the flood lasts
            return "hash"

    monkeypatch.setattr(local, "_hasher", SlowHasher)

    def check_session() -> str:
        with Session(get_engine()) as session:
            return resolve_session(session=session, token_hash=digest(token), idle_days=7).actor.uid

    async def flood_then_check() -> str:
        flood = [
            asyncio.ensure_future(
                account_state._off_loop(accounts.sign_up, data=_form(f"flood{i}@correo.cl"), client_hash=f"bot-{i}")
            )
            for i in range(20)
        ]
        await asyncio.sleep(0)  # every sign-up is now waiting for a thread or for argon2
        try:
            # What every guarded action does first: check its session on a shared thread.
            return await asyncio.wait_for(asyncio.to_thread(check_session), timeout=10)
        finally:
            release.set()
            await asyncio.gather(*flood, return_exceptions=True)

    assert run_async(flood_then_check()) == user.uid


# --- 3. password changes ---------------------------------------------------------------


def test_a_wrong_current_password_counts_as_a_failed_sign_in(db, app_database, memory_counters):
    counting = CountingProvider(engine=get_engine())
    user = make_account(db, counting, "cambiante@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    actor = actor_of(user)

    def change(current: str) -> str:
        return _refusal(
            lambda: accounts.change_password(
                session=db,
                provider=counting,
                actor=actor,
                current_password=current,
                new_password="clave-nueva-del-todo-8",
                confirm_password="clave-nueva-del-todo-8",
                client_hash="ladron",
            )
        )

    assert [change("adivina-1"), change("adivina-2"), change("adivina-3")] == ["wrong-password"] * 3
    assert change(PASSWORD) == "too-many-requests"
    assert _refusal(lambda: _sign_in(counting, "cambiante@correo.cl", client="ladron")) == "too-many-requests"
    assert counting.checks == 3
    assert _sign_in(counting, "cambiante@correo.cl", client="casa").actor.uid == user.uid


def test_the_owner_is_e_mailed_when_the_password_changes(db, provider, mailbox, memory_counters):
    user = make_account(db, provider, "avisada@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    actor = actor_of(user)
    accounts.change_password(
        session=db,
        provider=provider,
        actor=actor,
        current_password=PASSWORD,
        new_password="glaciar-san-rafael-4",
        confirm_password="glaciar-san-rafael-4",
        client_hash="casa",
    )
    accounts.request_password_reset(provider=provider, email="avisada@correo.cl")
    [reset] = _links(mailbox, "avisada@correo.cl", "resetPassword")
    accounts.reset_password(
        session=db,
        provider=provider,
        code=_code(reset),
        new_password="laguna-del-laja-77",
        confirm_password="laguna-del-laja-77",
    )
    wait_until_sent()
    subject = f"Tu contraseña de {get_settings().site_name} cambió"
    notices = [m for m in mailbox.to("avisada@correo.cl") if str(make_header(decode_header(m["Subject"]))) == subject]
    assert len(notices) == 2  # the change and the reset
    for notice in notices:
        body = notice.get_payload(decode=True).decode()
        assert "acaba de cambiar" in body and "/login?modo=recuperar" in body
        for password in (PASSWORD, "glaciar-san-rafael-4", "laguna-del-laja-77"):
            assert password not in body


# --- 5. counters that hold under concurrency ----------------------------------------------


def test_concurrent_reports_from_one_client_pass_the_limit_exactly(app_database, storage):
    def send(_index: int) -> str:
        with Session(get_engine()) as session:
            try:
                create_report(session=session, data=REPORT, client_key="un-cliente", seconds_on_form=10)
            except RateLimitedError:
                return "refused"
        return "stored"

    assert sorted(at_once(send, 10)) == ["refused"] * 7 + ["stored"] * 3
    with Session(get_engine()) as session:
        assert len(session.exec(select(Report)).all()) == 3


def test_concurrent_takes_of_a_once_a_day_count_let_exactly_one_through(storage):
    once = Rule("prueba-una-vez", 1, 26 * 3600)
    limiter()  # built here, not by ten threads at once
    taken = at_once(lambda _index: limiter().take(once, "vista/aviso/visitante/2026-11-27"), 10)
    assert sorted(taken) == [False] * 9 + [True]
    assert limiter().take(once, "vista/otro-aviso/visitante/2026-11-27")  # another key has its own count


def test_concurrent_wrong_passwords_reach_the_check_at_most_the_limit(db, app_database, storage):
    counting = CountingProvider(engine=get_engine())
    make_account(db, counting, "blanco@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    answers = at_once(
        lambda i: _refusal(lambda: _sign_in(counting, "blanco@correo.cl", "adivina-123", client="ataque")), 6
    )
    assert sorted(answers) == ["invalid-credential"] * 3 + ["too-many-requests"] * 3
    assert counting.checks == 3


class RefusingProvider:
    """Stands in for a provider whose every password check fails, counting the checks."""

    def __init__(self) -> None:
        self.checks = 0
        self._lock = threading.Lock()

    def sign_in(self, *, email: str, password: str):
        with self._lock:
            self.checks += 1
        raise AuthError("invalid-credential")


def test_concurrent_stuffing_from_one_client_reaches_the_check_at_most_the_ceiling(app_database, storage):
    refusing = RefusingProvider()
    answers = at_once(lambda i: _refusal(lambda: _sign_in(refusing, f"lista{i}@correo.cl", client="relleno")), 40)
    assert sorted(answers) == ["invalid-credential"] * 30 + ["too-many-requests"] * 10
    assert refusing.checks == 30


def test_the_report_form_counts_an_ipv6_client_by_its_64(app_database, memory_counters):
    answers = []
    for address in ("2800:150:1:2::1", "2800:150:1:2::2", "2800:150:1:2::abcd:1", "2800:150:1:2:ffff:ffff:ffff:fffe"):
        state, _ = client_states(ReportState)
        state.rx_router_session = SessionData(client_ip=address)
        state._shown_at = time.monotonic() - 60
        invoke(state, "submit", form_data=REPORT)
        answers.append(state.sent)
    assert answers == [True, True, True, False]  # one household, four addresses, one limit
    with Session(get_engine()) as session:
        assert {r.client_hash for r in session.exec(select(Report)).all()} == {
            client_key("2800:150:1:2::1", get_settings().secret_key)
        }


# --- 6. nothing tells whether an address has an account ------------------------------------


def test_a_sign_up_for_a_used_address_gets_the_answer_of_a_new_one(db, provider, mailbox, memory_counters):
    make_account(db, provider, "usada@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    seen = []
    for email in ("nuevecita@correo.cl", "usada@correo.cl"):
        state, _ = client_states(LoginState)
        invoke(state, "load")
        events = invoke(state, "sign_up", form_data={**_form(email, "otra-clave-cualquiera-1"), "adult": "on"})
        seen.append((redirect_paths(events), state.error, state.pending_email == email, state.busy))
    assert seen[0] == seen[1] == (["/login/auth/signup-sucessful"], "", True, False)
    wait_until_sent()
    # The owner of the used address is told, and pointed at the reset form; nothing changed.
    [notice] = mailbox.to("usada@correo.cl")
    body = notice.get_payload(decode=True).decode()
    assert "ya tienes una" in body and "/login?modo=recuperar" in body and "otra-clave-cualquiera-1" not in body
    assert _links(mailbox, "usada@correo.cl", "verifyEmail") == []
    assert _links(mailbox, "nuevecita@correo.cl", "verifyEmail")
    assert _sign_in(provider, "usada@correo.cl", client="duena").actor.email == "usada@correo.cl"


def test_sign_ups_for_used_and_new_addresses_take_about_as_long(real_argon2, db, provider, memory_counters):
    # The real argon2: its cost, paid on both paths, is what makes them take as long.
    runs = 7
    for index in range(runs):
        make_account(db, provider, f"tiene{index}@correo.cl", profile=ProfileId.CLIENTE)

    def timed(email: str, client: str) -> float:
        started = time.perf_counter()
        _sign_up(provider, email, client=client)
        return time.perf_counter() - started

    # Alternated, so a burst of load on the shared machine hits both kinds alike.
    used, new = [], []
    for i in range(runs):
        used.append(timed(f"tiene{i}@correo.cl", f"u{i}"))
        new.append(timed(f"libre{i}@correo.cl", f"n{i}"))
    ratio = statistics.median(used) / statistics.median(new)
    assert 1 / 3 < ratio < 3, (used, new)


class SlowMailbox(Mailbox):
    """A mail server that takes half a second to accept each message."""

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(0.5)
        return await super().handle_DATA(server, session, envelope)


def test_reset_requests_take_the_same_time_for_known_and_unknown_addresses(db, provider, memory_counters, monkeypatch):
    box = SlowMailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("SMTP_PORT", str(controller.port))
        monkeypatch.setenv("SMTP_STARTTLS", "false")
        get_settings.cache_clear()
        for index in range(5):
            make_account(db, provider, f"conocida{index}@correo.cl", profile=ProfileId.CLIENTE)

        def timed(email: str) -> float:
            started = time.perf_counter()
            accounts.request_password_reset(provider=provider, email=email)
            return time.perf_counter() - started

        known = statistics.median(timed(f"conocida{i}@correo.cl") for i in range(5))
        unknown = statistics.median(timed(f"desconocida{i}@correo.cl") for i in range(5))
        assert abs(known - unknown) < 0.2, (known, unknown)  # the server's half second is not in either
        wait_until_sent(timeout=60)
        assert all(len(box.to(f"conocida{i}@correo.cl")) == 1 for i in range(5))
    finally:
        controller.stop()


# --- 7. the security log ----------------------------------------------------------------------


def test_security_events_are_logged_masked_and_without_secrets(db, provider, memory_counters, caplog):
    user = make_account(db, provider, "camila@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)
    admin = make_account(db, provider, "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    client = client_key("200.1.2.3", get_settings().secret_key)
    with caplog.at_level(logging.INFO):
        for guess in ("intento-secreto-1", "intento-secreto-2", "intento-secreto-3", "intento-secreto-4"):
            _refusal(lambda guess=guess: _sign_in(provider, "camila@correo.cl", guess, client=client))
        signed = _sign_in(provider, "camila@correo.cl", client="otra")
        accounts.set_ban(
            session=db,
            provider=provider,
            actor=Actor(uid=admin.uid, email=admin.email, display_name="", profile_uid=admin.profile_uid),
            user_uid=user.uid,
            banned=True,
        )
    failure = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("sign-in failed"))
    assert "ca***@correo.cl" in failure and user.uid in failure and client in failure
    assert any(r.getMessage().startswith("sign-in throttled for ca***@correo.cl") for r in caplog.records)
    assert any(f"user {user.uid} banned by {admin.uid}" in r.getMessage() for r in caplog.records)
    for secret in ("camila@correo.cl", "jefa@correo.cl", PASSWORD, "intento-secreto", signed.ticket):
        assert secret not in caplog.text
