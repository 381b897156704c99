"""An advertiser's identity (RUT or passport, birth date, nationality) changes only through review.

The first identity is written as given and reviewed with the advertiser's first listing: approving
any of their listings marks it reviewed. A change to a reviewed identity waits in the advertiser's
``pending_*`` columns; the next listing the owner sends to review carries it, and staff's decision
on that listing applies it (approved) or discards it (rejected). Staff pages and the published
listings keep the approved identity meanwhile. A decision on a change is audited on the advertiser
(``profesor``). Inner helpers: they commit nothing; the review service commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlmodel import Session, select

from app.core.actor import Actor
from app.models import Advertiser, ListingReview, ReviewDecision
from app.services.staff import audit

FIELDS = ("rut", "passport", "birth_date", "nationality")
STATUS_NONE = ""
STATUS_NEW = "nueva"  # never reviewed: checked with this listing
STATUS_APPROVED = "aprobada"  # reviewed, nothing changes with this listing
STATUS_CHANGED = "cambio"  # reviewed, and this listing carries a change of it


@dataclass(frozen=True)
class Identity:
    rut: str | None
    passport: str | None
    birth_date: date | None
    nationality: str


def approved(advertiser: Advertiser) -> Identity:
    """The identity as stored (approved once ``identity_reviewed_at`` is set)."""
    return Identity(advertiser.rut, advertiser.passport, advertiser.birth_date, advertiser.nationality or "")


def proposed(advertiser: Advertiser) -> Identity:
    """What the owner last gave: the pending change if one waits, else the stored identity."""
    if advertiser.identity_pending_at is None:
        return approved(advertiser)
    return Identity(
        advertiser.pending_rut,
        advertiser.pending_passport,
        advertiser.pending_birth_date,
        advertiser.pending_nationality or "",
    )


def _clear_pending(advertiser: Advertiser) -> None:
    advertiser.pending_rut = None
    advertiser.pending_passport = None
    advertiser.pending_birth_date = None
    advertiser.pending_nationality = None
    advertiser.identity_pending_at = None
    advertiser.identity_listing_uid = None


def save(advertiser: Advertiser, fields: dict[str, Any], now: datetime) -> None:
    """Step 1 of the wizard: write a never-reviewed identity; keep a change to a reviewed one pending."""
    given = Identity(fields["rut"], fields["passport"], fields["birth_date"], fields["nationality"])
    if advertiser.identity_reviewed_at is None:
        for name in FIELDS:
            setattr(advertiser, name, getattr(given, name))
    elif given == approved(advertiser):
        _clear_pending(advertiser)  # back to the approved identity: nothing waits
    else:
        advertiser.pending_rut = given.rut
        advertiser.pending_passport = given.passport
        advertiser.pending_birth_date = given.birth_date
        advertiser.pending_nationality = given.nationality
        advertiser.identity_pending_at = now
    advertiser.updated_at = now


def _waiting(session: Session, listing_uid: str) -> bool:
    return (
        session.exec(
            select(ListingReview.uid).where(
                ListingReview.listing_uid == listing_uid, ListingReview.decision == ReviewDecision.PENDIENTE
            )
        ).first()
        is not None
    )


def has_unsent_change(session: Session, advertiser: Advertiser | None) -> bool:
    """A pending identity change that no listing in the queue carries yet."""
    if advertiser is None or advertiser.identity_pending_at is None:
        return False
    return advertiser.identity_listing_uid is None or not _waiting(session, advertiser.identity_listing_uid)


def attach(session: Session, advertiser: Advertiser | None, listing_uid: str) -> None:
    """A listing sent to review carries the pending change, unless another listing in the queue already does."""
    if has_unsent_change(session, advertiser):
        assert advertiser is not None
        advertiser.identity_listing_uid = listing_uid
        session.add(advertiser)


def status(advertiser: Advertiser | None, listing_uid: str) -> str:
    """How the identity stands for a reviewer of ``listing_uid`` (one of the STATUS_* values)."""
    if advertiser is None:
        return STATUS_NONE
    if advertiser.identity_reviewed_at is None:
        return STATUS_NEW
    if advertiser.identity_pending_at is not None and advertiser.identity_listing_uid == listing_uid:
        return STATUS_CHANGED
    return STATUS_APPROVED


def stamp(advertiser: Advertiser | None, listing_uid: str) -> list[object]:
    """What a reviewer of ``listing_uid`` is shown of the identity, for the item's version."""
    state = status(advertiser, listing_uid)
    if advertiser is None:
        return [state]
    shown = [approved(advertiser)] + ([proposed(advertiser)] if state == STATUS_CHANGED else [])
    return [state, *([i.rut, i.passport, i.birth_date and i.birth_date.isoformat(), i.nationality] for i in shown)]


def advertiser_of(session: Session, owner_uid: str, *, for_update: bool = False) -> Advertiser | None:
    query = select(Advertiser).where(Advertiser.user_uid == owner_uid)
    return session.exec(query.with_for_update() if for_update else query).first()


def _decided(
    session: Session, advertiser: Advertiser, reviewer: Actor, action: str, before: dict[str, Any] | None, now: datetime
) -> None:
    advertiser.updated_at = now
    session.add(advertiser)
    audit.record(
        session,
        actor_uid=reviewer.uid,
        action=action,
        entity=Advertiser.__tablename__,
        entity_uid=advertiser.uid,
        before=before,
        after=audit.snapshot(advertiser),
        now=now,
    )


def on_approved(session: Session, owner_uid: str, listing_uid: str, reviewer: Actor, now: datetime) -> None:
    """Staff approved ``listing_uid``: the first identity is now reviewed; a change it carries applies."""
    advertiser = advertiser_of(session, owner_uid, for_update=True)
    if advertiser is None:
        return
    before = audit.snapshot(advertiser) or {}
    if advertiser.identity_reviewed_at is None:
        advertiser.identity_reviewed_at = now
    elif status(advertiser, listing_uid) == STATUS_CHANGED:
        given = proposed(advertiser)
        for name in FIELDS:
            setattr(advertiser, name, getattr(given, name))
        _clear_pending(advertiser)
        advertiser.identity_reviewed_at = now
    else:
        return
    _decided(session, advertiser, reviewer, "aprobar identidad", before, now)


def on_rejected(session: Session, owner_uid: str, listing_uid: str, reviewer: Actor, now: datetime) -> None:
    """Staff rejected ``listing_uid``: a change of the identity it carries is discarded."""
    advertiser = advertiser_of(session, owner_uid, for_update=True)
    if advertiser is None or status(advertiser, listing_uid) != STATUS_CHANGED:
        return
    before = audit.snapshot(advertiser) or {}
    _clear_pending(advertiser)
    _decided(session, advertiser, reviewer, "descartar identidad", before, now)
