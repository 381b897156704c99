"""The abuse-limit building blocks: masked e-mails, waits in Spanish, the client key, the limiter and the sign-in rules."""

from __future__ import annotations

import pytest

from app.core.text import mask_email, spanish_duration
from app.identity import throttle
from app.identity.errors import AUTH_MESSAGES, AuthError
from app.services.abuse import LimiterUnavailable, Rule, client_key, limiter
from app.settings import get_settings
from tests.abuse import install_clock, use_storage
from tests.ports import free_port

SECRET = "s" * 40


@pytest.mark.parametrize(
    ("email", "masked"),
    [
        ("camila@correo.cl", "ca***@correo.cl"),
        ("Ana@Correo.CL", "A***@Correo.CL"),
        ("ab@x.cl", "a***@x.cl"),
        ("a@b.cl", "***@b.cl"),
        ("raro@sub@dominio.cl", "ra***@dominio.cl"),
        ("sin-arroba", "***"),
        ("", "***"),
        (None, "***"),
    ],
)
def test_mask_email_keeps_at_most_two_letters_and_the_domain(email, masked):
    assert mask_email(email) == masked


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "1 segundo"),
        (0.2, "1 segundo"),
        (1, "1 segundo"),
        (1.5, "2 segundos"),
        (59, "59 segundos"),
        (60, "1 minuto"),
        (61, "2 minutos"),
        (900, "15 minutos"),
        (3601, "61 minutos"),
        (7200, "2 horas"),
        (86_400, "24 horas"),
    ],
)
def test_spanish_duration_rounds_up(seconds, text):
    assert spanish_duration(seconds) == text


def test_a_wait_goes_into_the_too_many_requests_message():
    error = AuthError("too-many-requests", wait_seconds=8)
    assert error.code == "too-many-requests"
    assert error.message == "Demasiados intentos. Por seguridad, espera 8 segundos antes de volver a intentarlo."
    assert AuthError("too-many-requests").message == AUTH_MESSAGES["too-many-requests"]


def test_the_client_key_is_the_ipv4_address_or_the_ipv6_64():
    key = client_key("200.1.2.3", SECRET)
    assert key == client_key(" 200.1.2.3 ", SECRET) == client_key("::ffff:200.1.2.3", SECRET)
    assert key != client_key("200.1.2.4", SECRET)
    assert key != client_key("200.1.2.3", "otro-secreto")
    assert "200.1.2.3" not in key and len(key) == 64
    # One household's /64 is one client, whatever address it picks inside it.
    home = client_key("2800:150:1:2::1", SECRET)
    assert home == client_key("2800:150:1:2:ffff:ffff:ffff:fffe", SECRET) == client_key("2800:150:1:2::1%eth0", SECRET)
    assert home != client_key("2800:150:1:3::1", SECRET)
    assert client_key("", SECRET) == client_key("", SECRET) != client_key("desconocido", SECRET)


@pytest.fixture
def clock(monkeypatch):
    use_storage(monkeypatch, "memory")
    return install_clock(monkeypatch)


def test_a_list_of_rules_is_hit_whole_or_not_at_all(clock):
    wide, narrow = Rule("prueba-ancha", 5, 60), Rule("prueba-estrecha", 1, 10)
    assert limiter().hit([(wide, "k"), (narrow, "k")]) == 0
    assert limiter().hit([(wide, "k"), (narrow, "k")]) == pytest.approx(10, abs=1)
    clock.advance(11)
    for _ in range(4):
        assert limiter().hit([(wide, "k")]) == 0  # the refused hit above took nothing from the wide rule
    assert limiter().hit([(wide, "k")]) > 0


def test_refundable_rules_give_a_hit_back_and_clear_forgets(clock):
    ceiling, moving = Rule("prueba-techo", 2, 3600, refundable=True), Rule("prueba-movil", 2, 3600)
    for _ in range(2):
        assert limiter().hit([(ceiling, "k"), (moving, "k")]) == 0
    assert limiter().hit([(ceiling, "k")]) > 0
    limiter().refund([(ceiling, "k"), (moving, "k")])
    assert limiter().hit([(ceiling, "k")]) == 0
    assert limiter().hit([(moving, "k")]) > 0  # a moving window keeps its hits
    limiter().clear([(moving, "k")])
    assert limiter().hit([(moving, "k")]) == 0


def _guess(email: str, client: str, *, right: bool = False) -> str:
    """One password check through the sign-in limits: "ok", "wrong", or the refusal's wait in seconds."""
    try:
        with throttle.password_check(email=email, client=client, secret=SECRET):
            if not right:
                raise AuthError("invalid-credential")
    except AuthError as exc:
        if exc.code == "too-many-requests":
            return f"wait {exc.wait_seconds:.0f}"
        return "wrong"
    return "ok"


def test_three_free_failures_then_doubling_delays(clock):
    assert [_guess("ana@correo.cl", "c1") for _ in range(3)] == ["wrong"] * 3
    assert _guess("ana@correo.cl", "c1", right=True) == "wait 2"  # even the right password waits
    waits = []
    for _ in range(6):
        answer = _guess("ana@correo.cl", "c1")
        waits.append(answer)
        clock.advance(float(answer.split()[1]) if answer.startswith("wait") else 0)
        if answer.startswith("wait"):
            assert _guess("ana@correo.cl", "c1") == "wrong"
    assert waits == ["wait 2", "wait 2", "wait 4", "wait 8", "wait 16", "wait 32"]


def test_the_longest_delay_is_about_seventeen_minutes_and_a_pair_gets_twenty_a_day(clock):
    answers = []
    while len([a for a in answers if a == "wrong"]) < 20:
        answer = _guess("ana@correo.cl", "c1")
        answers.append(answer)
        if answer.startswith("wait"):
            assert int(answer.split()[1]) <= 2**throttle.LONGEST_DELAY_STEP
            clock.advance(int(answer.split()[1]))
    assert _guess("ana@correo.cl", "c1").startswith("wait")
    clock.advance(86_400)
    assert _guess("ana@correo.cl", "c1", right=True) == "ok"


def test_the_right_password_clears_the_delays_and_other_clients_are_never_held_back(clock):
    for _ in range(3):
        _guess("ana@correo.cl", "atacante")
    assert _guess("ana@correo.cl", "atacante").startswith("wait")
    assert _guess("ana@correo.cl", "duena", right=True) == "ok"  # the owner elsewhere signs in
    clock.advance(2)
    assert _guess("ana@correo.cl", "atacante", right=True) == "ok"
    assert [_guess("ana@correo.cl", "atacante") for _ in range(3)] == ["wrong"] * 3


def test_a_hundred_failures_an_hour_from_many_clients_close_the_account(clock):
    for index in range(100):
        assert _guess("ana@correo.cl", f"bot-{index}") == "wrong"
    assert _guess("ana@correo.cl", "duena", right=True).startswith("wait")
    assert _guess("bea@correo.cl", "duena", right=True) == "ok"  # other accounts are untouched
    clock.advance(3600)
    assert _guess("ana@correo.cl", "duena", right=True) == "ok"


def test_thirty_failures_an_hour_from_one_client_across_accounts_close_that_client(clock):
    for index in range(30):
        assert _guess(f"cuenta{index}@correo.cl", "relleno") == "wrong"
    assert _guess("otra@correo.cl", "relleno", right=True).startswith("wait")
    assert _guess("otra@correo.cl", "vecino", right=True) == "ok"


def test_right_passwords_do_not_count_toward_the_ceilings(clock):
    for index in range(40):
        assert _guess(f"cuenta{index}@correo.cl", "oficina", right=True) == "ok"
    assert _guess("ultima@correo.cl", "oficina") == "wrong"


def test_unreachable_counters_refuse_instead_of_letting_everything_through(monkeypatch):
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    get_settings.cache_clear()
    try:
        with pytest.raises(LimiterUnavailable, match="Inténtalo de nuevo en unos minutos"):
            limiter().hit([(Rule("prueba", 1, 10), "k")])
    finally:
        get_settings.cache_clear()
