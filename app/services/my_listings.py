"""The advertiser's own listings ("my listings"): the list with its figures, and the owner's actions.

Every function takes the caller's ``owner_uid`` from the server (never from the
browser) and looks the listing up with it (``owned_listing``): someone else's
listing and a missing one give the same "not found". Which actions a listing
offers comes from the lifecycle (``app.services.listing_lifecycle.owner_may``);
its drafts and their sending to review are ``app.services.listing_drafts``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.core.dates import format_date
from app.core.errors import ConflictError, InvalidInputError
from app.core.geo import city_by_slug
from app.db import commit
from app.models import (
    LISTING_STATUS_LABELS,
    ActorKind,
    Listing,
    ListingDailyStats,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    ListingVideo,
    Report,
    ReviewDecision,
    Section,
    UpgradeStatus,
    VerificationStatus,
    utc_now,
)
from app.services import (
    favourites,
    listing_drafts,
    listing_jobs,
    listing_photos,
    listing_revisions,
    listing_videos,
    photo_uploads,
    stats,
    upgrades,
    verification,
)
from app.services.listing_form import (
    SEND_STEP,
)
from app.services.listing_lifecycle import ensure_transition, owner_may
from app.services.listings import clock, listing_path, photo_url
from app.services.ownership import owned_listing
from app.settings import get_settings
from app.storage import Storage
from app.storage.factory import get_private_storage

AVAILABLE_NOW_HOURS = (1, 2, 3, 4, 6, 8, 12)
DRAFT_TITLE = "Borrador sin nombre"


class MyListingRow(BaseModel):
    """One listing as "my listings" shows it to its owner."""

    uid: str
    title: str
    city_name: str
    section_label: str
    status: str
    status_label: str
    rejection_reason: str
    wizard_step: int
    cover_url: str
    public_url: str
    views_7: int
    views_30: int
    clicks_7: int
    clicks_30: int
    # How many accounts keep it in their favourites (never who; saves kept only on a device are not counted).
    saves: int = 0
    available_until_label: str
    expires_label: str
    pending_revision: bool
    verified_label: str
    upgrade_label: str = ""
    upgrade_reason: str = ""
    # Every upgrade request waiting for payment, each with its reference and amount.
    waiting_payments: list[upgrades.UpgradeRow] = []
    verification_label: str = ""
    verification_reason: str = ""
    can_continue: bool
    can_edit: bool
    can_pause: bool
    can_resume: bool
    can_renew: bool
    can_available_now: bool
    can_copy: bool
    can_upgrade: bool
    can_verify: bool
    can_stats: bool


def _latest_rejection(session: Session, listing_uids: list[str]) -> dict[str, str]:
    """The reason of each listing's latest decided review, when that review was a rejection."""
    if not listing_uids:
        return {}
    rows = session.exec(
        select(ListingReview)
        .where(
            col(ListingReview.listing_uid).in_(listing_uids), col(ListingReview.decision) != ReviewDecision.PENDIENTE
        )
        .order_by(col(ListingReview.decided_at))
    ).all()
    latest = {review.listing_uid: review for review in rows}
    return {
        uid: review.reason or "Sin motivo indicado."
        for uid, review in latest.items()
        if review.decision == ReviewDecision.RECHAZADA
    }


def _covers(session: Session, listing_uids: list[str]) -> dict[str, str]:
    if not listing_uids:
        return {}
    rows = session.exec(
        select(ListingPhoto)
        .where(col(ListingPhoto.listing_uid).in_(listing_uids))
        .order_by(col(ListingPhoto.position).desc())
    ).all()
    return {photo.listing_uid: photo_url(photo.path) for photo in rows}


def _local_time(moment: datetime) -> str:
    return format_date(moment.astimezone(ZoneInfo(get_settings().timezone)), "HH:mm")


def _upgrade_fields(card: upgrades.CardUpgrades | None) -> dict[str, str]:
    """What a card says of the state of its listing's upgrade in force (or of the latest)."""
    shown = card.shown if card else None
    if shown is None:
        return {}
    in_force = f" hasta el {shown.ends}" if shown.status == UpgradeStatus.ACTIVA else ""
    return {
        "upgrade_label": f"Mejora «{shown.name}»: {shown.status_label.lower()}{in_force}",
        "upgrade_reason": shown.reason,
    }


def _verification_fields(request: ListingVerification | None, verified: bool) -> dict[str, str]:
    """What a card says of its listing's verification request (a granted badge shows as verified_label)."""
    if request is None or (verified and request.status == VerificationStatus.APROBADA):
        return {}
    return {
        "verification_label": "Verificación " + verification.VERIFICATION_LABELS[request.status].lower(),
        "verification_reason": request.reason if request.status == VerificationStatus.RECHAZADA else "",
    }


def list_my_listings(*, session: Session, owner_uid: str, now: datetime | None = None) -> list[MyListingRow]:
    """Every listing of the owner, newest change first, with its status, figures and allowed actions."""
    now = now or utc_now()
    listings = session.exec(
        select(Listing)
        .where(col(Listing.owner_uid) == owner_uid)
        .order_by(col(Listing.updated_at).desc(), col(Listing.uid))
    ).all()
    uids = [listing.uid for listing in listings]
    totals = stats.totals_for(session=session, listing_uids=uids, today=clock(now).today)
    saves = favourites.saves_by_listing(session=session, listing_uids=uids)
    rejections = _latest_rejection(session, uids)
    covers = _covers(session, uids)
    card_upgrades = upgrades.card_upgrades(session=session, listing_uids=uids)
    requests = verification.latest_verifications(session=session, listing_uids=uids)
    rows = []
    for listing in listings:
        status = ListingStatus(listing.status)
        city = city_by_slug(listing.city_slug)
        figures = totals.get(listing.uid)
        card = card_upgrades.get(listing.uid)
        available = bool(listing.available_until and listing.available_until > now)
        verified_label = ""
        if listing.verified and listing.verified_at:
            verified_label = f"Verificada el {format_date(listing.verified_at, 'D [de] MMMM [de] YYYY')}"
        elif listing.verified_at:
            verified_label = "Verificación suspendida hasta que revisemos tus fotos nuevas"
        public = status == ListingStatus.PUBLICADA
        rows.append(
            MyListingRow(
                uid=listing.uid,
                title=listing.display_name or DRAFT_TITLE,
                city_name=city.name if city else "",
                section_label="Trans" if listing.section == Section.TRANS else "Mujeres",
                status=status.value,
                status_label=LISTING_STATUS_LABELS[status],
                rejection_reason=rejections.get(listing.uid, ""),
                wizard_step=min(listing.wizard_step, SEND_STEP),
                cover_url=covers.get(listing.uid, ""),
                public_url=listing_path(
                    section=listing.section,
                    city_slug=listing.city_slug or "",
                    name_slug=listing.name_slug or "",
                    uid=listing.uid,
                )
                if public
                else "",
                views_7=figures.views_7 if figures else 0,
                views_30=figures.views_30 if figures else 0,
                clicks_7=figures.clicks_7 if figures else 0,
                clicks_30=figures.clicks_30 if figures else 0,
                saves=saves.get(listing.uid, 0),
                available_until_label=f"Disponible ahora hasta las {_local_time(listing.available_until)}"
                if available and listing.available_until
                else "",
                expires_label=f"Vence el {format_date(listing.expires_at, 'D [de] MMMM [de] YYYY')}"
                if listing.expires_at and status in listing_revisions.REVISED_STATUSES
                else "",
                pending_revision=listing.revision_at is not None,
                verified_label=verified_label,
                waiting_payments=card.waiting if card else [],
                **_upgrade_fields(card),
                **_verification_fields(requests.get(listing.uid), listing.verified),
                can_continue=owner_may("continue", status),
                can_edit=owner_may("edit", status),
                can_pause=owner_may("pause", status),
                can_resume=owner_may("resume", status),
                can_renew=owner_may("renew", status),
                can_available_now=owner_may("available_now", status),
                can_copy=owner_may("copy", status),
                can_upgrade=owner_may("upgrade", status),
                can_verify=owner_may("verify", status) and not listing.verified,
                can_stats=listing.published_at is not None,
            )
        )
    return rows


def _move(
    session: Session, owner_uid: str, uid: str, target: ListingStatus, now: datetime | None
) -> tuple[Listing, datetime]:
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    listing.status = ensure_transition(listing.status, target, ActorKind.OWNER)
    listing.updated_at = now
    session.add(listing)
    return listing, now


def pause_listing(*, session: Session, owner_uid: str, uid: str, now: datetime | None = None) -> None:
    """Hide a published listing from the public until its owner resumes it."""
    _move(session, owner_uid, uid, ListingStatus.PAUSADA, now)
    commit(session)


def resume_listing(*, session: Session, owner_uid: str, uid: str, now: datetime | None = None) -> None:
    """Show a paused listing again, unless its time ran out while it was paused: then it expires as the clock
    expires it (``listing_jobs.expire``: the edit waiting for review dropped, the owner told)."""
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if listing.status == ListingStatus.PAUSADA and listing.expires_at and listing.expires_at <= now:
        listing_jobs.expire(session=session, listing=listing, now=now)
        commit(session)
        raise ConflictError("Tu publicación venció mientras estaba pausada: renuévala para volver a publicarla.")
    _move(session, owner_uid, uid, ListingStatus.PUBLICADA, now)
    commit(session)


def renew_listing(*, session: Session, owner_uid: str, uid: str, now: datetime | None = None) -> None:
    """Send an expired listing to review again (it is checked like a new one)."""
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if not owner_may("renew", listing.status):
        raise ConflictError("Solo se renuevan las publicaciones vencidas.")
    listing_drafts.send_to_review(session=session, owner_uid=owner_uid, uid=uid, now=now)


def set_available_now(*, session: Session, owner_uid: str, uid: str, hours: int, now: datetime | None = None) -> None:
    """Switch "Disponible AHORA" on for ``hours``; it switches itself off when they pass."""
    now = now or utc_now()
    if not isinstance(hours, int) or isinstance(hours, bool) or hours not in AVAILABLE_NOW_HOURS:
        raise InvalidInputError("Elige por cuántas horas estarás disponible.", field="hours")
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if not owner_may("available_now", listing.status):
        raise ConflictError("Solo una publicación publicada puede marcarse como disponible ahora.")
    listing.available_until = now + timedelta(hours=hours)
    listing.updated_at = now
    session.add(listing)
    commit(session)


@dataclass(frozen=True)
class RemovedFiles:
    """The stored files of rows just deleted: removed only once the deletion has committed."""

    photos: list[ListingPhoto] = field(default_factory=list)
    private_keys: list[str] = field(default_factory=list)  # verification photos, photos not processed yet
    clips: list[ListingVideo] = field(default_factory=list)

    def remove(self, *, storage: Storage, private: Storage) -> None:
        """Delete the files (public photos, clips with their private originals, then the private files: verification
        photos, photos received and not processed)."""
        listing_photos.delete_photo_files(storage=storage, photos=self.photos)
        listing_videos.delete_clip_files(storage=storage, private_storage=private, clips=self.clips)
        for key in self.private_keys:
            private.delete(key)


def remove_listing_rows(*, session: Session, listing: Listing, note: str, now: datetime) -> RemovedFiles:
    """Delete a listing and every record of it (flushed, not committed); the files to remove after the commit.

    Reports against it stay for staff, unlinked, with ``note`` added to their staff notes. No ownership
    check: the caller found the listing as its owner (or as staff).
    """
    private_keys = [
        key
        for key in session.exec(
            select(ListingVerification.storage_key).where(ListingVerification.listing_uid == listing.uid)
        )
        if key
    ]
    photos = listing_photos.delete_all_photos(session=session, listing_uid=listing.uid)
    private_keys += photo_uploads.delete_all_pending(session=session, listing_uid=listing.uid)
    clips = listing_videos.delete_all_clips(session=session, listing_uid=listing.uid)
    for table in (ListingService, ListingReview, ListingUpgrade, ListingVerification, ListingDailyStats):
        session.exec(delete(table).where(col(table.listing_uid) == listing.uid))
    for report in session.exec(select(Report).where(Report.listing_uid == listing.uid)):
        report.listing_uid = None
        report.staff_notes = f"{report.staff_notes}\n{note}" if report.staff_notes else note
        report.updated_at = now
        session.add(report)
    session.flush()
    session.delete(listing)
    session.flush()
    return RemovedFiles(photos=photos, private_keys=private_keys, clips=clips)


def deletion_note(text: str, now: datetime) -> str:
    """A line of the system for the staff notes of a report whose listing was deleted."""
    stamp = now.astimezone(ZoneInfo(get_settings().timezone)).strftime("%Y/%m/%d %H:%M")
    return f"[{stamp} · sistema] {text}"


def delete_listing(*, session: Session, storage: Storage, owner_uid: str, uid: str) -> None:
    """Delete a listing in any status, with its photo and clip files, its private verification photos and its records.

    Reports against it stay for staff, unlinked, with a note naming it. Files go only once the
    deletion is committed: a failed commit leaves the listing whole.
    """
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    now = utc_now()
    note = deletion_note(f"Se eliminó la publicación «{listing.display_name or DRAFT_TITLE}» ({listing.uid}).", now)
    removed = remove_listing_rows(session=session, listing=listing, note=note, now=now)
    commit(session)
    removed.remove(storage=storage, private=get_private_storage())


def copy_to_city(*, session: Session, storage: Storage, owner_uid: str, uid: str, city_slug: str) -> str:
    """A new draft with the same content and photos in another city; the owner picks its commune and sends it."""
    source = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    city = city_by_slug(city_slug)
    if city is None:
        raise InvalidInputError("Elige una ciudad de la lista.", field="city_slug")
    columns, services = listing_revisions.effective_columns(session, source)
    if columns["city_slug"] == city.slug:
        raise InvalidInputError("Elige otra ciudad: la publicación ya está en esa.", field="city_slug")
    now = utc_now()
    copy = Listing(owner_uid=owner_uid, status=ListingStatus.BORRADOR, wizard_step=2, created_at=now, updated_at=now)
    for column, value in columns.items():
        setattr(copy, column, value)
    copy.city_slug = city.slug
    copy.commune = ""
    session.add(copy)
    session.flush()
    if columns["base_tier_uid"]:
        listing_revisions.set_base_tier(session, copy, columns["base_tier_uid"])
    listing_revisions.set_services(session, copy, services)
    listing_photos.copy_photos(session=session, storage=storage, from_listing_uid=source.uid, to_listing_uid=copy.uid)
    commit(session)
    return copy.uid
