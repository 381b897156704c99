"""Tables of the sign-in machinery: sessions, sign-in tickets, local credentials, one-time codes.

Nothing here ever holds a secret in clear: session tokens and one-time codes
are stored as SHA-256 digests, passwords as argon2 hashes.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlmodel import Field, SQLModel

from app.core.text import EMAIL_MAX
from app.models.base import new_uid, utc_now


class UserSession(SQLModel, table=True):
    """sesion: one signed-in browser. The browser holds the token; we keep its digest."""

    __tablename__ = "sesion"

    token_hash: str = Field(primary_key=True, max_length=64, description="SHA-256 hex of the opaque token.")
    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", index=True, max_length=40)
    created_at: datetime = Field(default_factory=utc_now)
    expires_at: datetime = Field(index=True, description="Absolute end (SESSION_DAYS after sign-in).")
    last_seen_at: datetime = Field(default_factory=utc_now, description="Last use; idle sessions end.")
    revoked_at: datetime | None = None
    second_factor_at: datetime | None = Field(
        default=None, description="When a staff member's second factor was passed; None: no staff rights yet."
    )


class SessionTicket(SQLModel, table=True):
    """ticket_sesion: single-use, seconds-long ticket a sign-in hands the browser.

    The browser exchanges it at an HTTP route for the HttpOnly session cookie
    (a websocket handler cannot set one). Stored as a digest like the rest.
    """

    __tablename__ = "ticket_sesion"

    ticket_hash: str = Field(primary_key=True, max_length=64, description="SHA-256 hex of the ticket.")
    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", index=True, max_length=40)
    expires_at: datetime
    second_factor_at: datetime | None = Field(
        default=None, description="Carried to the session (a password change keeps a passed second factor)."
    )


class LocalCredential(SQLModel, table=True):
    """credencial_local: an account of the local identity provider."""

    __tablename__ = "credencial_local"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    email: str = Field(max_length=EMAIL_MAX, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    email_verified: bool = False
    disabled: bool = False
    password_changed_at: datetime = Field(default_factory=utc_now)
    created_at: datetime = Field(default_factory=utc_now)


class ActionPurpose(StrEnum):
    """What a one-time code e-mailed by the local provider lets its holder do."""

    VERIFY_EMAIL = "verifyEmail"
    RESET_PASSWORD = "resetPassword"
    CHANGE_EMAIL = "verifyAndChangeEmail"  # sent to the new address; applying it changes the account's e-mail


class ActionCode(SQLModel, table=True):
    """codigo_accion: single-use, expiring code sent by e-mail (local provider)."""

    __tablename__ = "codigo_accion"

    code_hash: str = Field(primary_key=True, max_length=64, description="SHA-256 hex of the code.")
    credential_uid: str = Field(foreign_key="credencial_local.uid", ondelete="CASCADE", index=True, max_length=40)
    purpose: str = Field(max_length=20)
    new_email: str | None = Field(
        default=None, max_length=EMAIL_MAX, description="CHANGE_EMAIL: the address to change to."
    )
    created_at: datetime = Field(default_factory=utc_now)
    expires_at: datetime
    used_at: datetime | None = None
