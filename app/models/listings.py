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
  (self-declared, tab Culonas), ``has_video`` (tab Video: an approved, ready clip, kept by the database);
  age feeds Maduras.
- ``available_until``: end of the "Disponible AHORA" window (UTC), or None.
- ``visiting_from`` / ``visiting_until``: the Chilean calendar days the
  advertiser is visiting this city (tab De pasada), or None.
- ``status`` walks borrador → pendiente → publicada | rechazada; a published
  listing can be pausada by its owner or expirada when ``expires_at`` passes.
  The allowed moves, and who may make each, are the table
  ``LISTING_TRANSITIONS`` (checked by app/services/listing_lifecycle.py).
  Only ``publicada`` listings of active, non-banned owners are public.
- photos are ordered by ``position``; position 0 is the cover.

Status columns (and ``section``) are typed with their StrEnum and stored as
its value in the same ``VARCHAR`` the migrations created (``EnumString``).

Per entity: ``XBase`` (fields a writer may set), ``XCreate`` (input of a
create), ``XUpdate`` (merge-update: only set fields are written), ``XPublic``
(what may reach a browser), ``X`` (the table). ``ListingPublic`` is the
owner's own view of a listing (my listings, the wizard); the public directory
keeps using ``ListingCard`` and ``ListingDetail``. Verification requests need
a table of their own (the private photo's key, the reviewer, dates) and come
with the migration of the verification work, not here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any, ClassVar

from sqlalchemy import Column, ColumnElement, Index, Text, desc, false, text
from sqlmodel import Field, SQLModel, col

from app.core.payment_codes import new_payment_code
from app.core.stored_values import StoredValue
from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString
from app.models.videos import PublicClip


class Section(StrEnum):
    """The two public sections of the directory."""

    MUJERES = "mujeres"
    TRANS = "trans"


class ListingStatus(StrEnum):
    """Lifecycle of a listing (stored values; the labels people see are LISTING_STATUS_LABELS)."""

    BORRADOR = "borrador"
    PENDIENTE = "pendiente"
    PUBLICADA = "publicada"
    RECHAZADA = "rechazada"
    PAUSADA = "pausada"
    EXPIRADA = "expirada"


LISTING_STATUS_LABELS: dict[ListingStatus, str] = {
    ListingStatus.BORRADOR: "Borrador",
    ListingStatus.PENDIENTE: "En revisión",
    ListingStatus.PUBLICADA: "Publicada",
    ListingStatus.RECHAZADA: "Rechazada",
    ListingStatus.PAUSADA: "Pausada",
    ListingStatus.EXPIRADA: "Expirada",
}


WIZARD_STEP_COUNT = 9
WIZARD_DONE = WIZARD_STEP_COUNT + 1
"""``Listing.wizard_step`` of a listing whose every step was saved."""


class ActorKind(StrEnum):
    """Who makes a status change: the listing's owner, staff, or the system's own clock."""

    OWNER = "owner"
    STAFF = "staff"
    SYSTEM = "system"


_S = ListingStatus
_OWNER = frozenset({ActorKind.OWNER})
_STAFF = frozenset({ActorKind.STAFF})
_SYSTEM = frozenset({ActorKind.SYSTEM})

# The listing lifecycle as data: (current, new) -> the actor kinds allowed to make that move.
# A pair that is missing is not allowed for anyone; staying in the same status is not a move.
#
# Decisions:
# - Editing a published listing does NOT leave ``publicada``: the edit is kept as a pending
#   revision for staff while the published version stays visible (issue 8), so there is no
#   publicada -> pendiente move.
# - Renewing an expired listing and resending a rejected one go through review again.
# - A paused listing keeps its expiry date: the clock can expire it, so "resume" never brings
#   back a listing whose time ran out.
# - Staff can take down a published or paused listing (rechazada, with a reason), e.g. after a
#   report; the owner then edits and resends it.
# - Staff can republish a listing they took down (rechazada -> publicada, issue 9): the service
#   allows it only for a listing that had been published and whose expiry date has not passed;
#   a listing refused at its first review goes back through the owner's edit and resend.
# - Deleting is not a status: the owner may delete a listing in any status.
LISTING_TRANSITIONS: dict[tuple[ListingStatus, ListingStatus], frozenset[ActorKind]] = {
    (_S.BORRADOR, _S.PENDIENTE): _OWNER,  # send to review
    (_S.PENDIENTE, _S.PUBLICADA): _STAFF,  # approve
    (_S.PENDIENTE, _S.RECHAZADA): _STAFF,  # reject, with a reason
    (_S.PUBLICADA, _S.PAUSADA): _OWNER,  # pause
    (_S.PAUSADA, _S.PUBLICADA): _OWNER,  # resume
    (_S.PUBLICADA, _S.EXPIRADA): _SYSTEM,  # expires_at passed
    (_S.PAUSADA, _S.EXPIRADA): _SYSTEM,  # expires_at passed while paused
    (_S.EXPIRADA, _S.PENDIENTE): _OWNER,  # renew
    (_S.RECHAZADA, _S.PENDIENTE): _OWNER,  # edit and resend
    (_S.PUBLICADA, _S.RECHAZADA): _STAFF,  # take down
    (_S.PAUSADA, _S.RECHAZADA): _STAFF,  # take down
    (_S.RECHAZADA, _S.PUBLICADA): _STAFF,  # republish after a take down
}

# The owner's buttons on "my listings" that move a listing, each by name: one owner move of the table
# above (a draft and a rejected listing are sent through the wizard instead).
OWNER_MOVES: dict[str, tuple[ListingStatus, ListingStatus]] = {
    "pause": (_S.PUBLICADA, _S.PAUSADA),
    "resume": (_S.PAUSADA, _S.PUBLICADA),
    "renew": (_S.EXPIRADA, _S.PENDIENTE),
}
_EVER_SENT = frozenset(_S) - {_S.BORRADOR}
# The owner's other actions, which keep the status: the statuses in which each is offered.
OWNER_ACTIONS: dict[str, frozenset[ListingStatus]] = {
    "continue": frozenset({_S.BORRADOR}),  # the wizard goes on with the draft
    "edit": _EVER_SENT,  # the wizard from its first step (an edit of a live listing waits for review)
    "copy": _EVER_SENT,
    "verify": _EVER_SENT,
    "available_now": frozenset({_S.PUBLICADA}),
    "upgrade": frozenset({_S.PUBLICADA, _S.PAUSADA}),
}


# A listing's limits, in one place: the columns below, the wizard's rules (services/listing_form.py), the staff
# form and the pages' ``max_length`` all read these.
DISPLAY_NAME_MAX = 60
COMMUNE_MAX = 60
DESCRIPTION_MAX = 4000
ADULT_AGE = 18
MAX_AGE = 99
PHONE_MAX = 30
REASON_MAX = 1000
"""The reason staff give the owner when they reject a listing, an edit, a badge or an upgrade."""
PAYMENT_REFERENCE_MAX = 80
"""The reference of the payment staff confirmed for an upgrade."""


class ListingBase(SQLModel):
    """What an advertiser writes about a listing (the wizard's fields)."""

    section: Section = Section.MUJERES
    city_slug: str = Field(max_length=40)
    commune: str = Field(default="", max_length=COMMUNE_MAX)
    tier_uid: str = Field(max_length=40)
    display_name: str = Field(max_length=DISPLAY_NAME_MAX)
    age: int = Field(ge=ADULT_AGE, le=MAX_AGE)
    description: str = Field(default="", max_length=DESCRIPTION_MAX)
    price_hour_clp: int = Field(ge=0)
    price_half_hour_clp: int | None = Field(default=None, ge=0)
    price_two_hours_clp: int | None = Field(default=None, ge=0)
    price_night_clp: int | None = Field(default=None, ge=0)
    phone: str = Field(default="", max_length=PHONE_MAX)
    whatsapp: str = Field(default="", max_length=PHONE_MAX)
    porn_actress: bool = False
    curvy: bool = False
    visiting_from: date | None = None
    visiting_until: date | None = None


# The city-page indexes' shared parts (migrations 0010, 0014, 0015 and 0016 build them; docs/performance.md says
# why). A public listing's owner is visible (owner_hidden false, app.services.listings.public_conditions): that
# equality is part of every prefix, so a page walks only public listings.
CITY = ("status", "section", "city_slug", "owner_hidden")
TIER_ORDER: tuple[Any, ...] = ("tier_rank", desc("ranked_at"), desc("uid"))
# What a page's filters check besides the city (app.models.listing_filters).
CHECKED_EXCEPT_COMMUNE = ("price_hour_clp", "age", "service_uids")
CHECKED = ("price_hour_clp", "age", "commune", "service_uids")
# What the filter tabs check (app.models.filter_tabs): in the index, a tab's count never reads the table.
TAB_COLUMNS = (
    "curvy",
    "porn_actress",
    "verified",
    "has_video",
    "available_until",
    "visiting_from",
    "visiting_until",
    "published_at",
    "vip_until",
    "tier_uid",
)


class Listing(EnumColumns, ListingBase, table=True):
    """publicacion: one advertisement."""

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"section": Section, "status": ListingStatus}

    __tablename__ = "publicacion"
    __table_args__ = (
        # City page grouped by tier: ORDER BY tier_rank, ranked_at DESC, uid DESC.
        Index("ix_publicacion_city_tier", *CITY, *TIER_ORDER),
        # /all page: ORDER BY published_at DESC, uid DESC (scanned backwards).
        Index("ix_publicacion_city_recent", *CITY, "published_at", "uid"),
        # Featured listings of a section across cities.
        Index("ix_publicacion_featured", "status", "section", "owner_hidden", *TIER_ORDER),
        # The city page filtered by a commune (in tier order; its count without the table), and the communes a
        # city's filter offers.
        Index("ix_publicacion_city_commune", *CITY, "commune", *TIER_ORDER, *CHECKED_EXCEPT_COMMUNE, *TAB_COLUMNS),
        # The count of a rate filter: only that range of a city's rates, checked in the index.
        Index(
            "ix_publicacion_city_price",
            *CITY,
            "price_hour_clp",
            "age",
            "commune",
            "service_uids",
            *TAB_COLUMNS,
        ),
        # The page and count of any tab with rate, age or services filters: in tier order, checked in the index.
        Index("ix_publicacion_city_filters", *CITY, *TIER_ORDER, *CHECKED, *TAB_COLUMNS),
        # The tabs few listings match: their page and count walk only those listings (a partial index each).
        Index(
            "ix_publicacion_city_porn",
            *CITY,
            *TIER_ORDER,
            *CHECKED,
            postgresql_where=text("porn_actress"),
            sqlite_where=text("porn_actress"),
        ),
        Index(
            "ix_publicacion_city_available",
            *CITY,
            *TIER_ORDER,
            *CHECKED,
            "available_until",
            postgresql_where=text("available_until IS NOT NULL"),
            sqlite_where=text("available_until IS NOT NULL"),
        ),
        Index(
            "ix_publicacion_city_visiting",
            *CITY,
            *TIER_ORDER,
            *CHECKED,
            "visiting_from",
            "visiting_until",
            postgresql_where=text("visiting_until IS NOT NULL"),
            sqlite_where=text("visiting_until IS NOT NULL"),
        ),
    )

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    owner_uid: str = Field(foreign_key="usuarios.uid", index=True, max_length=40)
    section: Section = Field(default=Section.MUJERES, sa_type=EnumString(Section, 10), nullable=False)
    # A draft (borrador) is saved after every wizard step, so these are empty until their step;
    # sending to review validates the whole listing against ListingCreate. (Hence optional here
    # where ListingBase requires them: the ignores below say that to mypy.)
    city_slug: str | None = Field(default=None, max_length=40)  # type: ignore[assignment]
    tier_uid: str | None = Field(default=None, foreign_key="categoria_profesor.uid", max_length=40)  # type: ignore[assignment]
    tier_rank: int | None = Field(default=None, description="Copy of the effective tier's display_order.")
    base_tier_uid: str | None = Field(
        default=None, foreign_key="categoria_profesor.uid", max_length=40, description="The advertiser's own tier."
    )
    display_name: str | None = Field(default=None, max_length=DISPLAY_NAME_MAX)  # type: ignore[assignment]
    name_slug: str | None = Field(default=None, max_length=60)
    age: int | None = Field(default=None, ge=ADULT_AGE, le=MAX_AGE)  # type: ignore[assignment]
    price_hour_clp: int | None = Field(default=None, ge=0)  # type: ignore[assignment]
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    schedule: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    wizard_step: int = Field(default=1, description="The first wizard step the owner has not saved yet.")
    verified: bool = False
    verified_at: datetime | None = Field(default=None, description="Last verification approval; kept while suspended.")
    available_until: datetime | None = None
    vip_until: datetime | None = None
    ranked_at: datetime | None = Field(default=None, description="Order within a tier: published_at, or a bump.")
    revision: str | None = Field(
        default=None, sa_column=Column(Text, nullable=True), description="JSON of an edit waiting for review."
    )
    revision_at: datetime | None = None
    service_uids: str = Field(
        default="",
        sa_column=Column(Text, nullable=False, default="", server_default=""),
        description="The services of publicacion_servicio again, as services_text() writes them: the filter reads "
        "them here, in its index (app.services.listing_revisions.set_services writes both).",
    )
    status: ListingStatus = Field(default=ListingStatus.BORRADOR, sa_type=EnumString(ListingStatus, 12), nullable=False)
    has_video: bool = Field(
        default=False,
        description="The listing has an approved, ready clip (app.models.videos): the database's triggers "
        "(migration 0018) keep it in step with publicacion_video, on every write of either table; the code never "
        "sets it.",
    )
    owner_hidden: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": false()},
        description="The owner is banned or inactive: the database's triggers (migration 0016) keep it in step with "
        "usuarios, on every write of either table; the code never sets it.",
    )
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    published_at: datetime | None = None
    expires_at: datetime | None = None


class ListingCreate(ListingBase):
    """A new listing (a draft): the owner, status and derived columns are set by the service."""


class ListingUpdate(SQLModel):
    """Merge-update of an advertiser's fields: only the fields that are set are written."""

    section: Section | None = None
    city_slug: str | None = Field(default=None, max_length=40)
    commune: str | None = Field(default=None, max_length=COMMUNE_MAX)
    tier_uid: str | None = Field(default=None, max_length=40)
    display_name: str | None = Field(default=None, max_length=DISPLAY_NAME_MAX)
    age: int | None = Field(default=None, ge=ADULT_AGE, le=MAX_AGE)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    price_hour_clp: int | None = Field(default=None, ge=0)
    price_half_hour_clp: int | None = Field(default=None, ge=0)
    price_two_hours_clp: int | None = Field(default=None, ge=0)
    price_night_clp: int | None = Field(default=None, ge=0)
    phone: str | None = Field(default=None, max_length=PHONE_MAX)
    whatsapp: str | None = Field(default=None, max_length=PHONE_MAX)
    porn_actress: bool | None = None
    curvy: bool | None = None
    visiting_from: date | None = None
    visiting_until: date | None = None


class ListingPublic(ListingUpdate):
    """The owner's own view of a listing (my listings, the wizard): a draft may still miss fields.

    Never the tier rank, the pending revision's content or other internals.
    """

    uid: str
    name_slug: str | None
    schedule: str
    wizard_step: int
    verified: bool
    verified_at: datetime | None
    available_until: datetime | None
    vip_until: datetime | None
    revision_at: datetime | None
    status: ListingStatus
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None
    expires_at: datetime | None


class ListingPhotoBase(SQLModel):
    position: int = Field(ge=0, description="0 is the cover.")


class ListingPhoto(ListingPhotoBase, table=True):
    """A photo of a listing; ``path`` is the storage key of its default size (800 px wide or less)."""

    __tablename__ = "publicacion_foto"
    __table_args__ = (Index("ix_publicacion_foto_listing", "listing_uid", "position"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", max_length=40)
    path: str = Field(max_length=200, index=True)
    width: int = 0
    height: int = 0
    stem: str | None = Field(
        default=None, max_length=160, index=True, description="Pipeline photos: keys are {stem}-{width}.webp."
    )
    widths: str = Field(default="", max_length=40, description="Stored widths, comma separated (pipeline photos).")
    phash: str | None = Field(default=None, max_length=32, index=True)
    approved: bool = Field(default=True, description="False while a photo added to a published listing awaits review.")
    created_at: datetime = Field(default_factory=utc_now)


class ListingPhotoCreate(ListingPhotoBase):
    """A stored photo: written by the photo service after processing, never from client input."""

    listing_uid: str = Field(max_length=40)
    path: str = Field(max_length=200)
    width: int = Field(default=0, ge=0)
    height: int = Field(default=0, ge=0)


class ListingPhotoUpdate(SQLModel):
    """Reorder: the new position (0 makes it the cover)."""

    position: int | None = Field(default=None, ge=0)


class ListingPhotoPublic(ListingPhotoBase):
    uid: str
    listing_uid: str
    path: str
    width: int
    height: int
    approved: bool
    created_at: datetime


def services_text(service_uids: Iterable[str]) -> str:
    """A listing's services as its row keeps them (``Listing.service_uids``): " uid1 uid2 ", sorted, each between
    spaces; "" for none."""
    uids = sorted(set(service_uids))
    return f" {' '.join(uids)} " if uids else ""


# The escape character of :func:`service_pattern` (SQLAlchemy's own for ``contains(..., autoescape=True)``).
_LIKE_ESCAPE = "/"


def service_pattern(service_uid: str) -> str:
    """The LIKE pattern of the listings offering a service (the value of :func:`offers_service`'s parameter): its
    uid between spaces anywhere in the row's services, LIKE's wildcards in it escaped."""
    escaped = service_uid.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2)
    for wildcard in "%_":
        escaped = escaped.replace(wildcard, _LIKE_ESCAPE + wildcard)
    return f"% {escaped} %"


def offers_service(pattern: ColumnElement[str]) -> ColumnElement[bool]:
    """The condition that a listing offers a service, read from its row (no join, checked in an index): its
    services match ``pattern``, a bound parameter whose value is :func:`service_pattern`."""
    return col(Listing.service_uids).like(pattern, escape=_LIKE_ESCAPE)


class ListingService(SQLModel, table=True):
    """Which advertiser services a listing offers."""

    __tablename__ = "publicacion_servicio"
    # The listings that offer a service (the city page's services filter).
    __table_args__ = (Index("ix_publicacion_servicio_service", "service_uid", "listing_uid"),)

    listing_uid: str = Field(foreign_key="publicacion.uid", primary_key=True, max_length=40)
    service_uid: str = Field(foreign_key="servicio_profesor.uid", primary_key=True, max_length=40)


class ReviewDecision(StrEnum):
    PENDIENTE = "pendiente"
    APROBADA = "aprobada"
    RECHAZADA = "rechazada"


class ListingReview(EnumColumns, SQLModel, table=True):
    """revisarPublicacion: a staff review of a listing sent for publication."""

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"decision": ReviewDecision}

    __tablename__ = "revisar_publicacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", index=True, max_length=40)
    reviewer_uid: str | None = Field(default=None, foreign_key="usuarios.uid", max_length=40)
    decision: ReviewDecision = Field(
        default=ReviewDecision.PENDIENTE, sa_type=EnumString(ReviewDecision, 12), nullable=False
    )
    reason: str = Field(default="", max_length=REASON_MAX)
    created_at: datetime = Field(default_factory=utc_now)
    decided_at: datetime | None = None


class UpgradeStatus(StrEnum):
    """solicitada (waiting for staff) → activa (approved, with dates; in force between them)
    → vencida (its end passed); or rechazada by staff."""

    SOLICITADA = "solicitada"
    ACTIVA = "activa"
    RECHAZADA = "rechazada"
    VENCIDA = "vencida"


UPGRADE_STATUS_LABELS: dict[UpgradeStatus, str] = {
    UpgradeStatus.SOLICITADA: "Solicitada",
    UpgradeStatus.ACTIVA: "Aprobada",
    UpgradeStatus.RECHAZADA: "Rechazada",
    UpgradeStatus.VENCIDA: "Terminada",
}


class ListingUpgradeBase(SQLModel):
    """What an advertiser asks for: which servicioApp, for which listing, for which period."""

    listing_uid: str = Field(max_length=40)
    app_service_uid: str = Field(max_length=40)
    starts_at: datetime | None = None
    ends_at: datetime | None = None


class ListingUpgrade(EnumColumns, ListingUpgradeBase, table=True):
    """mejorasPublicacion: a paid upgrade (a servicioApp) bought for a listing."""

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"status": UpgradeStatus}

    __tablename__ = "mejoras_publicacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", index=True, max_length=40)
    app_service_uid: str = Field(foreign_key="servicio_app.uid", max_length=40)
    requested_by_uid: str = Field(foreign_key="usuarios.uid", max_length=40)
    status: UpgradeStatus = Field(
        default=UpgradeStatus.SOLICITADA, sa_type=EnumString(UpgradeStatus, 12), nullable=False
    )
    amount_clp: int = Field(ge=0)
    reviewer_uid: str | None = Field(default=None, foreign_key="usuarios.uid", max_length=40)
    payment_reference: str = Field(
        default="", max_length=PAYMENT_REFERENCE_MAX, description="The payment staff confirmed."
    )
    payment_code: str = Field(
        default_factory=new_payment_code,
        max_length=9,
        unique=True,
        description="The reference the advertiser pays with (K7QM-4RTX); staff match payments by it.",
    )
    reason: str = Field(default="", max_length=REASON_MAX, description="Why staff denied it (shown to the owner).")
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class ListingUpgradeCreate(ListingUpgradeBase):
    """An upgrade request; the requester, price (from the servicioApp) and status are set by the service."""


class ListingUpgradeUpdate(SQLModel):
    """Staff decision and dates; only the fields that are set are written."""

    status: UpgradeStatus | None = None
    starts_at: datetime | None = None
    ends_at: datetime | None = None


class ListingUpgradePublic(ListingUpgradeBase):
    uid: str
    requested_by_uid: str
    status: UpgradeStatus
    amount_clp: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class ListingCard(StoredValue):
    """What a listing card shows; the only listing data a city page sends.

    A frozen dataclass with tuple fields: a card is built once per page and change of the listings and then
    shared by every visitor it is shown to (app.services.page_cache), so nothing may change it, and nothing has
    to copy it. Plain values, not a pydantic model: every event that shows cards compares, serializes and (with
    Redis) pickles them, and a dataclass does each several times faster.
    """

    uid: str
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
    photos: tuple[str, ...]


@dataclass(frozen=True)
class ListingDetail(ListingCard):
    """Everything the public detail page shows (frozen and shared, as ListingCard): the card's fields, where the
    listing is (its crumbs and title name the city; a card shows none of it, so a city page does not send it),
    and the rest of the listing."""

    section: str
    city_slug: str
    city_name: str
    description: str
    services: tuple[str, ...]
    rates: tuple[tuple[str, str], ...]
    phone: str
    whatsapp_url: str
    tel_url: str
    available_until: str
    visiting: str
    published: str
    verified_on: str = ""
    clips: tuple[PublicClip, ...] = ()


class VerificationStatus(StrEnum):
    SOLICITADA = "solicitada"
    APROBADA = "aprobada"
    RECHAZADA = "rechazada"


class ListingVerification(EnumColumns, SQLModel, table=True):
    """verificacionPublicacion: a request for the "Verificada" badge with its private photo.

    ``storage_key`` points into the private storage (never /media or /_upload); it is
    cleared once the photo is deleted after the decision.
    """

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"status": VerificationStatus}

    __tablename__ = "verificacion_publicacion"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", index=True, max_length=40)
    owner_uid: str = Field(foreign_key="usuarios.uid", max_length=40)
    storage_key: str | None = Field(default=None, max_length=200)
    status: VerificationStatus = Field(
        default=VerificationStatus.SOLICITADA, sa_type=EnumString(VerificationStatus, 12), nullable=False
    )
    reason: str = Field(default="", max_length=REASON_MAX)
    reviewer_uid: str | None = Field(default=None, foreign_key="usuarios.uid", max_length=40)
    created_at: datetime = Field(default_factory=utc_now)
    decided_at: datetime | None = None


class ListingVerificationPublic(SQLModel):
    """What the owner sees of a verification request (never the storage key)."""

    uid: str
    listing_uid: str
    status: VerificationStatus
    reason: str
    created_at: datetime
    decided_at: datetime | None


class ListingDailyStats(SQLModel, table=True):
    """estadisticaPublicacion: one row per listing per Chilean day, counters only (never one row per view)."""

    __tablename__ = "estadistica_publicacion"

    listing_uid: str = Field(foreign_key="publicacion.uid", primary_key=True, max_length=40)
    day: date = Field(primary_key=True)
    views: int = 0
    whatsapp_clicks: int = 0
    call_clicks: int = 0
