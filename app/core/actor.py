"""Who is calling: the signed-in user behind a request, as the server resolved it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Actor:
    """The signed-in user behind a request, as the server knows it (never from the browser)."""

    uid: str
    email: str
    display_name: str
    profile_uid: str
