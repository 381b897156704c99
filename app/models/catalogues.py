"""Catalogues staff maintain: listing tiers, agency categories, advertiser
types, advertiser services and the paid services the app sells.

Listing tiers (categoriaProfesor) decide the order of a city page: lower
``display_order`` first (Diamante 1, Ruby 2, Platino 3, Chicas del día 4).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString

FIXED_TIERS: tuple[tuple[str, str, int], ...] = (
    ("diamante", "Diamante", 1),
    ("ruby", "Ruby", 2),
    ("platino", "Platino", 3),
    ("chicas-del-dia", "Chicas del día", 4),
)
"""(slug, name, display_order) of the four tiers every database starts with."""


class TierBase(SQLModel):
    name: str = Field(max_length=60)
    slug: str = Field(max_length=60, unique=True, description="URL-safe name, e.g. chicas-del-dia.")
    display_order: int = Field(description="Order on the city page, 1 first.")
    description: str = Field(default="", max_length=500)


class Tier(TierBase, table=True):
    """categoriaProfesor: the tier a listing is shown in."""

    __tablename__ = "categoria_profesor"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class TierPublic(TierBase):
    uid: str


class AgencyCategory(SQLModel, table=True):
    """categoriaAgencia: grouping of agencies (for example by size)."""

    __tablename__ = "categoria_agencia"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    name: str = Field(max_length=60)
    display_order: int = 0
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class AdvertiserType(SQLModel, table=True):
    """tipoProfesor: how an advertiser works (independiente, de agencia...)."""

    __tablename__ = "tipo_profesor"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    name: str = Field(max_length=60)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class AdvertiserService(SQLModel, table=True):
    """servicioProfesor: a service an advertiser can list on a listing."""

    __tablename__ = "servicio_profesor"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    name: str = Field(max_length=60, unique=True)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class UpgradeEffect(StrEnum):
    """What an upgrade does while it is in force."""

    TIER = "nivel"  # shown in a higher tier (``tier_uid``)
    VIP = "vip"  # shown in the VIP tab
    BUMP = "subir"  # first of its tier


class AppService(EnumColumns, SQLModel, table=True):
    """servicioApp: a paid upgrade the app sells (price in CLP, duration in days).

    ``effect`` says what it does (None: sold by staff by hand, not requestable by advertisers);
    a tier upgrade names its ``tier_uid``.
    """

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"effect": UpgradeEffect}

    __tablename__ = "servicio_app"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    name: str = Field(max_length=80)
    description: str = Field(default="", max_length=500)
    price_clp: int = Field(ge=0)
    duration_days: int = Field(ge=1)
    effect: UpgradeEffect | None = Field(default=None, sa_type=EnumString(UpgradeEffect, 10), nullable=True)
    tier_uid: str | None = Field(default=None, foreign_key="categoria_profesor.uid", max_length=40)
    activo: bool = True
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
