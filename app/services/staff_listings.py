"""Listings (publicacion) for staff: every listing in any status, edited, taken down and republished.

Administrators and secretaries list, filter (status, city, section, tier), search (name or
phone), edit the listing's content, take a published or paused listing down (rechazada, with a
reason the owner sees) and republish one they took down; only an administrator deletes. Status
moves go through the lifecycle table (``ActorKind.STAFF``). Every write is audited in the same
transaction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from app.core.geo import CITIES, city_by_slug
from app.models import (
    LISTING_STATUS_LABELS,
    ActorKind,
    AdvertiserService,
    Listing,
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
from app.services.catalogues import PAGE_SIZE, StaffPage, ensure_admin, page_bounds, plain, sort_order
from app.services.errors import ConflictError, InvalidInputError, NotFoundError
from app.services.listing_form import Catalogues, clean_step
from app.services.listing_lifecycle import ensure_transition
from app.services.listings import clock
from app.services.staff import ensure_staff
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


def _search(search: object):
    text = search.strip().lower()[:100] if isinstance(search, str) else ""
    if not text:
        return None
    matches = [func.lower(Listing.display_name).contains(text, autoescape=True)]
    digits = re.sub(r"\D", "", text)
    if digits:
        for column in (Listing.phone, Listing.whatsapp):
            matches.append(func.replace(column, " ", "").contains(digits, autoescape=True))
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


def list_listings(
    *,
    session: Session,
    actor_uid: str,
    search: str = "",
    status: str = "",
    city: str = "",
    section: str = "",
    tier: str = "",
    sort: str = "",
    descending: bool = True,
    page: int = 1,
    page_size: int = PAGE_SIZE,
) -> StaffPage:
    """One page of listings in any status (staff), filtered and searched by name or phone; newest first."""
    ensure_staff(session, actor_uid)
    page, page_size = page_bounds(page, page_size)
    conditions = []
    found = _search(search)
    if found is not None:
        conditions.append(found)
    if status in {s.value for s in ListingStatus}:
        conditions.append(Listing.status == status)
    if section in {s.value for s in Section}:
        conditions.append(Listing.section == section)
    if isinstance(city, str) and city:
        conditions.append(Listing.city_slug == city)
    if isinstance(tier, str) and tier:
        conditions.append(Listing.tier_uid == tier)
    total = session.exec(select(func.count()).select_from(Listing).where(*conditions)).one()
    rows = session.exec(
        select(Listing, User.email, Tier.name)
        .join(User, User.uid == Listing.owner_uid)
        .outerjoin(Tier, Tier.uid == Listing.tier_uid)
        .where(*conditions)
        .order_by(*sort_order(LISTING_SORTS, sort, "created_at", descending, Listing.uid))
        .offset((page - 1) * page_size)
        .limit(page_size)
    ).all()
    return StaffPage(rows=[_row(*row) for row in rows], total=total, page=page, page_size=page_size)


def filter_options(*, session: Session, actor_uid: str) -> dict[str, list[tuple[str, str]]]:
    """(value, label) choices of the listing filters: status, section, city, tier (staff)."""
    ensure_staff(session, actor_uid)
    tiers = session.exec(select(Tier.uid, Tier.name).order_by(Tier.display_order)).all()
    return {
        "status": [(status.value, label) for status, label in LISTING_STATUS_LABELS.items()],
        "section": [(Section.MUJERES.value, "Mujeres"), (Section.TRANS.value, "Trans")],
        "city": [(c.slug, c.name) for c in sorted(CITIES, key=lambda c: c.name)],
        "tier": [(uid, name) for uid, name in tiers],
    }


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
    listing.updated_at = utc_now()
    session.add(listing)
    audit.record(
        session,
        actor_uid=actor_uid,
        action="editar",
        entity=LISTINGS,
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
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


def republish_listing(*, session: Session, actor_uid: str, uid: str, now: datetime | None = None) -> None:
    """Publish again a listing staff took down, until its original expiry date (staff)."""
    now = now or utc_now()
    ensure_staff(session, actor_uid)
    listing = _listing(session, uid)
    before = audit.snapshot(listing)
    if listing.status == ListingStatus.RECHAZADA and listing.published_at is None:
        raise ConflictError("Esta publicación nunca se publicó: el anunciante debe corregirla y enviarla a revisión.")
    if listing.status == ListingStatus.RECHAZADA and (listing.expires_at is None or listing.expires_at <= now):
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
