"""Staff's decision on a listing in the review queue: approve or reject, with a reason the owner sees.

The queue is made of the pending ``revisar_publicacion`` rows that
``app.services.my_listings`` opens when an owner sends a listing: a new or
renewed listing (status pendiente), or the edit of one that has been public
(its ``revision``, and photos added since, waiting while the public version stays).
The owner's identity is decided with it (``app.services.identity_review``).

This module is THE place a review is decided: :func:`decide_review` is the queue's one entry point (it finds
whether an item is a listing's review or a verification request), and :func:`close_reviews` is the one way a
listing's pending reviews are closed with a decision, whoever decides: a reviewer here, staff taking a listing
down or republishing it (``app.services.staff.listings``), the clock expiring it (``app.services.listing_jobs``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.content.notices import NoticeKind
from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.db import commit
from app.models import (
    ActorKind,
    AdvertiserService,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingVerification,
    ListingVideo,
    ReviewDecision,
    Tier,
    utc_now,
)
from app.models.listings import REASON_MAX, ListingBase
from app.services import identity_review, listing_photos, listing_videos, notices, verification
from app.services.listing_lifecycle import ensure_transition
from app.services.listing_revisions import REVISED_STATUSES, revision_changes, set_base_tier, set_services
from app.services.staff import audit
from app.services.staff.shared import ensure_staff
from app.storage import Storage

LISTING_DAYS = 60
CHANGED_WHILE_REVIEWED = "La publicación cambió mientras la revisabas. Revísala otra vez."
NOT_IN_QUEUE = "No encontramos ese elemento en la cola de revisión."
# Every column a reviewer judges (the owner's fields, and what says which version waits); tier_uid and
# tier_rank follow upgrades and are left out, like counters and dates that change without the owner.
CONTENT_COLUMNS: tuple[str, ...] = (
    *(name for name in ListingBase.model_fields if name != "tier_uid"),
    "base_tier_uid",
    "name_slug",
    "schedule",
    "status",
    "revision",
    "revision_at",
)
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


def _stamp_value(value: object) -> object:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _digest(parts: object) -> str:
    text = json.dumps(parts, default=str, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _photo_stamp(photos: Iterable[ListingPhoto]) -> list[list[object]]:
    return [[photo.uid, bool(photo.approved), photo.position] for photo in sorted(photos, key=_photo_order)]


def _photo_order(photo: ListingPhoto) -> tuple[int, str]:
    return (photo.position, photo.uid)


def listing_version(
    listing: Listing,
    services: Iterable[str],
    photos: Iterable[ListingPhoto],
    identity: list[object],
    clips: list[list[object]],
) -> str:
    """A short stamp of what a reviewer sees of a listing (with ``identity_review.stamp`` and
    ``listing_videos.review_stamp``): it changes whenever any of it changes."""
    columns = [_stamp_value(getattr(listing, column)) for column in CONTENT_COLUMNS]
    return _digest(["listing", columns, sorted(services), _photo_stamp(photos), identity, clips])


def _current_version(session: Session, listing: Listing) -> str:
    advertiser = identity_review.advertiser_of(session, listing.owner_uid)
    return listing_version(
        listing,
        _services(session, listing.uid),
        _photos(session, listing.uid),
        identity_review.stamp(advertiser, listing.uid),
        listing_videos.review_stamp(session, listing.uid),
    )


def verification_version(request_uid: str, listing: Listing, photos: Iterable[ListingPhoto]) -> str:
    """A short stamp of a verification item: the request and the listing's approved photos shown beside it."""
    shown = [photo for photo in photos if photo.approved]
    return _digest(["verificacion", request_uid, listing.display_name, _photo_stamp(shown)])


def _services(session: Session, listing_uid: str) -> list[str]:
    return list(session.exec(select(ListingService.service_uid).where(ListingService.listing_uid == listing_uid)))


def _photos(session: Session, listing_uid: str) -> list[ListingPhoto]:
    return list(session.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid)))


def _check_version(expected: str | None, current: str) -> None:
    if expected is not None and expected != current:
        raise ConflictError(CHANGED_WHILE_REVIEWED)


def _listing(session: Session, listing_uid: str) -> Listing:
    """The listing, locked until the transaction ends (SQLite: its write lock taken first, as listing_photos does)."""
    if session.get_bind().dialect.name == "sqlite" and isinstance(listing_uid, str):
        session.execute(
            update(Listing)
            .where(col(Listing.uid) == listing_uid)
            .values(updated_at=Listing.updated_at)
            .execution_options(synchronize_session=False)
        )
    listing = session.exec(select(Listing).where(Listing.uid == listing_uid).with_for_update()).first()
    if listing is None:
        raise NotFoundError("No encontramos esa publicación.")
    return listing


def close_reviews(
    session: Session,
    listing_uid: str,
    *,
    decision: ReviewDecision,
    reason: str,
    reviewer: Actor | None,
    now: datetime,
    record: bool = True,
) -> list[str]:
    """Close the listing's pending reviews with the decision, by ``reviewer`` (None: the clock); their uids.

    With ``record``, a decided review is added when none was pending, so the owner sees the decision.
    """
    pending = list(
        session.exec(
            select(ListingReview).where(
                ListingReview.listing_uid == listing_uid, ListingReview.decision == ReviewDecision.PENDIENTE
            )
        )
    )
    if not pending and record:
        pending = [ListingReview(listing_uid=listing_uid, created_at=now)]
    for review in pending:
        review.decision = decision
        review.reviewer_uid = reviewer.uid if reviewer else None
        review.reason = reason
        review.decided_at = now
        session.add(review)
    return [review.uid for review in pending]


def _apply_revision(session: Session, listing: Listing) -> None:
    """Write the reviewed edit into the row; a tier or service deleted from the catalogue since is left out."""
    columns, services = revision_changes(listing)
    tier_uid = columns.pop("base_tier_uid", None)
    for column, value in columns.items():
        setattr(listing, column, value)
    if tier_uid and tier_uid != listing.base_tier_uid and session.get(Tier, tier_uid) is not None:
        set_base_tier(session, listing, tier_uid)
    if services is not None:
        known = (
            set(session.exec(select(col(AdvertiserService.uid)).where(col(AdvertiserService.uid).in_(services))))
            if services
            else set()
        )
        set_services(session, listing, [uid for uid in services if uid in known])
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
    listing_videos.approve_ready_clips(session, listing.uid)


def approve_listing(
    *,
    session: Session,
    actor: Actor,
    listing_uid: str,
    expected_version: str | None = None,
    now: datetime | None = None,
) -> None:
    """Publish a pending listing (for LISTING_DAYS days), or apply the reviewed edit of a public one;
    the owner's identity is reviewed with it (a change it carries applies).

    ``expected_version`` is the item's ``version`` the reviewer was shown (QueueItem); ConflictError when
    the listing changed since. None skips the check (scripts and tests that decide without a queue).
    """
    now = now or utc_now()
    ensure_staff(session, actor.uid)
    listing = _listing(session, listing_uid)
    _check_version(expected_version, _current_version(session, listing))
    before = audit.snapshot(listing)
    notice = NoticeKind.LISTING_APPROVED if listing.status == ListingStatus.PENDIENTE else NoticeKind.EDIT_APPROVED
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
    identity_review.on_approved(session, listing.owner_uid, listing.uid, actor, now)
    review_uid = close_reviews(
        session, listing.uid, decision=ReviewDecision.APROBADA, reason="", reviewer=actor, now=now
    )[0]
    session.add(listing)
    notices.notify_owner(session=session, listing=listing, kind=notice, key=review_uid, now=now)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="aprobar",
        entity="publicacion",
        entity_uid=listing.uid,
        before=before,
        after=audit.snapshot(listing),
        now=now,
    )
    commit(session)


def reject_listing(
    *,
    session: Session,
    storage: Storage,
    actor: Actor,
    listing_uid: str,
    reason: str,
    expected_version: str | None = None,
    now: datetime | None = None,
) -> None:
    """Refuse a pending listing (rechazada) or the edit of a public one (dropped, the public version stays).

    ``reason`` is shown to the owner. Photos and ready clips added with a refused edit are deleted with their files;
    an identity change it carries is discarded.
    ``expected_version`` as in :func:`approve_listing`.
    """
    now = now or utc_now()
    ensure_staff(session, actor.uid)
    reason = (reason or "").strip() if isinstance(reason, str) else ""
    if not reason or len(reason) > REASON_MAX:
        raise InvalidInputError(f"Indica el motivo del rechazo (hasta {REASON_MAX} caracteres).", field="reason")
    listing = _listing(session, listing_uid)
    _check_version(expected_version, _current_version(session, listing))
    before = audit.snapshot(listing)
    unapproved: Sequence[ListingPhoto] = []
    refused_clips: list[ListingVideo] = []
    notice = NoticeKind.LISTING_REJECTED if listing.status == ListingStatus.PENDIENTE else NoticeKind.EDIT_REJECTED
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
        refused_clips = listing_videos.drop_refused_clips(session, listing.uid)
    else:
        raise ConflictError("Esta publicación no está esperando revisión.")
    listing.updated_at = now
    identity_review.on_rejected(session, listing.owner_uid, listing.uid, actor, now)
    review_uid = close_reviews(
        session, listing.uid, decision=ReviewDecision.RECHAZADA, reason=reason, reviewer=actor, now=now
    )[0]
    session.add(listing)
    notices.notify_owner(session=session, listing=listing, kind=notice, key=review_uid, now=now, reason=reason)
    after = {**(audit.snapshot(listing) or {}), "motivo": reason}
    audit.record(
        session,
        actor_uid=actor.uid,
        action="rechazar",
        entity="publicacion",
        entity_uid=listing.uid,
        before=before,
        after=after,
        now=now,
    )
    commit(session)
    # Files go once their rows are gone for good: a reader never finds a row without its files.
    listing_photos.delete_photo_files(storage=storage, photos=list(unapproved))
    listing_videos.delete_served_files(storage=storage, clips=refused_clips)


def _check_verification(session: Session, request: ListingVerification, expected_version: str | None) -> None:
    """Lock the request's listing and compare what the reviewer saw with what is stored now."""
    if expected_version is None:
        return
    listing = _listing(session, request.listing_uid)
    _check_version(expected_version, verification_version(request.uid, listing, _photos(session, listing.uid)))


def decide_review(
    *,
    session: Session,
    storage: Storage,
    private: Storage,
    actor: Actor,
    item_uid: str,
    decision: ReviewDecision,
    reason: str = "",
    expected_version: str | None = None,
) -> None:
    """Decide one item of the review queue (a ``QueueItem.uid``), approved or rejected (``reason`` shown to the owner).

    The item is looked up here: a listing's pending review (:func:`approve_listing`, :func:`reject_listing`) or a
    verification request (the badge, ``app.services.verification``); NotFoundError when it is neither. ``storage``
    holds the listings' photos, ``private`` the verification photos. ``expected_version`` is the item's version the
    reviewer was shown: ConflictError when the item changed since (None skips the check).
    """
    ensure_staff(session, actor.uid)
    if decision not in (ReviewDecision.APROBADA, ReviewDecision.RECHAZADA):
        raise InvalidInputError("Elige aprobar o rechazar.")
    uid = item_uid if isinstance(item_uid, str) else ""
    request = session.get(ListingVerification, uid) if uid else None
    if request is not None:
        _check_verification(session, request, expected_version)
        if decision == ReviewDecision.APROBADA:
            verification.approve_verification(session=session, storage=private, actor=actor, verification_uid=uid)
        else:
            verification.reject_verification(
                session=session, storage=private, actor=actor, verification_uid=uid, reason=reason
            )
        return
    review = session.get(ListingReview, uid) if uid else None
    if review is None:
        raise NotFoundError(NOT_IN_QUEUE)
    if review.decision != ReviewDecision.PENDIENTE:
        raise ConflictError("Esta publicación ya fue revisada.")
    if decision == ReviewDecision.APROBADA:
        approve_listing(session=session, actor=actor, listing_uid=review.listing_uid, expected_version=expected_version)
    else:
        reject_listing(
            session=session,
            storage=storage,
            actor=actor,
            listing_uid=review.listing_uid,
            reason=reason,
            expected_version=expected_version,
        )
