"""Pending revisions: how an edit of a listing that has been public waits for review.

A listing that has been public (publicada, pausada) keeps showing its approved version while its
owner edits it: the wizard's changes go into ``revision`` (JSON) instead of the row, and staff apply
them when they approve (``app.services.staff.reviews``). A draft, a rejected or an expired listing
is edited in place. The wizard (``app.services.listing_drafts``), "my listings" and the review queue
read the listing as its owner is editing it through :func:`effective_columns`.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.models import (
    AppService,
    Listing,
    ListingService,
    ListingStatus,
    ListingUpgrade,
    Tier,
    UpgradeEffect,
    utc_now,
)
from app.models.listings import services_text

# Listings that have been public: edits wait in ``revision`` while the public version stays.
REVISED_STATUSES = frozenset({ListingStatus.PUBLICADA, ListingStatus.PAUSADA})
# Listing columns an edit may change (what the wizard's steps 2-8 write).
EDITABLE_COLUMNS = (
    "section",
    "city_slug",
    "commune",
    "base_tier_uid",
    "display_name",
    "name_slug",
    "age",
    "description",
    "porn_actress",
    "curvy",
    "price_hour_clp",
    "price_half_hour_clp",
    "price_two_hours_clp",
    "price_night_clp",
    "schedule",
    "visiting_from",
    "visiting_until",
    "phone",
    "whatsapp",
)
DATE_COLUMNS = frozenset({"visiting_from", "visiting_until"})


def _revision(listing: Listing) -> dict[str, Any]:
    try:
        data = json.loads(listing.revision) if listing.revision else {}
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def _jsonable(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _from_json(column: str, value: Any) -> Any:
    if column in DATE_COLUMNS and isinstance(value, str):
        return date.fromisoformat(value)
    return value


def revision_changes(listing: Listing) -> tuple[dict[str, Any], list[str] | None]:
    """The columns and services an edit waiting for review would change (typed as the columns are)."""
    data = _revision(listing)
    columns = {
        column: _from_json(column, value)
        for column, value in (data.get("listing") or {}).items()
        if column in EDITABLE_COLUMNS
    }
    services = data.get("services")
    return columns, list(services) if isinstance(services, list) else None


def _services_of(session: Session, listing_uid: str) -> list[str]:
    return list(session.exec(select(ListingService.service_uid).where(ListingService.listing_uid == listing_uid)))


def effective_columns(session: Session, listing: Listing) -> tuple[dict[str, Any], list[str]]:
    """The listing's columns as the owner is editing them: the live row with any pending edit over it."""
    columns = {column: getattr(listing, column) for column in EDITABLE_COLUMNS}
    services = _services_of(session, listing.uid)
    if listing.status in REVISED_STATUSES:
        changes, changed_services = revision_changes(listing)
        columns.update(changes)
        if changed_services is not None:
            services = changed_services
    return columns, services


def write_columns(session: Session, listing: Listing, fields: dict[str, Any], services: list[str] | None) -> None:
    """Write a step's columns: into the row, or into the pending revision of a listing that has been public."""
    if listing.status in REVISED_STATUSES:
        data = _revision(listing)
        pending = dict(data.get("listing") or {})
        pending.update({column: _jsonable(value) for column, value in fields.items()})
        data["listing"] = pending
        if services is not None:
            data["services"] = services
        listing.revision = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        return
    for column, value in fields.items():
        setattr(listing, column, value)
    if "base_tier_uid" in fields:
        set_base_tier(session, listing, fields["base_tier_uid"])
    if services is not None:
        set_services(session, listing, services)


def set_services(session: Session, listing: Listing, service_uids: list[str]) -> None:
    """The services a listing offers, written both where they are kept: publicacion_servicio and the listing's
    ``service_uids`` (what the city page's filter reads). The only writer of either."""
    uids = list(dict.fromkeys(service_uids))
    session.exec(delete(ListingService).where(col(ListingService.listing_uid) == listing.uid))
    session.add_all([ListingService(listing_uid=listing.uid, service_uid=uid) for uid in uids])
    listing.service_uids = services_text(uids)
    session.add(listing)


def set_base_tier(session: Session, listing: Listing, tier_uid: str) -> None:
    """The advertiser's own tier; the shown tier follows unless an upgrade currently lifts it."""
    listing.base_tier_uid = tier_uid
    lifted = session.exec(
        select(ListingUpgrade.uid)
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(ListingUpgrade.listing_uid == listing.uid, ListingUpgrade.status == "activa")
        .where(AppService.effect == UpgradeEffect.TIER)
        .where(col(ListingUpgrade.starts_at) <= utc_now(), col(ListingUpgrade.ends_at) > utc_now())
    ).first()
    if lifted is None:
        tier = session.get(Tier, tier_uid)
        listing.tier_uid = tier_uid
        listing.tier_rank = tier.display_order if tier else None
