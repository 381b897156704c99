"""Small text helpers: loose e-mail check, slugs, masked e-mails and waits."""

from __future__ import annotations

import math
import re
import unicodedata

EMAIL_MAX = 254  # characters of an e-mail address (RFC 5321): every column and field that holds one
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def is_valid_email(text: object) -> bool:
    """Loose e-mail check: local part, "@", domain, "." and suffix, with no spaces.

    Non-str input gives False.
    """
    return isinstance(text, str) and _EMAIL.fullmatch(text) is not None


def slugify(text: object) -> str:
    """Lower-case ASCII slug: accents removed, other characters collapsed to single hyphens.

    "Viña del Mar" -> "vina-del-mar", "Ñuble" -> "nuble". Non-str input gives "".
    """
    if not isinstance(text, str):
        return ""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = decomposed.encode("ascii", "ignore").decode("ascii").lower()
    return _NON_ALNUM.sub("-", ascii_text).strip("-")


def mask_email(email: object) -> str:
    """An e-mail address fit for a log line: at most two letters of the name (never half of it), and the domain.

    "camila@correo.cl" -> "ca***@correo.cl", "ana@x.cl" -> "a***@x.cl", "a@b.cl" -> "***@b.cl";
    anything without an "@" (or not a str) gives "***".
    """
    if not isinstance(email, str) or "@" not in email:
        return "***"
    name, domain = email.strip().rsplit("@", 1)
    return f"{name[: min(2, len(name) // 2)]}***@{domain}"


def spanish_duration(seconds: float) -> str:
    """A wait in Spanish, rounded up: seconds under a minute, minutes under two hours, else hours.

    5 -> "5 segundos", 61 -> "2 minutos", 3601 -> "61 minutos", 7300 -> "3 horas";
    never less than "1 segundo".
    """
    whole = max(1, math.ceil(seconds))
    if whole < 60:
        count, unit = whole, ("segundo", "segundos")
    elif whole < 7200:
        count, unit = math.ceil(whole / 60), ("minuto", "minutos")
    else:
        count, unit = math.ceil(whole / 3600), ("hora", "horas")
    return f"{count} {unit[0] if count == 1 else unit[1]}"
