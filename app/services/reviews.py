"""Staff's decision on a listing in the review queue: approve or reject, with a reason the owner sees.

The queue is made of the pending ``revisar_publicacion`` rows that
``app.services.my_listings`` opens when an owner sends a listing: a new or
renewed listing (status pendiente), or the edit of one that has been public
(its ``revision``, and photos added since, waiting while the public version stays).
The staff screens of the next issue call these; until then the tests do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import Session, select

from app.models import (
    ActorKind,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ReviewDecision,
    utc_now,
)
from app.services import audit, listing_photos
from app.services.errors import ConflictError, InvalidInputError, NotFoundError
from app.services.listing_lifecycle import ensure_transition
from app.services.my_listings import REVISED_STATUSES, revision_changes, set_base_tier
from app.services.staff import ensure_staff
from app.storage import Storage

LISTING_DAYS = 60
REASON_MAX = 1000
OTHER_REASON = "Otro"
# The reasons a reviewer picks from; the free text after it is shown to the advertiser too.
REJECTION_REASONS: tuple[str, ...] = (
    "Fotos que no corresponden",
    "Datos de contacto inválidos",
    "Contenido no permitido",
    "Posible persona menor de edad",
    OTHER_REASON,
)


def rejection_text(choice: object, detail: object, choices: tuple[str, ...] = REJECTION_REASONS) -> str:
    """The reason the advertiser reads: the chosen reason, then the reviewer's words ("Otro" needs them)."""
    choice = choice if isinstance(choice, str) else ""
    detail = " ".join(detail.split()) if isinstance(detail, str) else ""
    if choice not in choices:
        raise InvalidInputError("Elige un motivo de la lista.", field="reason")
    if choice == OTHER_REASON and not detail:
        raise InvalidInputError("Escribe el motivo del rechazo.", field="detail")
    text = detail if choice == OTHER_REASON else f"{choice}: {detail}" if detail else choice
    if len(text) > REASON_MAX:
        raise InvalidInputError("El motivo puede tener hasta 1.000 caracteres.", field="detail")
    return text


def _listing(session: Session, listing_uid: str) -> Listing:
    listing = session.exec(select(Listing).where(Listing.uid == listing_uid).with_for_update()).first()
    if listing is None:
        raise NotFoundError("No encontramos esa publicación.")
    return listing


def _close_reviews(session: Session, listing_uid: str, reviewer_uid: str, decision: ReviewDecision, reason: str, now):
    pending = session.exec(
        select(ListingReview).where(
            ListingReview.listing_uid == listing_uid, ListingReview.decision == ReviewDecision.PENDIENTE
        )
    ).all()
    if not pending:
        pending = [ListingReview(listing_uid=listing_uid, created_at=now)]
    for review in pending:
        review.decision = decision
        review.reviewer_uid = reviewer_uid
        review.reason = reason
        review.decided_at = now
        session.add(review)


def _apply_revision(session: Session, listing: Listing) -> None:
    columns, services = revision_changes(listing)
    tier_uid = columns.pop("base_tier_uid", None)
    for column, value in columns.items():
        setattr(listing, column, value)
    if tier_uid and tier_uid != listing.base_tier_uid:
        set_base_tier(session, listing, tier_uid)
    if services is not None:
        session.exec(delete(ListingService).where(ListingService.listing_uid == listing.uid))
        session.add_all([ListingService(listing_uid=listing.uid, service_uid=uid) for uid in services])
    listing.revision = None
    listing.revision_at = None


def _approve_photos(session: Session, listing: Listing) -> None:
    for photo in session.exec(
        select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid, ListingPhoto.approved == False)  # noqa: E712
    ):
        photo.approved = True
        session.add(photo)
    if listing.verified_at and not listing.verified:
        listing.verified = True  # the badge was only suspended while the new photos waited


def approve_listing(*, session: Session, reviewer_uid: str, listing_uid: str, now: datetime | None = None) -> None:
    """Publish a pending listing (for LISTING_DAYS days), or apply the reviewed edit of a public one."""
    now = now or utc_now()
    ensure_staff(session, reviewer_uid)
    listing = _listing(session, listing_uid)
    before = audit.snapshot(listing)
    if listing.status == ListingStatus.PENDIENTE:
        listing.status = ensure_transition(listing.status, ListingStatus.PUBLICADA, ActorKind.STAFF)
        listing.published_at = now
        listing.ranked_at = now
        listing.expires_at = now + timedelta(days=LISTING_DAYS)
        _approve_photos(session, listing)
    elif listing.status in REVISED_STATUSES and listing.revision_at is not None:
        _apply_revision(session, listing)
        _approve_photos(session, listing)
    else:
        raise ConflictError("Esta publicación no está esperando revisión.")
    listing.updated_at = now
    _close_reviews(session, listing.uid, reviewer_uid, ReviewDecision.APROBADA, "", now)
    session.add(listing)
    audit.record(
        session,
        actor_uid=reviewer_uid,
        action="aprobar",
        entity="publicacion",
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    session.commit()


def reject_listing(
    *,
    session: Session,
    storage: Storage,
    reviewer_uid: str,
    listing_uid: str,
    reason: str,
    now: datetime | None = None,
) -> None:
    """Refuse a pending listing (rechazada) or the edit of a public one (dropped, the public version stays).

    ``reason`` is shown to the owner. Photos added with a refused edit are deleted with their files.
    """
    now = now or utc_now()
    ensure_staff(session, reviewer_uid)
    reason = (reason or "").strip() if isinstance(reason, str) else ""
    if not reason or len(reason) > REASON_MAX:
        raise InvalidInputError("Indica el motivo del rechazo (hasta 1000 caracteres).", field="reason")
    listing = _listing(session, listing_uid)
    before = audit.snapshot(listing)
    unapproved: list[ListingPhoto] = []
    if listing.status == ListingStatus.PENDIENTE:
        listing.status = ensure_transition(listing.status, ListingStatus.RECHAZADA, ActorKind.STAFF)
    elif listing.status in REVISED_STATUSES and listing.revision_at is not None:
        listing.revision = None
        listing.revision_at = None
        unapproved = session.exec(
            select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid, ListingPhoto.approved == False)  # noqa: E712
        ).all()
        for photo in unapproved:
            session.delete(photo)
    else:
        raise ConflictError("Esta publicación no está esperando revisión.")
    listing.updated_at = now
    _close_reviews(session, listing.uid, reviewer_uid, ReviewDecision.RECHAZADA, reason, now)
    session.add(listing)
    after = {**(audit.snapshot(listing) or {}), "motivo": reason}
    audit.record(
        session,
        actor_uid=reviewer_uid,
        action="rechazar",
        entity="publicacion",
        entity_uid=listing.uid,
        before=before,
        after=after,
        now=now,
    )
    session.commit()
    # Files go once their rows are gone for good: a reader never finds a row without its files.
    listing_photos.delete_photo_files(storage=storage, photos=list(unapproved))
