"""What no log line or error report may carry, as one rule set: e-mails, phones, RUTs, tokens, codes, secrets.

``redact`` rewrites a text; ``redact_data`` every string inside nested dicts, lists and tuples (a Sentry
event). app.logs applies both to every log record and every error report.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class Rule(NamedTuple):
    """One kind of secret: a pattern and what replaces each match (``\\1``... keep the labels around it)."""

    name: str
    pattern: re.Pattern[str]
    replacement: str


# Names of values that are secrets whatever they look like: ``password=...``, ``"token": "..."``.
_SECRET_KEYS = (
    r"pass(?:word|wd)?|contrase(?:ñ|n)a|clave|secret|token|ticket|api[_-]?key|key|authorization|"
    r"cookie|session(?:id)?|code|c(?:ó|o)digo|otp|totp|signature|credential"
)

RULES: tuple[Rule, ...] = (
    # A Cookie or Set-Cookie header: everything after it on the line (several name=value pairs).
    Rule(
        "cookie header",
        re.compile(r"(?im)\b((?:set-)?cookie)(\W{0,3}\s*[:=]\s*)[^\n]*"),
        r"\1\2[redacted]",
    ),
    Rule("bearer token", re.compile(r"(?i)\b(bearer)\s+[\w.~+/=-]+"), r"\1 [redacted]"),
    Rule("jwt", re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]*"), "[jwt]"),
    Rule("e-mail", re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}"), "[email]"),
    # Six digits (a TOTP code) after the word code/código/otp, within a few characters.
    Rule(
        "one-time code",
        re.compile(r"(?i)\b(c(?:ó|o)digo|code|otp|totp)\b([^\d\n]{0,20}?)(?<!\d)\d{3}\s?\d{3}(?!\d)"),
        r"\1\2[code]",
    ),
    # A value named like a secret, in key=value, key: value, "key": "value" (JSON, dict reprs, query strings).
    Rule(
        "named secret",
        re.compile(
            rf"(?i)(?<![\w])((?:[\w-]*[_-])?(?:{_SECRET_KEYS}))(['\"]?\s*[:=]\s*(?-i:b)?['\"]?)(?![\s'\"\[]|bearer\b)[^\s'\",;&)}}\]]+"
        ),
        r"\1\2[redacted]",
    ),
    Rule(
        "rut",
        re.compile(r"(?<![\w.-])(?:\d{1,2}(?:\.\d{3}){2}-?|\d{7,8}-)[\dkK](?!\w)"),
        "[rut]",
    ),
    # Chilean numbers: with the country code any nine digits, without it a mobile (9 and eight digits).
    Rule(
        "phone",
        re.compile(r"(?<![\w+])(?:\+?56[\s.-]?\(?\d\)?(?:[\s.-]?\d){8}|\(?9\)?(?:[\s.-]?\d){8})(?![\w])"),
        "[phone]",
    ),
    # An opaque random token (session, ticket, link): 32 or more URL-safe characters mixing upper and lower
    # case and digits. Record ids are 20 characters and hashes lower-case hex: neither matches.
    Rule(
        "opaque token",
        re.compile(r"(?<![\w-])(?=[\w-]*[A-Z])(?=[\w-]*[a-z])(?=[\w-]*\d)[A-Za-z0-9_-]{32,}(?![\w-])"),
        "[token]",
    ),
)


# What every rule's match holds at least one of: an ``@``, ``:`` or ``=``; ``eyJ``; ``bearer``; a run of 32 word
# characters; six digits. A text with none of them is left as it is without running the rules (most strings
# of a log line: its message, a handler's name, a route).
_ANY_RULE = re.compile(r"[@:=]|eyJ|(?i:bearer)|[\w-]{32}|\d(?:\D*\d){5}")


def redact(text: str) -> str:
    """``text`` with every secret of :data:`RULES` replaced by a label."""
    if not _ANY_RULE.search(text):
        return text
    for rule in RULES:
        text = rule.pattern.sub(rule.replacement, text)
    return text


def redact_data(value: Any) -> Any:
    """``value`` with :func:`redact` applied to every string inside it (dict keys stay as they are)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(item) for item in value)
    return value
