"""The one rule set that keeps secrets out of log lines and error reports (app.core.redaction)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.core.redaction import RULES, redact, redact_data


@pytest.mark.parametrize(
    ("text", "secret", "label"),
    [
        ("sign-up for camila.rojas+x@correo.cl from client ab12", "camila.rojas+x@correo.cl", "[email]"),
        ("whatsapp +56 9 8765 4321 on the card", "8765 4321", "[phone]"),
        ("whatsapp +56987654321", "987654321", "[phone]"),
        ("link https://wa.me/56987654321?text=hola", "56987654321", "[phone]"),
        ("call 9 8765-4321 today", "8765-4321", "[phone]"),
        ("office +56 2 2345 6789", "2345 6789", "[phone]"),
        ("rut 12.345.678-5 given", "12.345.678-5", "[rut]"),
        ("rut 7654321-K given", "7654321-K", "[rut]"),
        ("Authorization: Bearer abc.DEF-123_x", "abc.DEF-123_x", "Bearer [redacted]"),
        ("id token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJzdWIiOiIxIn0", "[jwt]"),
        ("second factor code 123456 refused", "123456", "code [code]"),
        ("tu código: 654 321", "654 321", "[code]"),
        ("password=hunter2 sent", "hunter2", "password=[redacted]"),
        ('{"contraseña": "Secreta.2026", "ok": 1}', "Secreta.2026", '"contraseña": "[redacted]"'),
        ("smtp_password='p4ss'", "p4ss", "smtp_password='[redacted]'"),
        ("GET /x?ticket=abc123&page=2", "abc123", "ticket=[redacted]&page=2"),
        ("https://identitytoolkit/v1/accounts:signUp?key=AIzaFakeKey", "AIzaFakeKey", "key=[redacted]"),
        ("{'Authorization': b'AWS4-HMAC-SHA256'}", "AWS4-HMAC-SHA256", "b'[redacted]'"),
        ("Cookie: sesion=tok1; edad=1", "tok1", "Cookie: [redacted]"),
        ("set-cookie: sesion=tok2; HttpOnly", "tok2", "set-cookie: [redacted]"),
        (
            "link /datos/Xq3v9TfLw2Rk8Zp1Bn4Hc7Jm5Dy0Gs6Ea_-Ui in mail",
            "Xq3v9TfLw2Rk8Zp1Bn4Hc7Jm5Dy0Gs6Ea_-Ui",
            "[token]",
        ),
    ],
)
def test_each_kind_of_secret_is_replaced_by_its_label(text: str, secret: str, label: str):
    redacted = redact(text)
    assert secret not in redacted
    assert label in redacted


@pytest.mark.parametrize(
    "text",
    [
        "user AbCdEfGh1234567890xy given profile 2 by Zy0987654321XwVuTsRq",  # record ids: 20 characters
        "job 12 (mail.send) took 1234.567 ms; 3 data exports built (48213 bytes)",
        "token hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # lower-case hex
        "sign-in refused: ca***@correo.cl has not confirmed the address",  # already masked by the caller
        "listing 2026-11-28T16:37:35Z uid 12345678-1234-5678-9abc-def012345678",
        "Authorization: Bearer [redacted]",
    ],
)
def test_what_follows_a_request_stays_readable(text: str):
    assert redact(text) == text


def test_redacting_twice_changes_nothing_more():
    once = redact("code 123456 for ana@x.cl, +56 9 1234 5678, password=x, Cookie: a=b")
    assert redact(once) == once


def test_nested_data_is_redacted_in_every_string_and_keeps_its_shape():
    data = {
        "message": "sent to ana@x.cl",
        "frames": [{"vars": ("password=x", 3)}],
        "count": 2,
        "none": None,
    }
    assert redact_data(data) == {
        "message": "sent to [email]",
        "frames": [{"vars": ("password=[redacted]", 3)}],
        "count": 2,
        "none": None,
    }


def test_the_rules_have_distinct_names():
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))


# Text like a log line's: letters, digits and the characters every rule's match needs.
LOG_LIKE = st.text(alphabet=st.sampled_from("abcDEFeyJ.Bearer kK0123456789 -_@:=+/'\"\n"), max_size=80)


@given(LOG_LIKE)
@example("a@b.cl")
@example("code 123456")
@example("tel 9 8765 4321")
@example("Xq3v9TfLw2Rk8Zp1Bn4Hc7Jm5Dy0Gs6E")
def test_the_quick_look_skips_only_texts_no_rule_changes(text: str):
    """``redact`` leaves a text without running the rules only when none of them would change it."""
    every_rule = text
    for rule in RULES:
        every_rule = rule.pattern.sub(rule.replacement, every_rule)
    assert redact(text) == every_rule
