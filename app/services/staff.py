"""Who counts as staff when a service acts for the back office."""

from __future__ import annotations

from sqlmodel import Session

from app.models import STAFF_PROFILES, User
from app.services.errors import ForbiddenError

STAFF_ONLY_MESSAGE = "Solo el equipo del sitio puede hacer esto."


def ensure_staff(session: Session, user_uid: object, message: str = STAFF_ONLY_MESSAGE) -> User:
    """The active, non-banned administrator or secretary ``user_uid``, or ForbiddenError."""
    user = session.get(User, user_uid) if isinstance(user_uid, str) and user_uid else None
    if user is None or user.ban or not user.activo or user.profile_uid not in STAFF_PROFILES:
        raise ForbiddenError(message)
    return user
