"""Chilean RUT (national tax ID) cleaning, validation, check digit and display format.

Rules (SPEC section 5): dots are stripped and the value lower-cased; a valid RUT is
7 or 8 digits, a hyphen, then a check digit that is a digit or ``k``. The check digit
weights the body digits from the right with 2..7 repeating, sums them and takes
``11 - sum % 11``; 11 means ``0`` and 10 means ``k``.
"""

from __future__ import annotations

import re

_RUT_SHAPE = re.compile(r"([0-9]{7,8})-([0-9k])")
_DIGITS = re.compile(r"[0-9]+")
_STRIP = re.compile(r"[.\s]+")

ERROR = "ERROR"


def clean_rut(text: object) -> str:
    """Remove dots and whitespace and lower-case the value; non-str input gives ""."""
    if not isinstance(text, str):
        return ""
    return _STRIP.sub("", text).lower()


def rut_check_digit(body: str) -> str:
    """Return the check digit ("0"-"9" or "k") for a RUT body made of ASCII digits.

    Raises ValueError if ``body`` is not a non-empty string of ASCII digits.
    """
    if not isinstance(body, str) or not _DIGITS.fullmatch(body):
        raise ValueError(f"RUT body must be a string of digits, got {body!r}")
    total = 0
    for index, char in enumerate(reversed(body)):
        total += int(char) * (2 + index % 6)
    result = 11 - total % 11
    if result == 11:
        return "0"
    if result == 10:
        return "k"
    return str(result)


def _split(text: object) -> tuple[str, str] | None:
    """Return (body, check digit) if the cleaned text has the RUT shape, else None."""
    match = _RUT_SHAPE.fullmatch(clean_rut(text))
    if match is None:
        return None
    return match.group(1), match.group(2)


def is_valid_rut(text: object) -> bool:
    """True if the cleaned text has the RUT shape and its check digit is correct."""
    parts = _split(text)
    if parts is None:
        return False
    body, check = parts
    return rut_check_digit(body) == check


def format_rut(text: object) -> str:
    """Format a RUT for display, e.g. "12345678-5" -> "12.345.678-5".

    The input is cleaned first (dots/whitespace removed, lower-cased, so an upper-case
    "K" is shown as "k"). Only the shape is checked (7-8 digits, hyphen, digit or k):
    malformed input gives "ERROR", but a well-shaped RUT with a wrong check digit is
    still formatted — use ``is_valid_rut`` to validate it.
    """
    parts = _split(text)
    if parts is None:
        return ERROR
    body, check = parts
    return f"{_group(body)}-{check}"


def _group(digits: str) -> str:
    """Group a digit string by thousands with dots, keeping any leading zeros."""
    groups: list[str] = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return ".".join(groups)
