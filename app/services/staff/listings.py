"""Listings (publicacion) for staff: every listing in any status, edited, taken down and republished.

Administrators and secretaries list, filter (status, city, section, tier), search (name or
phone), edit the listing's content, take a published or paused listing down (rechazada, with a
reason the owner sees) and republish one they took down that its owner has not changed since; only
an administrator deletes. Staff do not edit over an owner's edit waiting for review. Status
moves go through the lifecycle table (``ActorKind.STAFF``). Every write is audited in the same
transaction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, overload

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, col, select

from app.content.notices import NoticeKind
from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.core.geo import CITIES, city_by_slug
from app.db import commit
from app.models import (
    LISTING_STATUS_LABELS,
    ActorKind,
    AdvertiserService,
    AuditEntry,
    Listing,
    ListingPhoto,
    ListingService,
    ListingStatus,
    ReviewDecision,
    Tier,
    User,
    utc_now,
)
from app.models.listings import COMMUNE_MAX, DESCRIPTION_MAX, DISPLAY_NAME_MAX, PHONE_MAX, REASON_MAX
from app.services import listing_revisions, my_listings, notices
from app.services.listing_form import Catalogues, clean_step
from app.services.listing_lifecycle import ensure_transition
from app.services.listings import clock
from app.services.staff import audit, reviews
from app.services.staff.shared import StaffPage, TableQuery, ensure_may, ensure_staff, fetch_page, plain, sort_order
from app.services.staff.table_spec import ADMIN, SECRETARY, Column, Filter, FormField, TableSpec, sort_columns
from app.storage import Storage

LISTINGS = "publicacion"
TAKE_DOWN_STATUSES = frozenset({ListingStatus.PUBLICADA, ListingStatus.PAUSADA})
EDIT_STEPS = (2, 4, 5, 8)
"""Wizard steps whose fields staff edit (location, the ad, rates, contact), checked by the wizard's rules."""
SECTION_OPTIONS = (("mujeres", "Mujeres"), ("trans", "Trans"))
CITY_OPTIONS = tuple((city.slug, city.name) for city in sorted(CITIES, key=lambda city: city.name))


def _number(key: str, label: str, required: bool = False) -> FormField:
    return FormField(key, label, kind="number", required=required, on_create=False)


def _flag(key: str, label: str) -> FormField:
    return FormField(key, label, kind="checkbox", on_create=False)


LISTINGS_SPEC = TableSpec(
    entity=LISTINGS,
    title="Publicaciones",
    intro=(
        "Todas las publicaciones del sitio, de cada anunciante y en cualquier estado. Búscalas por nombre o "
        "teléfono, fíltralas por estado, sección, ciudad o categoría; al despublicar una, escribe el motivo: su "
        "anunciante lo verá en sus publicaciones."
    ),
    columns=(
        Column("display_name", "Nombre", sortable=True),
        Column("owner_email", "Anunciante"),
        Column("phone", "Teléfono"),
        Column("city_name", "Ciudad", sortable=True),
        Column("tier_name", "Categoría", sortable=True),
        Column("status_label", "Estado", sortable=True),
        Column("updated", "Actualizada", sortable=True),
    ),
    default_sort="updated",
    default_desc=True,
    filters=(
        Filter("status", "Estado", tuple((status.value, label) for status, label in LISTING_STATUS_LABELS.items())),
        Filter("section", "Sección", SECTION_OPTIONS),
        Filter("city", "Ciudad", CITY_OPTIONS),
        Filter("tier", "Categoría", from_data=True),
    ),
    form_fields=(
        FormField("display_name", "Nombre", required=True, max_length=DISPLAY_NAME_MAX, on_create=False),
        _number("age", "Edad", required=True),
        FormField(
            "description", "Descripción", kind="textarea", required=True, max_length=DESCRIPTION_MAX, on_create=False
        ),
        FormField("section", "Sección", kind="select", options=SECTION_OPTIONS, required=True, on_create=False),
        FormField("city_slug", "Ciudad", kind="select", options=CITY_OPTIONS, required=True, on_create=False),
        FormField("commune", "Comuna", required=True, max_length=COMMUNE_MAX, on_create=False),
        FormField("tier_uid", "Categoría", kind="select", from_data=True, required=True, on_create=False),
        _number("price_hour_clp", "Tarifa por hora", required=True),
        _number("price_half_hour_clp", "Tarifa por 30 minutos"),
        _number("price_two_hours_clp", "Tarifa por 2 horas"),
        _number("price_night_clp", "Tarifa por noche"),
        FormField("phone", "Celular", required=True, max_length=PHONE_MAX, on_create=False),
        FormField("whatsapp", "WhatsApp", max_length=PHONE_MAX, on_create=False),
        _flag("porn_actress", "Actriz porno"),
        _flag("curvy", "Culona"),
    ),
    search_label="Buscar por nombre o teléfono",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"edit", "delete", "export"}),
    admin_only_actions=frozenset({"delete", "export"}),
    csv_name="publicaciones",
    row_label_key="display_name",
)
"""The staff's listings table; the edit form's fields are the columns staff edit (``tier_uid``: the listing's own
tier, ``base_tier_uid``)."""
LISTING_SORTS = sort_columns(
    LISTINGS_SPEC,
    {
        "display_name": Listing.display_name,
        "city_name": Listing.city_slug,
        "tier_name": Listing.tier_rank,
        "status_label": Listing.status,
        "updated": Listing.updated_at,
    },
)


def _search(text: str) -> ColumnElement[bool] | None:
    if not text:
        return None
    matches = [func.lower(Listing.display_name).contains(text, autoescape=True)]
    digits = re.sub(r"\D", "", text)
    if digits:
        matches.extend(
            func.replace(column, " ", "").contains(digits, autoescape=True)
            for column in (Listing.phone, Listing.whatsapp)
        )
    return or_(*matches)


def _iso(moment: datetime | None) -> str:
    return moment.isoformat() if moment else ""


def _row(listing: Listing, email: str, tier_name: str | None) -> dict[str, Any]:
    city = city_by_slug(listing.city_slug) if listing.city_slug else None
    return {
        "uid": listing.uid,
        "display_name": listing.display_name or "",
        "owner_email": email,
        "phone": listing.phone,
        "city_slug": plain(listing.city_slug),
        "city_name": city.name if city else "",
        "commune": listing.commune,
        "section": plain(listing.section),
        "tier_uid": plain(listing.base_tier_uid),
        "tier_name": tier_name or "",
        "status": plain(listing.status),
        "status_label": LISTING_STATUS_LABELS[ListingStatus(listing.status)],
        "age": plain(listing.age),
        "price_hour_clp": plain(listing.price_hour_clp),
        "verified": listing.verified,
        "published_at": _iso(listing.published_at),
        "can_unpublish": listing.status in TAKE_DOWN_STATUSES,
        "can_republish": listing.status == ListingStatus.RECHAZADA and listing.published_at is not None,
        "expires_at": _iso(listing.expires_at),
        "updated_at": _iso(listing.updated_at),
    }


def list_listings(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of listings in any status (staff), searched by name or phone; filters ``status``,
    ``city``, ``section`` and ``tier`` (a tier's uid)."""
    ensure_may(session, actor.uid, LISTINGS_SPEC, "view")
    conditions: list[ColumnElement[bool]] = []
    found = _search(query.search)
    if found is not None:
        conditions.append(found)
    filters = {
        "status": col(Listing.status),
        "section": col(Listing.section),
        "city": col(Listing.city_slug),
        "tier": col(Listing.tier_uid),
    }
    for key, column in filters.items():
        value = LISTINGS_SPEC.filter_value(key, query.filter(key))
        if value:
            conditions.append(column == value)
    statement = (
        select(Listing, User.email, Tier.name)
        .join(User, col(User.uid) == col(Listing.owner_uid))
        .outerjoin(Tier, col(Tier.uid) == col(Listing.tier_uid))
        .where(*conditions)
    )
    rows, total = fetch_page(session, statement, query, sort_order(LISTINGS_SPEC, LISTING_SORTS, query, Listing.uid))
    return StaffPage([_row(*row) for row in rows], total, query.page, query.page_size)


def _listing(session: Session, uid: object) -> Listing:
    listing = (
        session.exec(select(Listing).where(Listing.uid == uid).with_for_update()).first()
        if isinstance(uid, str) and uid
        else None
    )
    if listing is None:
        raise NotFoundError("No encontramos esa publicación.")
    return listing


def _services(session: Session, listing_uid: str) -> list[str]:
    return list(session.exec(select(ListingService.service_uid).where(ListingService.listing_uid == listing_uid)))


def listing_form_values(*, session: Session, actor: Actor, uid: str) -> dict[str, str]:
    """The staff edit form's values of one listing, as strings (staff)."""
    ensure_may(session, actor.uid, LISTINGS_SPEC, "edit")
    listing = _listing(session, uid)
    values = {field.key: getattr(listing, field.key, None) for field in LISTINGS_SPEC.form_fields}
    values["tier_uid"] = listing.base_tier_uid
    return {
        name: ("true" if value is True else "" if value is False else str(plain(value)))
        for name, value in values.items()
    }


def update_listing(*, session: Session, actor: Actor, uid: str, data: Mapping[str, Any]) -> None:
    """Edit a listing's content (staff), checked by the wizard's rules; the status does not change.

    ``tier_uid`` (the listing's own tier) is optional: without it the tier stays.
    """
    ensure_may(session, actor.uid, LISTINGS_SPEC, "edit")
    if not isinstance(data, Mapping):
        raise InvalidInputError("El formulario llegó incompleto. Vuelve a intentarlo.")
    listing = _listing(session, uid)
    if listing.revision_at is not None:
        # Approving the owner's edit later would put its values back over this one.
        raise ConflictError(
            "Tiene cambios del anunciante esperando revisión: decídelos primero en la cola de revisión."
        )
    services = _services(session, listing.uid)
    catalogues = Catalogues(
        tiers=frozenset(session.exec(select(Tier.uid))),
        types=frozenset(),
        services=frozenset(session.exec(select(AdvertiserService.uid))),
    )
    columns: dict[str, Any] = {}
    for step in EDIT_STEPS:
        columns.update(clean_step(step, data, today=clock().today, catalogues=catalogues, services=services).listing)
    tier_uid = data.get("tier_uid") or listing.base_tier_uid
    if tier_uid not in catalogues.tiers:
        raise InvalidInputError("Elige una categoría de la lista.", field="tier_uid")
    before = audit.snapshot(listing)
    for name, value in columns.items():
        setattr(listing, name, value)
    if tier_uid != listing.base_tier_uid:
        listing_revisions.set_base_tier(session, listing, tier_uid)
    now = utc_now()
    listing.updated_at = now
    session.add(listing)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="editar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    commit(session)


def unpublish_listing(*, session: Session, actor: Actor, uid: str, reason: str, now: datetime | None = None) -> None:
    """Take a published or paused listing down (rechazada) with a reason the owner sees (staff).

    An edit waiting for review is dropped with it: the owner edits the listing and sends it again.
    """
    now = now or utc_now()
    ensure_staff(session, actor.uid)
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason or len(reason) > REASON_MAX:
        raise InvalidInputError(f"Indica el motivo (hasta {REASON_MAX} caracteres).", field="reason")
    listing = _listing(session, uid)
    before = audit.snapshot(listing)
    if listing.status not in TAKE_DOWN_STATUSES:
        raise ConflictError(
            "Solo se despublica una publicación publicada o pausada; las pendientes se revisan en la cola."
        )
    listing.status = ensure_transition(listing.status, ListingStatus.RECHAZADA, ActorKind.STAFF)
    listing.revision = None
    listing.revision_at = None
    listing.updated_at = now
    session.add(listing)
    review_uid = reviews.close_reviews(
        session, listing.uid, decision=ReviewDecision.RECHAZADA, reason=reason, reviewer=actor, now=now
    )[0]
    notices.notify_owner(
        session=session, listing=listing, kind=NoticeKind.LISTING_TAKEN_DOWN, key=review_uid, now=now, reason=reason
    )
    audit.record(
        session,
        actor_uid=actor.uid,
        action="despublicar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after={**(audit.snapshot(listing) or {}), "motivo": reason},
        now=now,
    )
    commit(session)


@overload
def _utc(value: datetime) -> datetime: ...
@overload
def _utc(value: object) -> datetime | None: ...
def _utc(value: object) -> datetime | None:
    """A stored or audited moment as an aware UTC datetime (databases may give it back naive)."""
    if isinstance(value, str) and value:
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _changed_since_take_down(session: Session, listing: Listing) -> bool | None:
    """None when staff did not take this listing down (it was refused at review, or nothing says so);
    otherwise whether anyone but staff changed it or its photos since.

    Every staff write to the row is audited with the row's ``updated_at`` before and after, and
    every change by the owner (wizard step, photo added, deleted, moved) stamps ``updated_at``:
    a gap in that chain since the take-down is someone else's change.
    """
    entries = session.exec(
        select(AuditEntry)
        .where(
            AuditEntry.entity == LISTINGS,
            AuditEntry.entity_uid == listing.uid,
            col(AuditEntry.action).in_(("despublicar", "rechazar", "editar")),
        )
        .order_by(col(AuditEntry.created_at).desc(), col(AuditEntry.uid))
    ).all()
    taken_down = next((entry for entry in entries if entry.action != "editar"), None)
    if taken_down is None or taken_down.action != "despublicar":
        return None
    since = entries[: entries.index(taken_down) + 1][::-1]
    expected = None
    for entry in since:
        before = json.loads(entry.before_json or "{}") or {}
        if expected is not None and _utc(before.get("updated_at")) != expected:
            return True
        expected = _utc((json.loads(entry.after_json or "{}") or {}).get("updated_at"))
    if expected is None or _utc(listing.updated_at) != expected:
        return True
    added = session.exec(
        select(ListingPhoto.created_at)
        .where(ListingPhoto.listing_uid == listing.uid)
        .order_by(col(ListingPhoto.created_at).desc())
    ).first()
    return added is not None and _utc(added) > _utc(taken_down.created_at)


def republish_listing(*, session: Session, actor: Actor, uid: str, now: datetime | None = None) -> None:
    """Publish again, until its original expiry date, a listing staff took down that its owner has not
    changed since (staff); anything else goes through the review queue."""
    now = now or utc_now()
    ensure_staff(session, actor.uid)
    listing = _listing(session, uid)
    before = audit.snapshot(listing)
    if listing.status != ListingStatus.RECHAZADA:
        raise ConflictError("Solo se republica una publicación que el equipo despublicó.")
    if listing.published_at is None:
        raise ConflictError("Esta publicación nunca se publicó: el anunciante debe corregirla y enviarla a revisión.")
    changed = _changed_since_take_down(session, listing)
    if changed is None:
        raise ConflictError(
            "Esta publicación fue rechazada en la revisión: el anunciante debe corregirla y enviarla otra vez."
        )
    if changed:
        raise ConflictError("El anunciante cambió la publicación después de despublicarla: debe enviarla a revisión.")
    if listing.expires_at is None or _utc(listing.expires_at) <= _utc(now):
        raise ConflictError("Esta publicación ya venció: el anunciante debe renovarla.")
    listing.status = ensure_transition(listing.status, ListingStatus.PUBLICADA, ActorKind.STAFF)
    listing.updated_at = now
    session.add(listing)
    review_uid = reviews.close_reviews(
        session, listing.uid, decision=ReviewDecision.APROBADA, reason="", reviewer=actor, now=now
    )[0]
    notices.notify_owner(session=session, listing=listing, kind=NoticeKind.LISTING_APPROVED, key=review_uid, now=now)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="republicar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    commit(session)


def delete_listing(*, session: Session, storage: Storage, actor: Actor, uid: str) -> None:
    """Delete a listing with its photos and records (administrators only)."""
    ensure_may(session, actor.uid, LISTINGS_SPEC, "delete")
    listing = _listing(session, uid)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="eliminar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=audit.snapshot(listing),
    )
    # The owner's delete does the rest (photos, records, private files) and commits the audit entry with it.
    my_listings.delete_listing(session=session, storage=storage, owner_uid=listing.owner_uid, uid=listing.uid)
