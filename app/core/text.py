"""Small text helpers: loose e-mail check, digit-only integer parsing and slugs."""

from __future__ import annotations

import re
import unicodedata

_EMAIL = re.compile(r"[^\s@]+@[^\s@]+\.[^\s@]+")
_NON_DIGITS = re.compile(r"[^0-9]+")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def is_valid_email(text: object) -> bool:
    """Loose e-mail check: local part, "@", domain, "." and suffix, with no spaces.

    Non-str input gives False.
    """
    return isinstance(text, str) and _EMAIL.fullmatch(text) is not None


def parse_int(text: object) -> int | None:
    """Parse an integer keeping only the ASCII digits of the text.

    "1.500" -> 1500, "$ 25.000 CLP" -> 25000. Signs are dropped too ("-5" -> 5).
    Text without digits gives None; an int (not bool) is returned unchanged;
    None and any other type give None.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    if not isinstance(text, str):
        return None
    digits = _NON_DIGITS.sub("", text)
    return int(digits) if digits else None


def slugify(text: object) -> str:
    """Lower-case ASCII slug: accents removed, other characters collapsed to single hyphens.

    "Viña del Mar" -> "vina-del-mar", "Ñuble" -> "nuble". Non-str input gives "".
    """
    if not isinstance(text, str):
        return ""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = decomposed.encode("ascii", "ignore").decode("ascii").lower()
    return _NON_ALNUM.sub("-", ascii_text).strip("-")
