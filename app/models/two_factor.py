"""The staff's second factor (issue 20 §1): a TOTP secret per staff member and their recovery codes.

``segundo_factor`` keeps one row per staff user: the RFC 6238 secret encrypted
with a key derived from SECRET_KEY (app.services.two_factor), when it was
confirmed (None while setup is under way), and the last time step accepted, so
no code is ever accepted twice. ``codigo_recuperacion`` keeps the ten
single-use recovery codes as argon2 hashes. Nothing here holds a secret in clear.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column
from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now


class StaffSecondFactor(SQLModel, table=True):
    """segundo_factor: a staff member's TOTP authenticator (one per user)."""

    __tablename__ = "segundo_factor"

    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", primary_key=True, max_length=40)
    secret_encrypted: str = Field(max_length=255, description="The base32 secret, Fernet-encrypted.")
    created_at: datetime = Field(default_factory=utc_now)
    confirmed_at: datetime | None = Field(default=None, description="None until a first code confirmed the setup.")
    last_step: int | None = Field(
        default=None,
        sa_column=Column(BigInteger, nullable=True),
        description="The last accepted TOTP time step; a code of this step or an earlier one is refused.",
    )


class RecoveryCode(SQLModel, table=True):
    """codigo_recuperacion: one single-use recovery code of a staff member, as an argon2 hash."""

    __tablename__ = "codigo_recuperacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", index=True, max_length=40)
    code_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utc_now)
    used_at: datetime | None = None
