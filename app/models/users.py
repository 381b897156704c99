"""Users (usuarios) and their profiles (perfilUsuario).

A user has exactly one profile. The four profiles are fixed rows whose
identifiers never change (``ProfileId``); code refers to them by those ids.
``activo`` false hides a user from lists; ``ban`` true signs the user out at
their next action and hides all their listings from the public site.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import field_validator
from sqlmodel import Field, SQLModel

from app.core.text import EMAIL_MAX, is_valid_email
from app.models.base import new_uid, utc_now

USER_NAME_MAX = 80
"""A user's display name ("Nombre o apodo"): its columns and the sign-up form."""


class ProfileId(StrEnum):
    """The fixed identifiers of the four user profiles."""

    ADMINISTRADOR = "administrador"
    CLIENTE = "cliente"
    PROFESOR = "profesor"
    SECRETARIA = "secretaria"


STAFF_PROFILES: frozenset[ProfileId] = frozenset({ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA})
"""The back office's profiles (a profile uid string is found in it too: ProfileId is a StrEnum)."""

PROFILE_LABELS: dict[ProfileId, str] = {
    ProfileId.ADMINISTRADOR: "Administrador",
    ProfileId.CLIENTE: "Cliente",
    ProfileId.PROFESOR: "Anunciante",
    ProfileId.SECRETARIA: "Secretaria",
}


class ProfileBase(SQLModel):
    name: str = Field(max_length=40, description="Fixed machine name, equal to the uid.")
    label: str = Field(max_length=60, description="Spanish name shown to staff.")


class Profile(ProfileBase, table=True):
    """perfilUsuario: one of the four fixed profiles."""

    __tablename__ = "perfil_usuario"

    uid: str = Field(primary_key=True, max_length=40)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class ProfileCreate(ProfileBase):
    uid: str = Field(max_length=40)


class ProfileUpdate(SQLModel):
    label: str | None = Field(default=None, max_length=60)


class ProfilePublic(ProfileBase):
    uid: str
    created_at: datetime
    updated_at: datetime


def _checked_email(value: str | None) -> str | None:
    """Lower-case and trim an e-mail; refuse one that does not look like an e-mail."""
    if value is None:
        return None
    value = value.strip().lower()
    if not is_valid_email(value):
        raise ValueError("El correo electrónico no es válido.")
    return value


class UserBase(SQLModel):
    email: str = Field(max_length=EMAIL_MAX, description="Stored lower-cased; unique.")
    display_name: str = Field(default="", max_length=USER_NAME_MAX)
    profile_uid: str = Field(foreign_key="perfil_usuario.uid", max_length=40, index=True)
    activo: bool = True


class User(UserBase, table=True):
    """usuarios: every person with an account."""

    __tablename__ = "usuarios"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    email: str = Field(max_length=EMAIL_MAX, unique=True, index=True)
    ban: bool = Field(
        default=False, description="Banned: signed out, listings hidden (publicacion.owner_hidden, by trigger)."
    )
    online: bool = Field(default=False, description="Set true at sign-in.")
    identity_uid: str | None = Field(
        default=None, max_length=128, unique=True, description="The account's id at the identity provider."
    )
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class UserCreate(UserBase):
    identity_uid: str | None = Field(default=None, max_length=128)

    _email = field_validator("email")(_checked_email)


class UserUpdate(SQLModel):
    """Merge-update: only the fields that are set are written."""

    email: str | None = Field(default=None, max_length=EMAIL_MAX)
    display_name: str | None = Field(default=None, max_length=USER_NAME_MAX)
    profile_uid: str | None = Field(default=None, max_length=40)
    activo: bool | None = None
    ban: bool | None = None
    online: bool | None = None

    _email = field_validator("email")(_checked_email)


class UserPublic(SQLModel):
    uid: str
    email: str
    display_name: str
    profile_uid: str
    activo: bool
    ban: bool
    online: bool
    created_at: datetime
    updated_at: datetime
