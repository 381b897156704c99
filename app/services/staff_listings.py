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
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.core.geo import city_by_slug
from app.models import (
    LISTING_STATUS_LABELS,
    ActorKind,
    AdvertiserService,
    AuditEntry,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ReviewDecision,
    Section,
    Tier,
    User,
    utc_now,
)
from app.services import audit, my_listings
from app.services.listing_form import Catalogues, clean_step
from app.services.listing_lifecycle import ensure_transition
from app.services.listings import clock
from app.services.staff import StaffPage, TableQuery, ensure_admin, ensure_staff, fetch_page, plain, sort_order
from app.storage import Storage

LISTINGS = "publicacion"
REASON_MAX = 1000
TAKE_DOWN_STATUSES = frozenset({ListingStatus.PUBLICADA, ListingStatus.PAUSADA})
LISTING_SORTS = {
    "display_name": Listing.display_name,
    "status": Listing.status,
    "city_slug": Listing.city_slug,
    "tier_rank": Listing.tier_rank,
    "published_at": Listing.published_at,
    "updated_at": Listing.updated_at,
    "created_at": Listing.created_at,
}
EDIT_STEPS = (2, 4, 5, 8)
"""Wizard steps whose fields staff edit (location, the ad, rates, contact), checked by the wizard's rules."""
FORM_FIELDS = (
    "display_name",
    "age",
    "description",
    "porn_actress",
    "curvy",
    "has_video",
    "city_slug",
    "commune",
    "section",
    "tier_uid",
    "price_hour_clp",
    "price_half_hour_clp",
    "price_two_hours_clp",
    "price_night_clp",
    "phone",
    "whatsapp",
)


def _search(text: str):
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
        "expires_at": _iso(listing.expires_at),
        "updated_at": _iso(listing.updated_at),
    }


def list_listings(*, session: Session, actor_uid: str, query: TableQuery) -> StaffPage:
    """One page of listings in any status (staff), searched by name or phone; filters ``status``,
    ``city``, ``section`` and ``tier`` (a tier's uid)."""
    ensure_staff(session, actor_uid)
    conditions = []
    found = _search(query.search)
    if found is not None:
        conditions.append(found)
    if query.filter("status") in {s.value for s in ListingStatus}:
        conditions.append(Listing.status == query.filter("status"))
    if query.filter("section") in {s.value for s in Section}:
        conditions.append(Listing.section == query.filter("section"))
    if query.filter("city"):
        conditions.append(Listing.city_slug == query.filter("city"))
    if query.filter("tier"):
        conditions.append(Listing.tier_uid == query.filter("tier"))
    statement = (
        select(Listing, User.email, Tier.name)
        .join(User, User.uid == Listing.owner_uid)
        .outerjoin(Tier, Tier.uid == Listing.tier_uid)
        .where(*conditions)
    )
    rows, total = fetch_page(session, statement, query, sort_order(LISTING_SORTS, query, "created_at", Listing.uid))
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


def listing_form_values(*, session: Session, actor_uid: str, uid: str) -> dict[str, str]:
    """The staff edit form's values of one listing, as strings (staff)."""
    ensure_staff(session, actor_uid)
    listing = _listing(session, uid)
    values = {name: getattr(listing, name, None) for name in FORM_FIELDS}
    values["tier_uid"] = listing.base_tier_uid
    return {
        name: ("true" if value is True else "" if value is False else str(plain(value)))
        for name, value in values.items()
    }


def update_listing(*, session: Session, actor_uid: str, uid: str, data: Mapping[str, Any]) -> None:
    """Edit a listing's content (staff), checked by the wizard's rules; the status does not change.

    ``tier_uid`` (the listing's own tier) is optional: without it the tier stays.
    """
    ensure_staff(session, actor_uid)
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
        my_listings.set_base_tier(session, listing, tier_uid)
    now = utc_now()
    listing.updated_at = now
    session.add(listing)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="editar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    session.commit()


def _decide(session: Session, listing: Listing, actor_uid: str, decision: ReviewDecision, reason: str, now) -> None:
    """Close the listing's pending reviews with this decision (or add a decided one) so the owner sees it."""
    pending = session.exec(
        select(ListingReview).where(
            ListingReview.listing_uid == listing.uid, ListingReview.decision == ReviewDecision.PENDIENTE
        )
    ).all()
    for review in pending or [ListingReview(listing_uid=listing.uid, created_at=now)]:
        review.decision = decision
        review.reviewer_uid = actor_uid
        review.reason = reason
        review.decided_at = now
        session.add(review)


def unpublish_listing(*, session: Session, actor_uid: str, uid: str, reason: str, now: datetime | None = None) -> None:
    """Take a published or paused listing down (rechazada) with a reason the owner sees (staff).

    An edit waiting for review is dropped with it: the owner edits the listing and sends it again.
    """
    now = now or utc_now()
    ensure_staff(session, actor_uid)
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason or len(reason) > REASON_MAX:
        raise InvalidInputError("Indica el motivo (hasta 1000 caracteres).", field="reason")
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
    _decide(session, listing, actor_uid, ReviewDecision.RECHAZADA, reason, now)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="despublicar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after={**(audit.snapshot(listing) or {}), "motivo": reason},
        now=now,
    )
    session.commit()


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
            AuditEntry.action.in_(("despublicar", "rechazar", "editar")),
        )
        .order_by(AuditEntry.created_at.desc(), AuditEntry.uid)
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
        .order_by(ListingPhoto.created_at.desc())
    ).first()
    return added is not None and _utc(added) > _utc(taken_down.created_at)


def republish_listing(*, session: Session, actor_uid: str, uid: str, now: datetime | None = None) -> None:
    """Publish again, until its original expiry date, a listing staff took down that its owner has not
    changed since (staff); anything else goes through the review queue."""
    now = now or utc_now()
    ensure_staff(session, actor_uid)
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
    _decide(session, listing, actor_uid, ReviewDecision.APROBADA, "", now)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="republicar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    session.commit()


def delete_listing(*, session: Session, storage: Storage, actor_uid: str, uid: str) -> None:
    """Delete a listing with its photos and records (administrators only)."""
    ensure_admin(session, actor_uid)
    listing = _listing(session, uid)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="eliminar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=audit.snapshot(listing),
    )
    # The owner's delete does the rest (photos, records, private files) and commits the audit entry with it.
    my_listings.delete_listing(session=session, storage=storage, owner_uid=listing.owner_uid, uid=listing.uid)
