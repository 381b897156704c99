"""Listings (publicacion), their photos, services, reviews and upgrades.

A listing belongs to one owner (a user with the profesor profile) and is
shown in one section (``mujeres`` or ``trans``) of one city. Fields beyond
the obvious ones:

- ``tier_uid``: the categoriaProfesor tier that orders the city page;
  ``tier_rank`` is a copy of that tier's ``display_order`` so the city page
  reads its order straight from an index. Whoever sets a listing's tier or
  reorders the tiers writes it too.
- ``name_slug``: URL form of ``display_name``, used in detail URLs.
- rates are whole Chilean pesos; ``price_hour_clp`` is the card price, the
  others are optional.
- the filter-tab attributes: ``verified`` (staff checked the photos are the
  advertiser), ``porn_actress`` (actrizPorno, tab Estrellas XXX), ``curvy``
  (self-declared, tab Culonas), ``has_video`` (tab Video); age feeds Maduras.
- ``available_until``: end of the "Disponible AHORA" window (UTC), or None.
- ``visiting_from`` / ``visiting_until``: the Chilean calendar days the
  advertiser is visiting this city (tab De pasada), or None.
- ``status`` walks borrador → pendiente → publicada | rechazada; a published
  listing can be pausada by its owner or expirada when ``expires_at`` passes.
  Only ``publicada`` listings of active, non-banned owners are public.
- photos are ordered by ``position``; position 0 is the cover.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Column, Index, Text, desc
from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now


class Section(StrEnum):
    """The two public sections of the directory."""

    MUJERES = "mujeres"
    TRANS = "trans"


class ListingStatus(StrEnum):
    """Lifecycle of a listing."""

    BORRADOR = "borrador"
    PENDIENTE = "pendiente"
    PUBLICADA = "publicada"
    RECHAZADA = "rechazada"
    PAUSADA = "pausada"
    EXPIRADA = "expirada"


class Listing(SQLModel, table=True):
    """publicacion: one advertisement."""

    __tablename__ = "publicacion"
    __table_args__ = (
        # City page grouped by tier: ORDER BY tier_rank, published_at DESC, uid DESC.
        Index(
            "ix_publicacion_city_tier",
            "status",
            "section",
            "city_slug",
            "tier_rank",
            desc("published_at"),
            desc("uid"),
            "owner_uid",
        ),
        # /all page: ORDER BY published_at DESC, uid DESC (scanned backwards).
        Index("ix_publicacion_city_recent", "status", "section", "city_slug", "published_at", "uid", "owner_uid"),
        # Featured listings of a section across cities.
        Index("ix_publicacion_featured", "status", "section", "tier_rank", desc("published_at"), desc("uid")),
    )

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    owner_uid: str = Field(foreign_key="usuarios.uid", index=True, max_length=40)
    section: str = Field(default=Section.MUJERES, max_length=10)
    city_slug: str = Field(max_length=40)
    commune: str = Field(default="", max_length=60)
    tier_uid: str = Field(foreign_key="categoria_profesor.uid", max_length=40)
    tier_rank: int = Field(description="Copy of the tier's display_order.")
    display_name: str = Field(max_length=60)
    name_slug: str = Field(max_length=60)
    age: int = Field(ge=18, le=99)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    price_hour_clp: int = Field(ge=0)
    price_half_hour_clp: int | None = Field(default=None, ge=0)
    price_two_hours_clp: int | None = Field(default=None, ge=0)
    price_night_clp: int | None = Field(default=None, ge=0)
    phone: str = Field(default="", max_length=30)
    whatsapp: str = Field(default="", max_length=30)
    has_video: bool = False
    verified: bool = False
    porn_actress: bool = False
    curvy: bool = False
    available_until: datetime | None = None
    visiting_from: date | None = None
    visiting_until: date | None = None
    status: str = Field(default=ListingStatus.BORRADOR, max_length=12)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    published_at: datetime | None = None
    expires_at: datetime | None = None


class ListingPhoto(SQLModel, table=True):
    """A photo of a listing; ``path`` is relative to the media directory."""

    __tablename__ = "publicacion_foto"
    __table_args__ = (Index("ix_publicacion_foto_listing", "listing_uid", "position"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", max_length=40)
    position: int = Field(ge=0, description="0 is the cover.")
    path: str = Field(max_length=200)
    width: int = 0
    height: int = 0
    created_at: datetime = Field(default_factory=utc_now)


class ListingService(SQLModel, table=True):
    """Which advertiser services a listing offers."""

    __tablename__ = "publicacion_servicio"

    listing_uid: str = Field(foreign_key="publicacion.uid", primary_key=True, max_length=40)
    service_uid: str = Field(foreign_key="servicio_profesor.uid", primary_key=True, max_length=40)


class ReviewDecision(StrEnum):
    PENDIENTE = "pendiente"
    APROBADA = "aprobada"
    RECHAZADA = "rechazada"


class ListingReview(SQLModel, table=True):
    """revisarPublicacion: a staff review of a listing sent for publication."""

    __tablename__ = "revisar_publicacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", index=True, max_length=40)
    reviewer_uid: str | None = Field(default=None, foreign_key="usuarios.uid", max_length=40)
    decision: str = Field(default=ReviewDecision.PENDIENTE, max_length=12)
    reason: str = Field(default="", max_length=1000)
    created_at: datetime = Field(default_factory=utc_now)
    decided_at: datetime | None = None


class UpgradeStatus(StrEnum):
    SOLICITADA = "solicitada"
    ACTIVA = "activa"
    RECHAZADA = "rechazada"
    VENCIDA = "vencida"


class ListingUpgrade(SQLModel, table=True):
    """mejorasPublicacion: a paid upgrade (a servicioApp) bought for a listing."""

    __tablename__ = "mejoras_publicacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", index=True, max_length=40)
    app_service_uid: str = Field(foreign_key="servicio_app.uid", max_length=40)
    requested_by_uid: str = Field(foreign_key="usuarios.uid", max_length=40)
    status: str = Field(default=UpgradeStatus.SOLICITADA, max_length=12)
    amount_clp: int = Field(ge=0)
    starts_at: datetime | None = None
    ends_at: datetime | None = None
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class ListingCard(SQLModel):
    """What a listing card shows; the only listing data a city page sends."""

    uid: str
    section: str
    city_slug: str
    city_name: str
    commune: str
    display_name: str
    age: int
    tier_name: str
    tier_slug: str
    verified: bool
    has_video: bool
    porn_actress: bool
    available_now: bool
    price: str
    url: str
    photos: list[str]


class ListingDetail(ListingCard):
    """Everything the public detail page shows."""

    description: str
    services: list[str]
    rates: list[tuple[str, str]]
    phone: str
    whatsapp_url: str
    tel_url: str
    available_until: str
    visiting: str
    published: str
