"""Staff's directory of advertisers (profesor) and agencies (agencia).

Advertisers: staff (administrator and secretary) list, search and edit them, private fields
included (e-mail of the user, RUT or passport, nationality, birth date, verification); only an
administrator deletes one. Agencies are the administrator's alone: list, create, edit, delete
(an agency with advertisers is not deleted; the refusal says how many). Every write is audited
in the same transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, field_validator
from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from app.core.actor import Actor
from app.core.dates import TYPED_DAY_MASK
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.core.phone import normalize_chilean_mobile
from app.core.text import EMAIL_MAX, is_valid_email
from app.db import commit
from app.models import (
    Advertiser,
    AdvertiserType,
    Agency,
    AgencyCategory,
    Listing,
    ListingStatus,
    ProfileId,
    User,
    utc_now,
)
from app.services.listing_form import (
    DAY_TYPED_MAX,
    DOCUMENT_PASSPORT,
    DOCUMENT_RUT,
    PASSPORT_TYPED_MAX,
    RUT_TYPED_MAX,
    Catalogues,
    clean_step,
    nationalities,
)
from app.services.listings import clock
from app.services.staff import audit
from app.services.staff.shared import (
    StaffForm,
    StaffPage,
    TableQuery,
    count_message,
    ensure_may,
    ensure_staff,
    fetch_page,
    plain,
    search_condition,
    sort_order,
    validated,
)
from app.services.staff.table_spec import (
    ADMIN,
    SECRETARY,
    Column,
    Filter,
    FormField,
    TableSpec,
    form_fields,
    sort_columns,
)

ADVERTISERS = "profesor"
AGENCIES = "agencia"
# verified filter: value -> (label, verified)
VERIFIED_FILTERS = {"si": ("Verificados", True), "no": ("Sin verificar", False)}
LIVE_STATUSES = (ListingStatus.PUBLICADA, ListingStatus.PAUSADA, ListingStatus.PENDIENTE)
"""Listings an advertiser's record stands behind: it is not deleted while one of them is in these states."""

# --------------------------------------------------------------------------- advertisers


def _advertiser_row(advertiser: Advertiser, email: str, agency: str | None, kind: str | None) -> dict[str, Any]:
    return {
        "uid": advertiser.uid,
        "display_name": advertiser.display_name,
        "email": email,
        "document": DOCUMENT_PASSPORT if advertiser.passport else DOCUMENT_RUT,
        "rut": plain(advertiser.rut),
        "passport": plain(advertiser.passport),
        "nationality": advertiser.nationality,
        "birth_date": advertiser.birth_date.isoformat(),
        "phone": advertiser.phone,
        "verified": advertiser.verified,
        "agency_uid": advertiser.agency_uid or "",
        "agency": agency or "",
        "type_uid": advertiser.type_uid or "",
        "type": kind or "",
        "created_at": advertiser.created_at.isoformat(),
    }


def _advertisers() -> Select[Advertiser, str, str, str]:
    return (
        select(Advertiser, User.email, Agency.name, AdvertiserType.name)
        .join(User, col(User.uid) == col(Advertiser.user_uid))
        .outerjoin(Agency, col(Agency.uid) == col(Advertiser.agency_uid))
        .outerjoin(AdvertiserType, col(AdvertiserType.uid) == col(Advertiser.type_uid))
    )


def list_advertisers(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of advertisers with their private fields (staff only); search by name, e-mail, RUT,
    passport or phone; filter ``verified`` "si" / "no"."""
    ensure_may(session, actor.uid, ADVERTISERS_SPEC, "view")
    conditions: list[ColumnElement[bool]] = []
    found = search_condition(
        (Advertiser.display_name, User.email, Advertiser.rut, Advertiser.passport, Advertiser.phone), query
    )
    if found is not None:
        conditions.append(found)
    verified = ADVERTISERS_SPEC.filter_value("verified", query.filter("verified"))
    if verified:
        conditions.append(col(Advertiser.verified) == VERIFIED_FILTERS[verified][1])
    rows, total = fetch_page(
        session,
        _advertisers().where(*conditions),
        query,
        sort_order(ADVERTISERS_SPEC, ADVERTISER_SORTS, query, Advertiser.uid),
    )
    return StaffPage([_advertiser_row(*row) for row in rows], total, query.page, query.page_size)


class AdvertiserForm(StaffForm):
    """What staff may change of an advertiser besides the identity fields (checked like the wizard's step 1)."""

    display_name: str = Field(min_length=1, max_length=80)
    phone: str = Field(default="", max_length=40)
    verified: bool = False
    agency_uid: str = Field(default="", max_length=40, description="The agency's uid; empty: none.")
    type_uid: str = Field(default="", max_length=40, description="The advertiser type's uid; empty: none.")

    @field_validator("phone")
    @classmethod
    def _phone(cls, value: str) -> str:
        if not value:
            return ""
        phone = normalize_chilean_mobile(value)
        if phone is None:
            raise ValueError("Escribe un celular chileno válido, por ejemplo +56 9 1234 5678, o déjalo vacío.")
        return phone


ADVERTISERS_SPEC = TableSpec(
    entity=ADVERTISERS,
    title="Anunciantes",
    columns=(
        Column("display_name", "Nombre", sortable=True),
        Column("email", "Correo", sortable=True),
        Column("document_label", "Documento"),
        Column("birth_date", "Nacimiento", sortable=True),
        Column("nationality", "Nacionalidad"),
        Column("verified", "Verificado", sortable=True),
        Column("agency", "Agencia"),
        Column("type", "Tipo"),
    ),
    default_sort="display_name",
    filters=(Filter("verified", "Verificación", tuple((key, label) for key, (label, _) in VERIFIED_FILTERS.items())),),
    form_fields=form_fields(
        AdvertiserForm,
        FormField("email", "Correo de la cuenta del anunciante", required=True, max_length=EMAIL_MAX, on_edit=False),
        FormField("display_name", "Nombre"),
        FormField(
            "document",
            "Documento",
            kind="select",
            options=((DOCUMENT_RUT, "RUT"), (DOCUMENT_PASSPORT, "Pasaporte")),
            required=True,
        ),
        FormField("rut", "RUT", max_length=RUT_TYPED_MAX),
        FormField("passport", "Pasaporte", max_length=PASSPORT_TYPED_MAX),
        FormField("birth_date", f"Fecha de nacimiento ({TYPED_DAY_MASK})", required=True, max_length=DAY_TYPED_MAX),
        FormField(
            "nationality",
            "Nacionalidad",
            kind="select",
            options=tuple((name, name) for name in nationalities()),
            required=True,
        ),
        FormField("phone", "Celular"),
        FormField("verified", "Identidad verificada", kind="checkbox"),
        FormField("agency_uid", "Agencia", kind="select", from_data=True),
        FormField("type_uid", "Tipo de anunciante", kind="select", from_data=True),
    ),
    search_label="Buscar por nombre, correo, RUT, pasaporte o celular",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"create", "edit", "delete", "export"}),
    admin_only_actions=frozenset({"delete", "export"}),
    csv_name="anunciantes",
)
ADVERTISER_SORTS = sort_columns(
    ADVERTISERS_SPEC,
    {
        "display_name": Advertiser.display_name,
        "email": User.email,
        "birth_date": Advertiser.birth_date,
        "verified": Advertiser.verified,
    },
)


def _existing(session: Session, model: type, uid: str, field: str) -> str | None:
    """``uid`` when a ``model`` row has it (None for an empty choice), else InvalidInputError on ``field``."""
    if not uid:
        return None
    if session.get(model, uid) is None:
        raise InvalidInputError("Elige una opción de la lista.", field=field)
    return uid


def get_advertiser(*, session: Session, actor: Actor, uid: str) -> dict[str, Any]:
    """One advertiser's values for the edit form (staff)."""
    ensure_may(session, actor.uid, ADVERTISERS_SPEC, "edit")
    row = session.exec(_advertisers().where(Advertiser.uid == uid)).first()
    if row is None:
        raise NotFoundError("No encontramos ese anunciante.")
    return _advertiser_row(*row)


def _advertiser(session: Session, uid: object) -> Advertiser:
    advertiser = session.get(Advertiser, uid) if isinstance(uid, str) and uid else None
    if advertiser is None:
        raise NotFoundError("No encontramos ese anunciante.")
    return advertiser


def _advertiser_values(session: Session, data: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of an advertiser from the staff form, identity checked like the wizard's step 1."""
    form = validated(AdvertiserForm, data)
    identity = clean_step(
        1, data, today=clock().today, catalogues=Catalogues(frozenset(), frozenset(), frozenset())
    ).advertiser
    return identity | {
        "display_name": form.display_name,
        "phone": form.phone,
        "verified": form.verified,
        "agency_uid": _existing(session, Agency, form.agency_uid, "agency_uid"),
        "type_uid": _existing(session, AdvertiserType, form.type_uid, "type_uid"),
    }


def create_advertiser(*, session: Session, actor: Actor, data: Mapping[str, Any]) -> str:
    """Add the advertiser record of an existing advertiser account (``email``) that has none yet (staff);
    its uid."""
    ensure_may(session, actor.uid, ADVERTISERS_SPEC, "create")
    email = data.get("email") if isinstance(data, Mapping) else None
    email = email.strip().lower() if isinstance(email, str) else ""
    user = session.exec(select(User).where(User.email == email)).first() if email else None
    if user is None or user.profile_uid != ProfileId.PROFESOR:
        raise InvalidInputError("No hay una cuenta de anunciante con ese correo.", field="email")
    if session.exec(select(Advertiser.uid).where(Advertiser.user_uid == user.uid)).first() is not None:
        raise InvalidInputError("Esa cuenta ya tiene su ficha de anunciante: edítala en la tabla.", field="email")
    now = utc_now()
    advertiser = Advertiser(user_uid=user.uid, **_advertiser_values(session, data), created_at=now, updated_at=now)
    audit.created(session, advertiser, actor_uid=actor.uid, entity=ADVERTISERS)
    commit(session)
    return advertiser.uid


def update_advertiser(*, session: Session, actor: Actor, uid: str, data: Mapping[str, Any]) -> None:
    """Edit an advertiser's record (staff): name, identity (RUT or passport, birth date, nationality),
    phone, agency, type and verification."""
    ensure_may(session, actor.uid, ADVERTISERS_SPEC, "edit")
    values = _advertiser_values(session, data)
    audit.updated(session, _advertiser(session, uid), values, actor_uid=actor.uid, entity=ADVERTISERS)
    commit(session)


def delete_advertiser(*, session: Session, actor: Actor, uid: str) -> None:
    """Delete an advertiser's record (administrators only). The user account stays; while any of its
    listings is public, paused or waiting for review the record (the identity and age behind them) stays too."""
    ensure_may(session, actor.uid, ADVERTISERS_SPEC, "delete")
    advertiser = _advertiser(session, uid)
    live = session.exec(
        select(func.count())
        .select_from(Listing)
        .where(col(Listing.owner_uid) == advertiser.user_uid, col(Listing.status).in_(LIVE_STATUSES))
    ).one()
    if live:
        raise ConflictError(
            count_message(
                live,
                "Tiene 1 publicación publicada, pausada o en revisión: despublícala antes de eliminar su ficha.",
                "Tiene {n} publicaciones publicadas, pausadas o en revisión: despublícalas antes de eliminar su ficha.",
            )
        )
    audit.deleted(session, advertiser, actor_uid=actor.uid, entity=ADVERTISERS)
    commit(session)


# --------------------------------------------------------------------------- agencies


class AgencyForm(StaffForm):
    """agencia."""

    name: str = Field(min_length=1, max_length=120)
    category_uid: str = Field(default="", max_length=40, description="The agency category's uid; empty: none.")
    email: str = Field(default="", max_length=EMAIL_MAX)
    phone: str = Field(default="", max_length=30)
    activo: bool = True

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        value = value.lower()
        if value and not is_valid_email(value):
            raise ValueError("El correo electrónico no es válido.")
        return value


AGENCIES_SPEC = TableSpec(
    entity=AGENCIES,
    title="Agencias",
    columns=(
        Column("name", "Nombre", sortable=True),
        Column("category", "Categoría"),
        Column("email", "Correo", sortable=True),
        Column("phone", "Teléfono"),
        Column("activo", "Activa"),
    ),
    default_sort="name",
    filters=(Filter("category", "Categoría", from_data=True),),
    form_fields=form_fields(
        AgencyForm,
        FormField("name", "Nombre"),
        FormField("category_uid", "Categoría", kind="select", from_data=True),
        FormField("email", "Correo"),
        FormField("phone", "Teléfono"),
        FormField("activo", "Activa", kind="checkbox"),
    ),
    search_label="Buscar por nombre, correo o teléfono",
    profiles=(ADMIN,),
    csv_name="agencias",
)
AGENCY_SORTS = sort_columns(AGENCIES_SPEC, {"name": Agency.name, "email": Agency.email})


def _agency_row(agency: Agency, category_name: str | None) -> dict[str, Any]:
    return {column.name: plain(getattr(agency, column.name)) for column in Agency.__table__.columns} | {  # type: ignore[attr-defined]  # a table class has one
        "category": category_name or ""
    }


def get_agency(*, session: Session, actor: Actor, uid: str) -> dict[str, Any]:
    """One agency's values for the edit form (administrators only)."""
    ensure_may(session, actor.uid, AGENCIES_SPEC, "edit")
    agency = _agency(session, uid)
    category = session.get(AgencyCategory, agency.category_uid) if agency.category_uid else None
    return _agency_row(agency, category.name if category else None)


def list_agencies(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of agencies with their category's name (administrators only); filter ``category`` by uid."""
    ensure_may(session, actor.uid, AGENCIES_SPEC, "view")
    conditions: list[ColumnElement[bool]] = []
    found = search_condition((Agency.name, Agency.email, Agency.phone), query)
    if found is not None:
        conditions.append(found)
    category = AGENCIES_SPEC.filter_value("category", query.filter("category"))
    if category:
        conditions.append(col(Agency.category_uid) == category)
    statement = (
        select(Agency, AgencyCategory.name)
        .outerjoin(AgencyCategory, col(AgencyCategory.uid) == col(Agency.category_uid))
        .where(*conditions)
    )
    rows, total = fetch_page(session, statement, query, sort_order(AGENCIES_SPEC, AGENCY_SORTS, query, Agency.uid))
    return StaffPage([_agency_row(*row) for row in rows], total, query.page, query.page_size)


def agency_options(*, session: Session, actor: Actor) -> list[tuple[str, str]]:
    """(uid, name) of every agency by name, inactive ones so marked, for the advertiser form's select (staff)."""
    ensure_staff(session, actor.uid)
    rows = session.exec(select(Agency.uid, Agency.name, Agency.activo).order_by(Agency.name)).all()
    return [(uid, name if active else f"{name} (inactiva)") for uid, name, active in rows]


def _agency_values(session: Session, data: Mapping[str, Any]) -> dict[str, Any]:
    values = validated(AgencyForm, data).model_dump()
    return values | {"category_uid": _existing(session, AgencyCategory, values["category_uid"], "category_uid")}


def _agency(session: Session, uid: object) -> Agency:
    agency = session.get(Agency, uid) if isinstance(uid, str) and uid else None
    if agency is None:
        raise NotFoundError("No encontramos esa agencia.")
    return agency


def create_agency(*, session: Session, actor: Actor, data: Mapping[str, Any]) -> str:
    """Add an agency (administrators only); its uid."""
    ensure_may(session, actor.uid, AGENCIES_SPEC, "create")
    now = utc_now()
    agency = Agency(**_agency_values(session, data), created_at=now, updated_at=now)
    audit.created(session, agency, actor_uid=actor.uid, entity=AGENCIES)
    commit(session)
    return agency.uid


def update_agency(*, session: Session, actor: Actor, uid: str, data: Mapping[str, Any]) -> None:
    """Edit an agency (administrators only)."""
    ensure_may(session, actor.uid, AGENCIES_SPEC, "edit")
    values = _agency_values(session, data)
    audit.updated(session, _agency(session, uid), values, actor_uid=actor.uid, entity=AGENCIES)
    commit(session)


def delete_agency(*, session: Session, actor: Actor, uid: str) -> None:
    """Delete an agency no advertiser belongs to (administrators only)."""
    ensure_may(session, actor.uid, AGENCIES_SPEC, "delete")
    agency = _agency(session, uid)
    members = session.exec(
        select(func.count()).select_from(Advertiser).where(Advertiser.agency_uid == agency.uid)
    ).one()
    if members:
        raise ConflictError(
            count_message(members, "Esta agencia tiene 1 anunciante.", "Esta agencia tiene {n} anunciantes.")
        )
    audit.deleted(session, agency, actor_uid=actor.uid, entity=AGENCIES)
    commit(session)
