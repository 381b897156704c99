"""Verification requests: the advertiser sends a private photo, staff grant or refuse the "Verificada" badge.

The photo (the advertiser holding a paper with the site's name and today's date)
goes through the photo pipeline (decoded from its content, every piece of metadata
dropped) and is kept only in the private storage (``get_private_storage``: never
/media nor Reflex's upload folder) under a random key. Staff see it through an
authorized route (app/web/private_api.py); it is deleted once the request is decided.
The storage key never leaves this module and the route: the owner's view
(``ListingVerificationPublic``) has none.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.content.notices import NoticeKind
from app.core.actor import Actor
from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.db import commit
from app.models import (
    STAFF_PROFILES,
    ListingVerification,
    ListingVerificationPublic,
    VerificationStatus,
    new_uid,
    utc_now,
)
from app.models.listings import REASON_MAX, Listing
from app.services import notices
from app.services.listing_lifecycle import owner_may
from app.services.ownership import owned_listing
from app.services.photos import process_photo
from app.services.staff import audit
from app.services.staff.shared import ensure_staff
from app.storage import Storage

PREFIX = "verificacion"
# What the owner reads of a request's state (card and dialog).
VERIFICATION_LABELS = {
    VerificationStatus.SOLICITADA: "Solicitada: la revisaremos pronto.",
    VerificationStatus.APROBADA: "Aprobada.",
    VerificationStatus.RECHAZADA: "Rechazada.",
}
VERIFICATION_STAFF_ONLY = "Solo el equipo del sitio puede revisar verificaciones."
_UNKNOWN = "No encontramos esa solicitud de verificación."


def request_verification(
    *, session: Session, storage: Storage, owner_uid: str, listing_uid: str, data: bytes, now: datetime | None = None
) -> None:
    """Ask staff to verify the caller's listing with this photo (any status but a draft; one open request).

    A refused photo raises PhotoRejectedError and stores nothing. CPU-bound: call it off the event loop.
    """
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid, for_update=True)
    if not owner_may("verify", listing.status):
        raise ConflictError("Envía tu publicación a revisión antes de pedir la verificación.")
    if _open_request(session, listing.uid) is not None:
        raise ConflictError("Ya enviaste una foto de verificación para esta publicación; la estamos revisando.")
    processed = process_photo(data)
    largest = processed.variants[-1]  # staff must be able to read the paper
    uid = new_uid()
    key = f"{PREFIX}/{uid[:2]}/{uid}.webp"
    storage.put(key, largest.data, largest.content_type)
    try:
        session.add(
            ListingVerification(
                listing_uid=listing.uid, owner_uid=owner_uid, storage_key=key, created_at=now or utc_now()
            )
        )
        commit(session)
    except BaseException:
        session.rollback()
        storage.delete(key)
        raise


def _open_request(session: Session, listing_uid: str) -> ListingVerification | None:
    return session.exec(
        select(ListingVerification).where(
            ListingVerification.listing_uid == listing_uid, ListingVerification.status == VerificationStatus.SOLICITADA
        )
    ).first()


def my_verification(*, session: Session, owner_uid: str, listing_uid: str) -> ListingVerificationPublic | None:
    """The latest verification request of the caller's listing, or None."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
    latest = session.exec(
        select(ListingVerification)
        .where(ListingVerification.listing_uid == listing.uid)
        .order_by(col(ListingVerification.created_at).desc(), col(ListingVerification.uid).desc())
    ).first()
    return ListingVerificationPublic.model_validate(latest, from_attributes=True) if latest else None


def latest_verifications(*, session: Session, listing_uids: list[str]) -> dict[str, ListingVerification]:
    """Each listing's latest verification request (for the owner's cards)."""
    if not listing_uids:
        return {}
    rows = session.exec(
        select(ListingVerification)
        .where(col(ListingVerification.listing_uid).in_(listing_uids))
        .order_by(col(ListingVerification.created_at), col(ListingVerification.uid))
    ).all()
    return {request.listing_uid: request for request in rows}


def _pending(session: Session, verification_uid: str) -> ListingVerification:
    found = (
        session.get(ListingVerification, verification_uid, with_for_update=True)
        if isinstance(verification_uid, str)
        else None
    )
    if found is None:
        raise NotFoundError(_UNKNOWN)
    if found.status != VerificationStatus.SOLICITADA:
        raise ConflictError("Esta solicitud de verificación ya fue revisada.")
    return found


def _audited(verification: ListingVerification) -> dict[str, Any]:
    """The request's columns for the audit log, without the private photo's storage key."""
    values = audit.snapshot(verification) or {}
    values.pop("storage_key", None)
    return values


def _decide(
    session: Session,
    storage: Storage,
    verification: ListingVerification,
    *,
    status: VerificationStatus,
    actor: Actor,
    reason: str,
    now: datetime,
) -> None:
    """Record the decision (and its audit entry, never with the storage key) and delete the photo, then commit.

    The photo goes first: if the commit then fails, the request stays open pointing at no file (staff can
    still decide it), which is better than a committed decision leaving a private photo behind.
    """
    key = verification.storage_key
    before = _audited(verification)
    verification.status = status
    verification.reason = reason
    verification.reviewer_uid = actor.uid
    verification.decided_at = now
    verification.storage_key = None
    session.add(verification)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="aprobar" if status == VerificationStatus.APROBADA else "rechazar",
        entity=ListingVerification.__tablename__,
        entity_uid=verification.uid,
        before=before,
        after=_audited(verification),
        now=now,
    )
    listing = session.get_one(Listing, verification.listing_uid)
    notices.notify_owner(
        session=session,
        listing=listing,
        kind=NoticeKind.VERIFICATION_APPROVED
        if status == VerificationStatus.APROBADA
        else NoticeKind.VERIFICATION_REJECTED,
        key=verification.uid,
        now=now,
        reason=reason,
    )
    session.flush()
    if key:
        storage.delete(key)
    commit(session)


def approve_verification(
    *, session: Session, storage: Storage, actor: Actor, verification_uid: str, now: datetime | None = None
) -> None:
    """Staff grant the badge: the listing is verified from now on, and the private photo is deleted."""
    ensure_staff(session, actor.uid, VERIFICATION_STAFF_ONLY)
    verification = _pending(session, verification_uid)
    now = now or utc_now()
    listing = session.get_one(Listing, verification.listing_uid)
    listing.verified = True
    listing.verified_at = now
    session.add(listing)
    _decide(
        session,
        storage,
        verification,
        status=VerificationStatus.APROBADA,
        actor=actor,
        reason="",
        now=now,
    )


def reject_verification(
    *,
    session: Session,
    storage: Storage,
    actor: Actor,
    verification_uid: str,
    reason: str,
    now: datetime | None = None,
) -> None:
    """Staff refuse the badge with a reason the owner sees; the private photo is deleted."""
    ensure_staff(session, actor.uid, VERIFICATION_STAFF_ONLY)
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise InvalidInputError("Indica el motivo del rechazo.", field="reason")
    if len(reason) > REASON_MAX:
        raise InvalidInputError("El motivo puede tener hasta 1.000 caracteres.", field="reason")
    verification = _pending(session, verification_uid)
    _decide(
        session,
        storage,
        verification,
        status=VerificationStatus.RECHAZADA,
        actor=actor,
        reason=reason,
        now=now or utc_now(),
    )


def verification_photo(*, session: Session, storage: Storage, viewer_profile: str, verification_uid: str) -> bytes:
    """The private photo of an open request, for staff only (ForbiddenError for anyone else)."""
    if viewer_profile not in STAFF_PROFILES:
        raise ForbiddenError("Solo el equipo del sitio puede ver las fotos de verificación.")
    found = session.get(ListingVerification, verification_uid) if isinstance(verification_uid, str) else None
    if found is None or not found.storage_key:
        raise NotFoundError(_UNKNOWN)
    return storage.get(found.storage_key)
