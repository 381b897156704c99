"""Advertisers (profesor) and agencies (agencia).

An advertiser is the adult behind listings: one row per advertiser user,
holding what staff need to check age and consent. ``birth_date`` proves
adulthood (the service layer refuses anyone under 18); ``consent_at`` is when
the advertiser accepted the advertiser agreement; ``verified`` is set by
staff after checking identity. Chileans give a RUT, foreigners a passport
number; both, the birth date and the nationality are private (staff only).

Identity is reviewed: the first one with the advertiser's first listing
(``identity_reviewed_at`` is set when staff approve it). Once reviewed, a
change made in the wizard waits in the ``pending_*`` columns
(``identity_pending_at`` says one waits) and travels with the next listing the
owner sends (``identity_listing_uid``): approving that listing applies it,
rejecting it discards it. Until then staff pages show the approved identity.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import Field, SQLModel

from app.core.text import EMAIL_MAX
from app.models.base import new_uid, utc_now

RUT_MAX = 12  # a formatted RUT, "12.345.678-5"
PASSPORT_MAX = 20


class Agency(SQLModel, table=True):
    """agencia: a business that manages several advertisers."""

    __tablename__ = "agencia"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    name: str = Field(max_length=120)
    category_uid: str | None = Field(default=None, foreign_key="categoria_agencia.uid", max_length=40)
    email: str = Field(default="", max_length=EMAIL_MAX)
    phone: str = Field(default="", max_length=30)
    activo: bool = True
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class Advertiser(SQLModel, table=True):
    """profesor: the advertiser's own record, linked one-to-one to a user."""

    __tablename__ = "profesor"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    user_uid: str = Field(foreign_key="usuarios.uid", unique=True, max_length=40)
    agency_uid: str | None = Field(default=None, foreign_key="agencia.uid", max_length=40)
    type_uid: str | None = Field(default=None, foreign_key="tipo_profesor.uid", max_length=40)
    display_name: str = Field(max_length=80)
    rut: str | None = Field(default=None, max_length=RUT_MAX, description="Formatted RUT, checked.")
    passport: str | None = Field(
        default=None, max_length=PASSPORT_MAX, description="Foreign advertisers, instead of a RUT."
    )
    nationality: str = Field(default="", max_length=60)
    birth_date: date = Field(description="Must make the advertiser 18 or older.")
    phone: str = Field(default="", max_length=30)
    consent_at: datetime | None = Field(default=None, description="Agreement accepted at.")
    verified: bool = False
    identity_reviewed_at: datetime | None = Field(default=None, description="Staff approved the identity at.")
    pending_rut: str | None = Field(default=None, max_length=RUT_MAX)
    pending_passport: str | None = Field(default=None, max_length=PASSPORT_MAX)
    pending_nationality: str | None = Field(default=None, max_length=60)
    pending_birth_date: date | None = None
    identity_pending_at: datetime | None = Field(default=None, description="A change of a reviewed identity waits.")
    identity_listing_uid: str | None = Field(
        default=None, max_length=40, description="The listing sent to review with the pending identity."
    )
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
