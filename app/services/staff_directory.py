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
from sqlalchemy import func
from sqlmodel import Session, select

from app.core.phone import normalize_chilean_mobile
from app.core.text import is_valid_email
from app.models import Advertiser, AdvertiserType, Agency, AgencyCategory, User, utc_now
from app.services import audit
from app.services.catalogues import (
    PAGE_SIZE,
    StaffForm,
    StaffPage,
    count_message,
    ensure_admin,
    find_by_name,
    page_bounds,
    plain,
    search_condition,
    sort_order,
    validated,
)
from app.services.errors import ConflictError, InvalidInputError, NotFoundError
from app.services.listing_form import DOCUMENT_PASSPORT, DOCUMENT_RUT, Catalogues, clean_step
from app.services.listings import clock
from app.services.staff import ensure_staff

ADVERTISERS = "profesor"
AGENCIES = "agencia"
VERIFIED_FILTERS = {"si": True, "no": False}

# --------------------------------------------------------------------------- advertisers

ADVERTISER_SORTS = {
    "display_name": Advertiser.display_name,
    "email": User.email,
    "birth_date": Advertiser.birth_date,
    "verified": Advertiser.verified,
    "created_at": Advertiser.created_at,
}


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
        "agency": agency or "",
        "type": kind or "",
        "created_at": advertiser.created_at.isoformat(),
    }


def list_advertisers(
    *,
    session: Session,
    actor_uid: str,
    search: str = "",
    verified: str = "",
    sort: str = "",
    descending: bool = False,
    page: int = 1,
    page_size: int = PAGE_SIZE,
) -> StaffPage:
    """One page of advertisers with their private fields (staff only); search by name, e-mail, RUT,
    passport or phone; filter ``verified`` "si" / "no"."""
    ensure_staff(session, actor_uid)
    page, page_size = page_bounds(page, page_size)
    conditions = []
    found = search_condition(
        (Advertiser.display_name, User.email, Advertiser.rut, Advertiser.passport, Advertiser.phone), search
    )
    if found is not None:
        conditions.append(found)
    if verified in VERIFIED_FILTERS:
        conditions.append(Advertiser.verified == VERIFIED_FILTERS[verified])
    joined = select(func.count()).select_from(Advertiser).join(User, User.uid == Advertiser.user_uid)
    total = session.exec(joined.where(*conditions)).one()
    rows = session.exec(
        select(Advertiser, User.email, Agency.name, AdvertiserType.name)
        .join(User, User.uid == Advertiser.user_uid)
        .outerjoin(Agency, Agency.uid == Advertiser.agency_uid)
        .outerjoin(AdvertiserType, AdvertiserType.uid == Advertiser.type_uid)
        .where(*conditions)
        .order_by(*sort_order(ADVERTISER_SORTS, sort, "created_at", descending, Advertiser.uid))
        .offset((page - 1) * page_size)
        .limit(page_size)
    ).all()
    return StaffPage(rows=[_advertiser_row(*row) for row in rows], total=total, page=page, page_size=page_size)


class AdvertiserForm(StaffForm):
    """What staff may change of an advertiser besides the identity fields (checked like the wizard's step 1)."""

    display_name: str = Field(min_length=1, max_length=80)
    phone: str = Field(default="", max_length=40)
    verified: bool = False
    agency: str = Field(default="", max_length=120, description="The agency's name; empty: none.")
    type: str = Field(default="", max_length=60, description="The advertiser type's name; empty: none.")

    @field_validator("phone")
    @classmethod
    def _phone(cls, value: str) -> str:
        if not value:
            return ""
        phone = normalize_chilean_mobile(value)
        if phone is None:
            raise ValueError("Escribe un celular chileno válido, por ejemplo +56 9 1234 5678, o déjalo vacío.")
        return phone


def _named(session: Session, model: type, name: str, field: str, message: str) -> str | None:
    """The uid of the ``model`` row called ``name`` (None for an empty name), or InvalidInputError on ``field``."""
    if not name:
        return None
    uid = find_by_name(session, model, name)
    if uid is None:
        raise InvalidInputError(message, field=field)
    return uid


def get_advertiser(*, session: Session, actor_uid: str, uid: str) -> dict[str, Any]:
    """One advertiser's values for the edit form (staff)."""
    ensure_staff(session, actor_uid)
    row = session.exec(
        select(Advertiser, User.email, Agency.name, AdvertiserType.name)
        .join(User, User.uid == Advertiser.user_uid)
        .outerjoin(Agency, Agency.uid == Advertiser.agency_uid)
        .outerjoin(AdvertiserType, AdvertiserType.uid == Advertiser.type_uid)
        .where(Advertiser.uid == uid)
    ).first()
    if row is None:
        raise NotFoundError("No encontramos ese anunciante.")
    return _advertiser_row(*row)


def _advertiser(session: Session, uid: object) -> Advertiser:
    advertiser = session.get(Advertiser, uid) if isinstance(uid, str) and uid else None
    if advertiser is None:
        raise NotFoundError("No encontramos ese anunciante.")
    return advertiser


def update_advertiser(*, session: Session, actor_uid: str, uid: str, data: Mapping[str, Any]) -> None:
    """Edit an advertiser's record (staff): name, identity (RUT or passport, birth date, nationality),
    phone, agency, type and verification."""
    ensure_staff(session, actor_uid)
    form = validated(AdvertiserForm, data)
    identity = clean_step(
        1, data, today=clock().today, catalogues=Catalogues(frozenset(), frozenset(), frozenset())
    ).advertiser
    values = {
        "display_name": form.display_name,
        "phone": form.phone,
        "verified": form.verified,
        "agency_uid": _named(session, Agency, form.agency, "agency", "No hay una agencia con ese nombre."),
        "type_uid": _named(session, AdvertiserType, form.type, "type", "No hay un tipo de anunciante con ese nombre."),
    }
    advertiser = _advertiser(session, uid)
    before = audit.snapshot(advertiser)
    for name, value in {**values, **identity}.items():
        setattr(advertiser, name, value)
    advertiser.updated_at = utc_now()
    session.add(advertiser)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="editar",
        entity=ADVERTISERS,
        entity_uid=advertiser.uid,
        before=before,
        after=audit.snapshot(advertiser),
    )
    session.commit()


def delete_advertiser(*, session: Session, actor_uid: str, uid: str) -> None:
    """Delete an advertiser's record (administrators only); the user account and its listings stay."""
    ensure_admin(session, actor_uid)
    advertiser = _advertiser(session, uid)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="eliminar",
        entity=ADVERTISERS,
        entity_uid=advertiser.uid,
        before=audit.snapshot(advertiser),
    )
    session.delete(advertiser)
    session.commit()


# --------------------------------------------------------------------------- agencies

AGENCY_SORTS = {"name": Agency.name, "email": Agency.email, "created_at": Agency.created_at}


class AgencyForm(StaffForm):
    """agencia."""

    name: str = Field(min_length=1, max_length=120)
    category: str = Field(default="", max_length=60, description="The agency category's name; empty: none.")
    email: str = Field(default="", max_length=254)
    phone: str = Field(default="", max_length=30)
    activo: bool = True

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        value = value.lower()
        if value and not is_valid_email(value):
            raise ValueError("El correo electrónico no es válido.")
        return value


def _agency_row(agency: Agency, category_name: str | None) -> dict[str, Any]:
    return {column.name: plain(getattr(agency, column.name)) for column in Agency.__table__.columns} | {
        "category": category_name or ""
    }


def get_agency(*, session: Session, actor_uid: str, uid: str) -> dict[str, Any]:
    """One agency's values for the edit form (administrators only)."""
    ensure_admin(session, actor_uid)
    agency = _agency(session, uid)
    category = session.get(AgencyCategory, agency.category_uid) if agency.category_uid else None
    return _agency_row(agency, category.name if category else None)


def list_agencies(
    *,
    session: Session,
    actor_uid: str,
    search: str = "",
    category: str = "",
    sort: str = "",
    descending: bool = False,
    page: int = 1,
    page_size: int = PAGE_SIZE,
) -> StaffPage:
    """One page of agencies with their category's name (administrators only)."""
    ensure_admin(session, actor_uid)
    page, page_size = page_bounds(page, page_size)
    conditions = []
    found = search_condition((Agency.name, Agency.email, Agency.phone), search)
    if found is not None:
        conditions.append(found)
    if isinstance(category, str) and category:
        conditions.append(Agency.category_uid == category)
    total = session.exec(select(func.count()).select_from(Agency).where(*conditions)).one()
    rows = session.exec(
        select(Agency, AgencyCategory.name)
        .outerjoin(AgencyCategory, AgencyCategory.uid == Agency.category_uid)
        .where(*conditions)
        .order_by(*sort_order(AGENCY_SORTS, sort, "name", descending, Agency.uid))
        .offset((page - 1) * page_size)
        .limit(page_size)
    ).all()
    return StaffPage(
        rows=[_agency_row(agency, category_name) for agency, category_name in rows],
        total=total,
        page=page,
        page_size=page_size,
    )


def _agency_values(session: Session, data: Mapping[str, Any]) -> dict[str, Any]:
    values = validated(AgencyForm, data).model_dump()
    category = values.pop("category")
    message = "No hay una categoría de agencia con ese nombre."
    return values | {"category_uid": _named(session, AgencyCategory, category, "category", message)}


def _agency(session: Session, uid: object) -> Agency:
    agency = session.get(Agency, uid) if isinstance(uid, str) and uid else None
    if agency is None:
        raise NotFoundError("No encontramos esa agencia.")
    return agency


def create_agency(*, session: Session, actor_uid: str, data: Mapping[str, Any]) -> str:
    """Add an agency (administrators only); its uid."""
    ensure_admin(session, actor_uid)
    now = utc_now()
    agency = Agency(**_agency_values(session, data), created_at=now, updated_at=now)
    session.add(agency)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="crear",
        entity=AGENCIES,
        entity_uid=agency.uid,
        after=audit.snapshot(agency),
    )
    session.commit()
    return agency.uid


def update_agency(*, session: Session, actor_uid: str, uid: str, data: Mapping[str, Any]) -> None:
    """Edit an agency (administrators only)."""
    ensure_admin(session, actor_uid)
    values = _agency_values(session, data)
    agency = _agency(session, uid)
    before = audit.snapshot(agency)
    for name, value in values.items():
        setattr(agency, name, value)
    agency.updated_at = utc_now()
    session.add(agency)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="editar",
        entity=AGENCIES,
        entity_uid=agency.uid,
        before=before,
        after=audit.snapshot(agency),
    )
    session.commit()


def delete_agency(*, session: Session, actor_uid: str, uid: str) -> None:
    """Delete an agency no advertiser belongs to (administrators only)."""
    ensure_admin(session, actor_uid)
    agency = _agency(session, uid)
    members = session.exec(
        select(func.count()).select_from(Advertiser).where(Advertiser.agency_uid == agency.uid)
    ).one()
    if members:
        raise ConflictError(
            count_message(members, "Esta agencia tiene 1 anunciante.", "Esta agencia tiene {n} anunciantes.")
        )
    audit.record(
        session,
        actor_uid=actor_uid,
        action="eliminar",
        entity=AGENCIES,
        entity_uid=agency.uid,
        before=audit.snapshot(agency),
    )
    session.delete(agency)
    session.commit()
