"""The review queue (revisarPublicacion) as staff see it: what waits, oldest first, with the signals beside it.

An item is either a pending ``revisar_publicacion`` row (a new, resent or renewed
listing in status pendiente, or the edit of a public one waiting in ``revision``)
or an open verification request (its photo only through the authorized route
``/privado/verificacion/{uid}``). The decisions themselves are
``app.services.staff.reviews`` and ``app.services.verification``; this module reads.

The signals beside each item (the same phone or photo on other owners' listings, the owner's
history, reports) come from ``app.services.staff.review_signals``.

A listing's item also shows the owner's identity, what staff check before anything goes public
(RUT or passport, birth date and age, nationality; nothing more): new, already approved, or the
approved one beside the change this listing carries (``app.services.identity_review``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import Subquery, and_, func, literal, or_, union_all
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from app.core.actor import Actor
from app.core.dates import format_date
from app.core.geo import city_by_slug
from app.core.money import format_currency
from app.models import (
    Advertiser,
    AdvertiserService,
    ClipStatus,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingVerification,
    ListingVideo,
    ReviewDecision,
    Section,
    Tier,
    User,
    VerificationStatus,
    utc_now,
)
from app.services import identity_review, listing_videos
from app.services.listing_form import schedule_text, years_between
from app.services.listing_revisions import REVISED_STATUSES, revision_changes
from app.services.listings import clock, photo_url
from app.services.staff import review_signals
from app.services.staff.review_signals import QueueSignal
from app.services.staff.reviews import REJECTION_REASONS, listing_version, verification_version
from app.services.staff.shared import ensure_staff
from app.settings import get_settings

PAGE_SIZE = 10

KIND_NEW = "nueva"
KIND_EDIT = "edicion"
KIND_VERIFICATION = "verificacion"
KIND_LABELS = {
    KIND_NEW: "Publicación por revisar",
    KIND_EDIT: "Cambios a una publicación publicada",
    KIND_VERIFICATION: "Solicitud de verificación",
}
VERIFICATION_REJECTION_REASONS: tuple[str, ...] = (
    "La foto no muestra el papel con el nombre del sitio y la fecha",
    "La persona no coincide con las fotos de la publicación",
    "La foto no se ve bien",
    "Posible persona menor de edad",
    "Otro",
)


def rejection_reasons(kind: str) -> tuple[str, ...]:
    """The reasons a reviewer picks from to reject an item of ``kind`` (a QueueItem's)."""
    return VERIFICATION_REJECTION_REASONS if kind == KIND_VERIFICATION else REJECTION_REASONS


def verification_photo_path(verification_uid: str) -> str:
    """The authorized route that serves an open request's photo to staff (app/web/private_api.py)."""
    return f"/privado/verificacion/{verification_uid}"


class QueueRow(BaseModel):
    """A field of the listing: its published value and, for an edit, the proposed one.

    ``changed``: in a comparison, whether this field's proposed value differs from the published one.
    """

    label: str
    published: str
    proposed: str
    changed: bool = False


IDENTITY_LABELS = {
    identity_review.STATUS_NEW: "Identidad: nueva",
    identity_review.STATUS_APPROVED: "Identidad: aprobada",
    identity_review.STATUS_CHANGED: "Identidad: aprobada y nueva",
}


class QueuePhoto(BaseModel):
    url: str
    label: str
    flagged: bool


class QueueClip(BaseModel):
    """A clip of the listing as the reviewer gets it: playable once ready (``video_url``), else its state.

    ``status``: a ClipStatus value; ``note``: "Procesando video…" or why it failed ("" when ready).
    """

    label: str
    status: str
    video_url: str
    poster_url: str
    width: int
    height: int
    note: str
    new: bool


CLIP_PROCESSING = "Procesando video…"


def _queue_clips(clips: list[ListingVideo], edit: bool) -> list[QueueClip]:
    shown = []
    for number, clip in enumerate(clips, start=1):
        public = listing_videos.clip_public(clip)
        note = {ClipStatus.PROCESANDO: CLIP_PROCESSING, ClipStatus.FALLIDA: clip.failure or "No se pudo procesar."}
        shown.append(
            QueueClip(
                label=f"Video enviado {number}",
                status=clip.status.value,
                video_url=public.video_url,
                poster_url=public.poster_url,
                width=clip.width,
                height=clip.height,
                note=note.get(clip.status, ""),
                new=edit and not clip.approved,
            )
        )
    return shown


class QueueItem(BaseModel):
    """One item of the queue as the page shows it; ``version`` stamps the content shown (reviews.listing_version)."""

    uid: str
    version: str
    kind: str
    kind_label: str
    listing_uid: str
    title: str
    subtitle: str
    waiting: str
    rows: list[QueueRow]
    identity_status: str
    identity_label: str
    identity: list[QueueRow]
    photos: list[QueuePhoto]
    clips: list[QueueClip]
    verification_photo_url: str
    signals: list[QueueSignal]


@dataclass(frozen=True)
class QueuePage:
    items: list[QueueItem]
    total: int
    page: int
    page_size: int
    oldest: str


# ---------------------------------------------------------------- the queue itself


def _pending_reviews() -> Select[datetime, str, str]:
    """Pending reviews of listings that really wait: pendiente, or public with an edit sent."""
    return (
        select(ListingReview.created_at, literal(KIND_NEW).label("kind"), ListingReview.uid)
        .join(Listing, col(Listing.uid) == col(ListingReview.listing_uid))
        .where(ListingReview.decision == ReviewDecision.PENDIENTE)
        .where(
            or_(
                col(Listing.status) == ListingStatus.PENDIENTE,
                and_(col(Listing.status).in_(REVISED_STATUSES), col(Listing.revision_at).is_not(None)),
            )
        )
    )


def _pending_verifications() -> Select[datetime, str, str]:
    return select(
        ListingVerification.created_at, literal(KIND_VERIFICATION).label("kind"), ListingVerification.uid
    ).where(ListingVerification.status == VerificationStatus.SOLICITADA)


def _queue() -> Subquery:
    return union_all(_pending_reviews(), _pending_verifications()).subquery()


def queue_size(session: Session) -> tuple[int, datetime | None]:
    """How many items the queue holds and when the oldest arrived (what the queue page counts)."""
    queue = _queue()
    total, oldest = session.exec(select(func.count(), func.min(queue.c.created_at)).select_from(queue)).one()
    return total, _aware(oldest) if oldest is not None else None


def _local(moment: datetime) -> datetime:
    return moment.astimezone(ZoneInfo(get_settings().timezone))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo("UTC"))


def waiting_label(created_at: datetime, now: datetime) -> str:
    """ "Enviada el 21/11/2026 14:03 · hace 3 h" (minutes, hours or days)."""
    created_at = _aware(created_at)
    minutes = max(0, int((now - created_at).total_seconds() // 60))
    if minutes < 1:
        age = "hace menos de 1 min"
    elif minutes < 60:
        age = f"hace {minutes} min"
    elif minutes < 48 * 60:
        age = f"hace {minutes // 60} h"
    else:
        age = f"hace {minutes // (24 * 60)} días"
    return f"Enviada el {format_date(_local(created_at), 'DD/MM/YYYY HH:mm')} · {age}"


def list_queue(
    *, session: Session, actor: Actor, page: int = 1, page_size: int = PAGE_SIZE, now: datetime | None = None
) -> QueuePage:
    """One page of the queue, oldest first, each item with its content and signals (staff only)."""
    ensure_staff(session, actor.uid)
    now = now or utc_now()
    page_size = max(1, min(page_size, PAGE_SIZE))
    page = max(1, page)
    total, oldest_at = queue_size(session)
    queue = _queue()
    entries = session.exec(
        select(queue.c.created_at, queue.c.kind, queue.c.uid)
        .order_by(queue.c.created_at, queue.c.uid)
        .offset((page - 1) * page_size)
        .limit(page_size)
    ).all()
    items = _build_items(session, [(kind, uid) for _, kind, uid in entries], now)
    return QueuePage(
        items=items,
        total=total,
        page=page,
        page_size=page_size,
        oldest=waiting_label(oldest_at, now) if oldest_at else "",
    )


# ---------------------------------------------------------------- item content


def _text(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "Sí" if value else "No"
    if isinstance(value, date):
        return value.strftime("%Y/%m/%d")
    return str(value)


def _city_name(value: Any) -> str:
    city = city_by_slug(value)
    return city.name if city else _text(value)


def _money(value: Any) -> str:
    return format_currency(value) if value is not None else "—"


FIELDS: tuple[tuple[str, str, Any], ...] = (
    ("display_name", "Nombre", _text),
    ("age", "Edad", _text),
    ("section", "Sección", lambda v: "Trans" if v == Section.TRANS else "Mujeres"),
    ("city_slug", "Ciudad", _city_name),
    ("commune", "Comuna", _text),
    ("base_tier_uid", "Categoría", None),
    ("description", "Descripción", _text),
    ("price_hour_clp", "Tarifa por hora", _money),
    ("price_half_hour_clp", "30 minutos", _money),
    ("price_two_hours_clp", "2 horas", _money),
    ("price_night_clp", "Noche", _money),
    ("schedule", "Horario", lambda v: schedule_text(v or "")),
    ("visiting_from", "De pasada desde", _text),
    ("visiting_until", "De pasada hasta", _text),
    ("phone", "Teléfono", _text),
    ("whatsapp", "WhatsApp", _text),
    ("porn_actress", "Actriz porno", _text),
    ("curvy", "Culonas", _text),
)


@dataclass
class _Context:
    """What the page's items need, read in batches."""

    listings: dict[str, Listing]
    photos: dict[str, list[ListingPhoto]]
    clips: dict[str, list[ListingVideo]]
    services: dict[str, list[str]]
    service_names: dict[str, str]
    tier_names: dict[str, str]
    owners: dict[str, User]
    advertisers: dict[str, Advertiser]


def _context(session: Session, listing_uids: set[str]) -> _Context:
    listings = {row.uid: row for row in session.exec(select(Listing).where(col(Listing.uid).in_(listing_uids)))}
    photos: dict[str, list[ListingPhoto]] = defaultdict(list)
    for photo in session.exec(
        select(ListingPhoto).where(col(ListingPhoto.listing_uid).in_(listing_uids)).order_by(col(ListingPhoto.position))
    ):
        photos[photo.listing_uid].append(photo)
    services: dict[str, list[str]] = defaultdict(list)
    for listing_uid, service_uid in session.exec(
        select(ListingService.listing_uid, ListingService.service_uid).where(
            col(ListingService.listing_uid).in_(listing_uids)
        )
    ):
        services[listing_uid].append(service_uid)
    owner_uids = {listing.owner_uid for listing in listings.values()}
    return _Context(
        listings=listings,
        photos=photos,
        clips=listing_videos.clips_by_listing(session, listing_uids),
        services=services,
        service_names=dict(session.exec(select(AdvertiserService.uid, AdvertiserService.name)).all()),
        tier_names=dict(session.exec(select(Tier.uid, Tier.name)).all()),
        owners={user.uid: user for user in session.exec(select(User).where(col(User.uid).in_(owner_uids)))},
        advertisers={
            row.user_uid: row
            for row in session.exec(select(Advertiser).where(col(Advertiser.user_uid).in_(owner_uids)))
        },
    )


def _shown(ctx: _Context, column: str, value: Any, fmt: Callable[[Any], str]) -> str:
    if column == "base_tier_uid":
        return ctx.tier_names.get(value, "—") if value else "—"
    return fmt(value)


def _services_text(ctx: _Context, uids: list[str]) -> str:
    names = sorted(ctx.service_names.get(uid, "") for uid in uids)
    return ", ".join(name for name in names if name) or "Ninguno"


def _rows(ctx: _Context, listing: Listing, edit: bool) -> list[QueueRow]:
    """Every field for a listing to review; for an edit, only what changes, published beside proposed."""
    changes, changed_services = revision_changes(listing) if edit else ({}, None)
    rows = []
    for column, label, fmt in FIELDS:
        published = _shown(ctx, column, getattr(listing, column), fmt)
        if not edit:
            rows.append(QueueRow(label=label, published=published, proposed=""))
        elif column in changes:
            proposed = _shown(ctx, column, changes[column], fmt)
            if proposed != published:
                rows.append(QueueRow(label=label, published=published, proposed=proposed, changed=True))
    services = _services_text(ctx, ctx.services.get(listing.uid, []))
    if not edit:
        rows.append(QueueRow(label="Servicios", published=services, proposed=""))
    elif changed_services is not None and (proposed := _services_text(ctx, changed_services)) != services:
        rows.append(QueueRow(label="Servicios", published=services, proposed=proposed, changed=True))
    return rows


def _identity_values(identity: identity_review.Identity, today: date) -> list[tuple[str, str]]:
    born = identity.birth_date
    return [
        (
            "Documento",
            f"Pasaporte {identity.passport}"
            if identity.passport and not identity.rut
            else f"RUT {_text(identity.rut)}",
        ),
        (
            "Fecha de nacimiento",
            f"{format_date(born, 'DD/MM/YYYY')} · {years_between(born, today)} años" if born else "—",
        ),
        ("Nacionalidad", _text(identity.nationality)),
    ]


def _identity_rows(advertiser: Advertiser | None, state: str, today: date) -> list[QueueRow]:
    """The identity to check; for a change, the approved values beside the new ones, each field marked on its own."""
    if advertiser is None:
        return []
    approved = _identity_values(identity_review.approved(advertiser), today)
    if state != identity_review.STATUS_CHANGED:
        return [QueueRow(label=label, published=value, proposed="") for label, value in approved]
    new = _identity_values(identity_review.proposed(advertiser), today)
    return [
        QueueRow(label=label, published=value, proposed=proposed, changed=proposed != value)
        for (label, value), (_, proposed) in zip(approved, new, strict=True)
    ]


def _subtitle(listing: Listing, owner: User | None) -> str:
    city = city_by_slug(listing.city_slug)
    section = "Trans" if listing.section == Section.TRANS else "Mujeres"
    who = owner.display_name if owner and owner.display_name else "Anunciante"
    return " · ".join(part for part in (city.name if city else "", section, f"Cuenta: {who}") if part)


def _build_items(session: Session, entries: list[tuple[str, str]], now: datetime) -> list[QueueItem]:
    review_uids = [uid for kind, uid in entries if kind == KIND_NEW]
    verification_uids = [uid for kind, uid in entries if kind == KIND_VERIFICATION]
    reviews = {
        row.uid: row for row in session.exec(select(ListingReview).where(col(ListingReview.uid).in_(review_uids)))
    }
    verifications = {
        row.uid: row
        for row in session.exec(select(ListingVerification).where(col(ListingVerification.uid).in_(verification_uids)))
    }
    listing_uids = {row.listing_uid for row in reviews.values()} | {row.listing_uid for row in verifications.values()}
    ctx = _context(session, listing_uids)
    signals = review_signals.read_signals(session, listings=ctx.listings, photos=ctx.photos, owners=ctx.owners)
    today = clock(now).today
    items = []
    for kind, uid in entries:
        source = reviews.get(uid) if kind == KIND_NEW else verifications.get(uid)
        listing = ctx.listings.get(source.listing_uid) if source else None
        if source is None or listing is None:
            continue
        if kind == KIND_NEW and listing.status in REVISED_STATUSES and listing.revision_at is not None:
            kind = KIND_EDIT
        flagged = signals.flagged_photos
        photos = ctx.photos.get(listing.uid, [])
        advertiser = ctx.advertisers.get(listing.owner_uid)
        identity_state = ""
        if kind == KIND_VERIFICATION:
            version = verification_version(uid, listing, photos)
            photos = [photo for photo in photos if photo.approved]
        else:
            identity_state = identity_review.status(advertiser, listing.uid)
            version = listing_version(
                listing,
                ctx.services.get(listing.uid, []),
                photos,
                identity_review.stamp(advertiser, listing.uid),
                listing_videos.clip_stamp(ctx.clips.get(listing.uid, [])),
            )
        items.append(
            QueueItem(
                uid=uid,
                version=version,
                kind=kind,
                kind_label=KIND_LABELS[kind],
                listing_uid=listing.uid,
                title=listing.display_name or "Sin nombre",
                subtitle=_subtitle(listing, ctx.owners.get(listing.owner_uid)),
                waiting=waiting_label(source.created_at, now),
                rows=[] if kind == KIND_VERIFICATION else _rows(ctx, listing, kind == KIND_EDIT),
                identity_status=identity_state,
                identity_label=IDENTITY_LABELS.get(identity_state, ""),
                identity=_identity_rows(advertiser, identity_state, today) if identity_state else [],
                photos=[
                    QueuePhoto(
                        url=photo_url(photo.path),
                        label="Foto nueva" if not photo.approved and kind == KIND_EDIT else "",
                        flagged=photo.uid in flagged,
                    )
                    for photo in photos
                ],
                clips=[]
                if kind == KIND_VERIFICATION
                else _queue_clips(ctx.clips.get(listing.uid, []), kind == KIND_EDIT),
                verification_photo_url=verification_photo_path(uid) if kind == KIND_VERIFICATION else "",
                signals=signals.by_listing.get(listing.uid, []),
            )
        )
    return items
