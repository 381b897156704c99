"""Payment references of upgrade requests (issue 19 §4): short, easy to type and read out, never ambiguous.

A reference is 8 characters from an alphabet without the look-alikes (0 O, 1 I L, 2 Z, 5 S, 8 B, U V),
shown in two groups (``K7QM-4RTX``). :func:`normalize_payment_code` reads what a person typed (any case,
spaces or dashes anywhere) back into that shape.
"""

from __future__ import annotations

import secrets

ALPHABET = "34679ACDEFGHJKMNPQRTWXY"
LENGTH = 8
GROUP = 4
_SEPARATORS = " -_."


def new_payment_code() -> str:
    """A fresh random reference such as ``K7QM-4RTX`` (about 36 bits; the database keeps them unique)."""
    code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return f"{code[:GROUP]}-{code[GROUP:]}"


def normalize_payment_code(text: object) -> str | None:
    """The reference ``text`` stands for (``k7qm 4rtx`` → ``K7QM-4RTX``), or None when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    compact = "".join(ch for ch in text.upper() if ch not in _SEPARATORS)
    if len(compact) != LENGTH or any(ch not in ALPHABET for ch in compact):
        return None
    return f"{compact[:GROUP]}-{compact[GROUP:]}"
