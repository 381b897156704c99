"""Server-side sessions: an opaque random token in an HttpOnly cookie, its SHA-256 digest here.

A sign-in does not hand the browser a session directly: it issues a
single-use ticket that lives a few seconds, which the browser exchanges at an
HTTP route (``app.web.cookies``) for the session cookie. The websocket
never carries the raw token: the handshake middleware replaces the cookie by
its digest before Reflex sees the request, so only digests reach handlers,
state and logs.

A session ends when it expires (SESSION_DAYS after sign-in), when it goes
unused for SESSION_IDLE_DAYS, when its user signs out, changes password or
is banned, and it never resolves for a banned or inactive user.

A staff member's session (administrator, secretary) grants nothing until
their second factor is passed in it (``second_factor_at``, issue 20 §1): till
then it resolves to no actor, with the staff member as ``pending``, which only
the second-factor step accepts. A session whose user becomes staff is in the
same case. Every guard (handlers, page loaders, HTTP routes) reads sessions
here, so none can forget it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, update
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.db import commit
from app.models import STAFF_PROFILES, ActionCode, SessionTicket, User, UserSession, utc_now

# The HttpOnly cookie holding the raw token, and the cookie the web layer (app.web.cookies)
# puts in its place on the requests Reflex sees: the token's digest, which is all handlers see.
# The digest rides in the Cookie header because Reflex keeps request cookies on the server,
# while it sends every other request header to the page (router data, upload answers).
SESSION_COOKIE = "sesion"
DIGEST_COOKIE = "sesion_hash"
TOKEN_BYTES = 32
TICKET_LIFETIME = timedelta(seconds=30)
# last_seen_at is written at most this often per session: enough for idle expiry
# in days, without a write on every guarded action.
TOUCH_EVERY = timedelta(minutes=5)
# Revoked and expired rows are kept this long (for support questions), then purged.
KEEP_ENDED = timedelta(days=7)


def digest(secret: str) -> str:
    """SHA-256 hex digest of a token, ticket or code (what the database stores)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def cookie_value(cookie_header: str, name: str) -> str:
    """The value of cookie ``name`` in a Cookie header ("" if absent)."""
    for part in cookie_header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


def session_hash_in(headers: Mapping[str, object] | None) -> str:
    """The session digest (the ``sesion_hash`` cookie) in a connection's headers, as Reflex keeps them with
    lower-case names ("" if none)."""
    cookies = (headers or {}).get("cookie", "")
    return cookie_value(cookies, DIGEST_COOKIE) if isinstance(cookies, str) else ""


@dataclass(frozen=True)
class SessionCheck:
    """What a session digest resolves to: an actor, or why there is none."""

    actor: Actor | None
    banned: bool = False
    pending: Actor | None = None
    """A staff member whose session has not passed the second factor yet (``actor`` is then None)."""


def needs_second_factor(profile_uid: str) -> bool:
    """True for the profiles that must pass a second factor (administrator, secretary)."""
    return profile_uid in STAFF_PROFILES


def issue_ticket(*, session: Session, user_uid: str, second_factor_at: datetime | None = None) -> str:
    """A single-use ticket for a new session of this user (flushed; the caller commits).

    ``second_factor_at`` is given only where the second factor was passed already (a password change
    from a session that passed it): the new session starts with it.
    """
    ticket = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(
        SessionTicket(
            ticket_hash=digest(ticket),
            user_uid=user_uid,
            expires_at=utc_now() + TICKET_LIFETIME,
            second_factor_at=second_factor_at,
        )
    )
    session.flush()
    return ticket


def redeem_ticket(*, session: Session, ticket: str, days: int, now: datetime | None = None) -> str | None:
    """Exchange a live ticket for a new session; return its raw token (None: no such live ticket).

    The ticket row is deleted in the same statement that reads it, so of two
    concurrent exchanges only one gets a session. Flushed; the caller commits.
    """
    now = now or utc_now()
    if not ticket or len(ticket) > 128:
        return None
    redeemed = session.exec(
        delete(SessionTicket)
        .where(col(SessionTicket.ticket_hash) == digest(ticket), col(SessionTicket.expires_at) > now)
        .returning(col(SessionTicket.user_uid), col(SessionTicket.second_factor_at))
    ).one_or_none()
    if redeemed is None:
        return None
    user_uid, second_factor_at = redeemed
    token = secrets.token_urlsafe(TOKEN_BYTES)
    session.add(
        UserSession(
            token_hash=digest(token),
            user_uid=user_uid,
            created_at=now,
            last_seen_at=now,
            expires_at=now + timedelta(days=days),
            second_factor_at=second_factor_at,
        )
    )
    session.flush()
    return token


def resolve_session(*, session: Session, token_hash: str, idle_days: int, now: datetime | None = None) -> SessionCheck:
    """The actor of a live session, by the digest of its token; ``banned`` tells a ban apart.

    A live session's last use is recorded (at most every few minutes) and committed.
    """
    if not token_hash:
        return SessionCheck(actor=None)
    now = now or utc_now()
    row = session.exec(
        select(UserSession, User)
        .join(User, col(User.uid) == col(UserSession.user_uid))
        .where(col(UserSession.token_hash) == token_hash)
    ).first()
    if row is None:
        return SessionCheck(actor=None)
    stored, user = row
    # A ban is reported even for the session it revoked, so that tab hears why it was signed out.
    if user.ban:
        return SessionCheck(actor=None, banned=True)
    idle_end = stored.last_seen_at + timedelta(days=idle_days)
    if stored.revoked_at is not None or stored.expires_at <= now or idle_end <= now or not user.activo:
        return SessionCheck(actor=None)
    if now - stored.last_seen_at >= TOUCH_EVERY:
        session.exec(update(UserSession).where(col(UserSession.token_hash) == token_hash).values(last_seen_at=now))
        commit(session)
    actor = Actor(uid=user.uid, email=user.email, display_name=user.display_name, profile_uid=user.profile_uid)
    if needs_second_factor(user.profile_uid) and stored.second_factor_at is None:
        return SessionCheck(actor=None, pending=actor)
    return SessionCheck(actor=actor)


def pass_second_factor(*, session: Session, token_hash: str, now: datetime | None = None) -> bool:
    """Record that this live session passed its user's second factor; False for no such session. Flushed."""
    if not token_hash:
        return False
    result = session.exec(
        update(UserSession)
        .where(col(UserSession.token_hash) == token_hash, col(UserSession.revoked_at).is_(None))
        .values(second_factor_at=now or utc_now())
    )
    return result.rowcount == 1


def revoke_session(*, session: Session, token_hash: str) -> str | None:
    """End one session (sign-out); return its user's uid, None for an unknown or ended one. Flushed."""
    if not token_hash:
        return None
    return session.exec(
        update(UserSession)
        .where(col(UserSession.token_hash) == token_hash, col(UserSession.revoked_at).is_(None))
        .values(revoked_at=utc_now())
        .returning(col(UserSession.user_uid))
    ).scalar_one_or_none()


def revoke_user_sessions(*, session: Session, user_uid: str) -> int:
    """End every session and unused ticket of a user (ban, password change); return how many sessions. Flushed."""
    session.exec(delete(SessionTicket).where(col(SessionTicket.user_uid) == user_uid))
    result = session.exec(
        update(UserSession)
        .where(col(UserSession.user_uid) == user_uid, col(UserSession.revoked_at).is_(None))
        .values(revoked_at=utc_now())
    )
    return result.rowcount


def restart_second_factor(*, session: Session, user_uid: str, token_hash: str) -> None:
    """End every other session of the user; this one keeps no passed second factor (its setup starts again). Flushed."""
    session.exec(delete(SessionTicket).where(col(SessionTicket.user_uid) == user_uid))
    session.exec(
        update(UserSession)
        .where(
            col(UserSession.user_uid) == user_uid,
            col(UserSession.token_hash) != token_hash,
            col(UserSession.revoked_at).is_(None),
        )
        .values(revoked_at=utc_now())
    )
    session.exec(update(UserSession).where(col(UserSession.token_hash) == token_hash).values(second_factor_at=None))


def purge_ended(*, session: Session, idle_days: int, now: datetime | None = None) -> int:
    """Delete sessions, tickets and one-time codes that can no longer be used; commit; return rows deleted.

    Sessions that ended are kept a week (revoked, expired or idle), then deleted;
    expired tickets and used or expired codes go at once.
    """
    now = now or utc_now()
    cutoff = now - KEEP_ENDED
    deleted = session.exec(
        delete(UserSession).where(
            or_(
                col(UserSession.revoked_at) < cutoff,
                col(UserSession.expires_at) < cutoff,
                col(UserSession.last_seen_at) < cutoff - timedelta(days=idle_days),
            )
        )
    ).rowcount
    deleted += session.exec(delete(SessionTicket).where(col(SessionTicket.expires_at) <= now)).rowcount
    deleted += session.exec(
        delete(ActionCode).where(or_(col(ActionCode.used_at).is_not(None), col(ActionCode.expires_at) <= now))
    ).rowcount
    commit(session)
    return deleted
