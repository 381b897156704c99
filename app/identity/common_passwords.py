"""Refuse passwords that attackers try first.

The list is the 30,000 most common leaked passwords shipped with zxcvbn, plus
a few Spanish ones it lacks. Comparison ignores case.
"""

from __future__ import annotations

import functools

from zxcvbn.frequency_lists import FREQUENCY_LISTS

_SPANISH_EXTRAS = (
    "contraseña",
    "contrasena",
    "contraseña1",
    "contrasena1",
    "contraseña123",
    "contrasena123",
    "micontraseña",
    "micontrasena",
    "chile123",
    "chilechile",
    "santiago",
    "santiago1",
    "valparaiso",
    "teamo123",
    "tequiero",
    "escorts123",
)


@functools.cache
def _common() -> frozenset[str]:
    return frozenset(FREQUENCY_LISTS["passwords"]) | frozenset(_SPANISH_EXTRAS)


def is_common_password(password: str) -> bool:
    """True when the password (ignoring case) is on the common-passwords list."""
    return password.lower() in _common()
