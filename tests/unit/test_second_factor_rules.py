"""The second factor's pure rules (issue 20 §1): the ±1 step window, code forms, the stored secret, the limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyotp
import pytest

from app.identity import throttle
from app.services import two_factor

SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
NOW = datetime(2026, 11, 26, 15, 0, 10, tzinfo=UTC)
STEP = timedelta(seconds=30)


@pytest.mark.parametrize(("offset", "accepted"), [(-2, False), (-1, True), (0, True), (1, True), (2, False)])
def test_a_code_matches_one_step_either_side(offset, accepted):
    code = pyotp.TOTP(SECRET).at(NOW + offset * STEP)
    step = two_factor.matching_step(SECRET, code, NOW)
    current = pyotp.TOTP(SECRET).timecode(NOW)
    assert step == (current + offset if accepted else None)


def test_the_window_is_pyotps_valid_window_of_one():
    totp = pyotp.TOTP(SECRET)
    for offset in range(-3, 4):
        code = totp.at(NOW + offset * STEP)
        found = two_factor.matching_step(SECRET, code, NOW) is not None
        assert found == totp.verify(code, for_time=NOW, valid_window=two_factor.VALID_WINDOW)


@pytest.mark.parametrize("code", ["", "12345", "1234567", "abcdef", "١٢٣٤٥٦", None, 123456])
def test_anything_but_six_ascii_digits_is_no_totp_code(code):
    assert two_factor.matching_step(SECRET, code, NOW) is None  # type: ignore[arg-type]


def test_no_secret_matches_nothing():
    assert two_factor.matching_step("", pyotp.TOTP(SECRET).at(NOW), NOW) is None


def test_recovery_codes_are_read_however_they_are_typed():
    assert two_factor._normalized(" ABCDE-fghjk ") == "abcdefghjk"
    assert two_factor._normalized("abcde fghjk") == "abcdefghjk"
    assert two_factor._normalized(None) == ""  # type: ignore[arg-type]


def test_the_secret_is_stored_encrypted_and_read_back():
    stored = two_factor.encrypt_secret(SECRET)
    assert SECRET not in stored
    assert two_factor._decrypt(stored) == SECRET
    assert two_factor._decrypt("not-a-token") == ""  # unreadable (SECRET_KEY changed): matches no code


def test_recovery_codes_are_hashed_with_the_password_hasher():
    hasher = two_factor._hasher()
    hashed = hasher.hash("abcdefghjk")
    assert hashed.startswith("$argon2") and "abcdefghjk" not in hashed
    assert hasher.verify("abcdefghjk", hashed) and not hasher.verify("abcdefghjm", hashed)


def test_codes_are_limited_like_passwords_with_counters_of_their_own():
    assert [(r.amount, r.seconds) for r in throttle.CODE_PAIR_RULES] == [
        (r.amount, r.seconds) for r in throttle.PAIR_RULES
    ]
    ceilings = (throttle.CODE_ACCOUNT_CEILING, throttle.CODE_CLIENT_CEILING)
    assert [(r.amount, r.seconds, r.refundable) for r in ceilings] == [
        (r.amount, r.seconds, r.refundable) for r in (throttle.ACCOUNT_CEILING, throttle.CLIENT_CEILING)
    ]
    names = {r.name for r in (*throttle.CODE_PAIR_RULES, *ceilings)}
    assert names.isdisjoint({r.name for r in (*throttle.PAIR_RULES, throttle.ACCOUNT_CEILING, throttle.CLIENT_CEILING)})
