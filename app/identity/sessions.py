"""Server-side sessions: an opaque random token in the browser, its SHA-256 digest here.

A session ends when it expires (SESSION_DAYS), when its user signs out
(every tab shares the token), changes password, or is banned, and it never
resolves for a banned or inactive user, whatever its expiry.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, select

from app.identity.local import digest
from app.models import User, UserSession, utc_now

TOKEN_BYTES = 32


@dataclass(frozen=True)
class Actor:
    """The signed-in user behind a request, as the server knows it (never from the browser)."""

    uid: str
    email: str
    display_name: str
    profile_uid: str


@dataclass(frozen=True)
class SessionCheck:
    """What a token resolves to: an actor, or why there is none."""

    actor: Actor | None
    banned: bool = False


def create_session(*, session: Session, user_uid: str, days: int) -> str:
    """Open a session for the user; return the raw token (shown to the browser once)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = utc_now()
    session.add(UserSession(token_hash=digest(token), user_uid=user_uid, created_at=now, expires_at=now + timedelta(days=days)))
    session.commit()
    return token


def resolve_session(*, session: Session, token: str) -> SessionCheck:
    """The actor of a live session; ``banned`` tells a ban apart from a plain missing session."""
    if not token:
        return SessionCheck(actor=None)
    row = session.exec(
        select(UserSession, User).join(User, User.uid == UserSession.user_uid).where(UserSession.token_hash == digest(token))
    ).first()
    if row is None:
        return SessionCheck(actor=None)
    stored, user = row
    # A ban is reported even for the session it revoked, so that tab hears why it was signed out.
    if user.ban:
        return SessionCheck(actor=None, banned=True)
    if stored.revoked_at is not None or stored.expires_at <= utc_now() or not user.activo:
        return SessionCheck(actor=None)
    return SessionCheck(
        actor=Actor(uid=user.uid, email=user.email, display_name=user.display_name, profile_uid=user.profile_uid)
    )


def revoke_session(*, session: Session, token: str) -> None:
    """End one session (sign-out). Unknown tokens are ignored."""
    if token:
        session.execute(
            update(UserSession)
            .where(UserSession.token_hash == digest(token), UserSession.revoked_at.is_(None))
            .values(revoked_at=utc_now())
        )
        session.commit()


def revoke_user_sessions(*, session: Session, user_uid: str, keep_token: str = "") -> int:
    """End every session of a user (ban, password change), optionally keeping one; return how many."""
    statement = update(UserSession).where(UserSession.user_uid == user_uid, UserSession.revoked_at.is_(None))
    if keep_token:
        statement = statement.where(UserSession.token_hash != digest(keep_token))
    result = session.execute(statement.values(revoked_at=utc_now()))
    session.commit()
    return result.rowcount
