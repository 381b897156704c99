"""What an e2e site's log may not hold (issue 36 §2): the sites run with LOG_FORMAT=json and LOG_LEVEL=DEBUG,
and when a site stops, its whole output is read back: every line must be one JSON object, and no secret
the tests used may be in it.

The secrets are gathered as the tests go: every value typed into a field for a password, a code, an
e-mail, a RUT or a phone (:func:`record_typed_secrets` wraps Playwright's ``fill``), every address and link
token of the e-mails the site sent (:func:`secrets_of_mail`), and the seed's own (:data:`SEEDED`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from email.message import Message
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Locator

from app.core.redaction import redact
from tests.factories import STAFF_TOTP_SECRET

# What the seed of tests/e2e/conftest.py gives its listings and owners, and the staff's TOTP secret.
SEEDED = frozenset({"duena@example.cl", "baneada@example.cl", "8765 4321", "87654321", STAFF_TOTP_SECRET})
# Fields whose value is a secret by its name (the label Playwright's locator names).
SECRET_FIELD = re.compile(r"contrase|c[oó]digo|clave|correo|e-?mail|\brut\b|tel[eé]fono|celular", re.IGNORECASE)
# Shorter values are not told apart from ordinary words and numbers of a log line.
SHORTEST = 6
LINK = re.compile(r"https?://[^\s\"'<>]+")

typed: set[str] = set()


@contextmanager
def record_typed_secrets() -> Iterator[None]:
    """While the block runs, remember every secret value the tests type into a page (see the module's doc)."""
    fill = Locator.fill

    def recording_fill(self: Locator, value: str, **kwargs: object) -> None:
        if len(value) >= SHORTEST and (SECRET_FIELD.search(str(self)) or redact(value) != value):
            typed.add(value)
        fill(self, value, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Locator, "fill", recording_fill)
        yield


def secrets_of_mail(messages: Iterable[Message]) -> set[str]:
    """The recipients of ``messages`` and the tokens of their links (query values and path segments of 16
    characters or more with a digit: a page's name has none)."""
    found = set()
    for message in messages:
        found.add(str(message["To"]))
        for part in message.walk():
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes):
                continue
            for link in LINK.findall(payload.decode(errors="replace")):
                parts = urlsplit(link)
                values = [value for _, value in parse_qsl(parts.query)] + parts.path.split("/")
                found.update(value for value in values if len(value) >= 16 and re.search(r"\d", value))
    return found


def _found(secret: str, line: str) -> bool:
    if secret.isdigit():  # a code: not a part of a longer number
        return re.search(rf"(?<![\d.]){secret}(?!\d)", line) is not None
    return secret in line


def log_problems(text: str, secrets: Iterable[str]) -> list[str]:
    """Lines of ``text`` that are not one JSON object, and each secret found with the line it is in."""
    wanted = sorted({secret for secret in secrets if len(secret) >= SHORTEST})
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            parsed = json.loads(line)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            problems.append(f"line {number} is not a JSON object: {line[:300]}")
        problems.extend(f"{secret!r} in line {number}: {line[:300]}" for secret in wanted if _found(secret, line))
    return problems
