"""The advertiser's own listings: the wizard's drafts, sending to review, and the actions of "my listings".

Every function takes the caller's ``owner_uid`` from the server (never from the
browser) and looks the listing up with it (``owned_listing``): someone else's
listing and a missing one give the same "not found".

Drafts: the wizard saves after every step, into the ``publicacion`` row itself
(status borrador, fields still empty until their step). Editing a listing that
has been public (publicada, pausada) writes the changes into ``revision`` (JSON)
instead, so the public version stays as it is until staff approve the changes
(``app.services.reviews``). Identity (step 1) belongs to the advertiser record,
which only staff see; once reviewed, a change to it waits for review too
(``app.services.identity_review``).
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import delete, func
from sqlmodel import Session, select

from app.core.dates import format_date
from app.core.errors import ConflictError, InvalidInputError
from app.core.geo import CITIES, city_by_slug, commune_names_for_city
from app.core.money import format_currency
from app.db import commit
from app.models import (
    LISTING_STATUS_LABELS,
    WIZARD_DONE,
    ActorKind,
    Advertiser,
    AdvertiserService,
    AdvertiserType,
    AppService,
    Listing,
    ListingDailyStats,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    Report,
    ReviewDecision,
    Section,
    Tier,
    UpgradeEffect,
    User,
    utc_now,
)
from app.services import identity_review, listing_photos, stats
from app.services.listing_form import (
    DOCUMENT_PASSPORT,
    DOCUMENT_RUT,
    PHOTO_STEP,
    SEND_STEP,
    STEPS,
    WEEKDAYS,
    Catalogues,
    clean_step,
    nationalities,
    parse_schedule,
    schedule_text,
)
from app.services.listing_lifecycle import ensure_transition
from app.services.listings import clock, listing_path, photo_url
from app.services.ownership import owned_listing
from app.settings import get_settings
from app.storage import Storage, get_private_storage

AVAILABLE_NOW_HOURS = (1, 2, 3, 4, 6, 8, 12)
DRAFT_TITLE = "Borrador sin nombre"
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
    "has_video",
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
    available_until_label: str
    expires_label: str
    pending_revision: bool
    verified_label: str
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


class WizardOptions(BaseModel):
    """The choices the wizard's selects offer."""

    cities: list[tuple[str, str]]
    communes: dict[str, list[str]]
    sections: list[tuple[str, str]]
    tiers: list[tuple[str, str]]
    types: list[tuple[str, str]]
    services: list[tuple[str, str]]
    nationalities: list[str]
    weekdays: list[tuple[str, str]]


IDENTITY_PENDING = "pendiente"
IDENTITY_REVIEWED = "revisada"


class WizardDraft(BaseModel):
    """Where the wizard resumes, with every field as a form string; ``identity`` is IDENTITY_* or ""."""

    uid: str
    step: int
    editing_published: bool
    identity: str
    values: dict[str, str]
    services: list[str]
    schedule: dict[str, str]


# ---------------------------------------------------------------- catalogues


def _upgrade_tiers(session: Session) -> set[str]:
    """Tiers sold as upgrades: reached through "Mejorar", not chosen freely in the wizard."""
    rows = session.exec(
        select(AppService.tier_uid).where(AppService.effect == UpgradeEffect.TIER, AppService.tier_uid.is_not(None))
    ).all()
    return {uid for uid in rows if uid}


def _free_tiers(session: Session) -> list[Tier]:
    sold = _upgrade_tiers(session)
    tiers = session.exec(select(Tier).order_by(Tier.display_order)).all()
    free = [tier for tier in tiers if tier.uid not in sold]
    return free or list(tiers[-1:])


def _catalogues(session: Session) -> Catalogues:
    return Catalogues(
        tiers=frozenset(tier.uid for tier in _free_tiers(session)),
        types=frozenset(session.exec(select(AdvertiserType.uid)).all()),
        services=frozenset(session.exec(select(AdvertiserService.uid)).all()),
    )


def wizard_options(*, session: Session) -> WizardOptions:
    """Cities, communes, sections, free tiers, advertiser types, services, nationalities and weekdays."""
    return WizardOptions(
        cities=[(city.slug, city.name) for city in sorted(CITIES, key=lambda c: c.name)],
        communes={city.slug: commune_names_for_city(city.slug) or [city.name] for city in CITIES},
        sections=[(Section.MUJERES.value, "Mujeres"), (Section.TRANS.value, "Trans")],
        tiers=[(tier.uid, tier.name) for tier in _free_tiers(session)],
        types=[(row.uid, row.name) for row in session.exec(select(AdvertiserType).order_by(AdvertiserType.name))],
        services=[
            (row.uid, row.name) for row in session.exec(select(AdvertiserService).order_by(AdvertiserService.name))
        ],
        nationalities=list(nationalities()),
        weekdays=list(WEEKDAYS),
    )


# ---------------------------------------------------------------- helpers


def _advertiser(session: Session, owner_uid: str) -> Advertiser | None:
    return session.exec(select(Advertiser).where(Advertiser.user_uid == owner_uid)).first()


def _today(now: datetime | None = None) -> date:
    return clock(now).today


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


def _photo_count(session: Session, listing_uid: str) -> int:
    return session.exec(
        select(func.count()).select_from(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid)
    ).one()


def _effective(session: Session, listing: Listing) -> tuple[dict[str, Any], list[str]]:
    """The listing's columns as the owner is editing them: the live row with any pending edit over it."""
    columns = {column: getattr(listing, column) for column in EDITABLE_COLUMNS}
    services = _services_of(session, listing.uid)
    if listing.status in REVISED_STATUSES:
        changes, changed_services = revision_changes(listing)
        columns.update(changes)
        if changed_services is not None:
            services = changed_services
    return columns, services


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else ""
    if isinstance(value, date):
        return value.strftime("%Y/%m/%d")
    return str(value)


def _form_values(advertiser: Advertiser | None, columns: dict[str, Any]) -> dict[str, str]:
    values = {column: _as_text(value) for column, value in columns.items()}
    values["tier_uid"] = values.pop("base_tier_uid", "")
    values.pop("name_slug", None)
    values.pop("schedule", None)
    if advertiser is not None:
        identity = identity_review.proposed(advertiser)
        values.update(
            document=DOCUMENT_PASSPORT if identity.passport and not identity.rut else DOCUMENT_RUT,
            rut=identity.rut or "",
            passport=identity.passport or "",
            birth_date=_as_text(identity.birth_date),
            nationality=identity.nationality or "",
            type_uid=advertiser.type_uid or "",
        )
    else:
        values.update(document=DOCUMENT_RUT, rut="", passport="", birth_date="", nationality="", type_uid="")
    return values


def _has_identity(advertiser: Advertiser | None) -> bool:
    return bool(advertiser and (advertiser.rut or advertiser.passport) and advertiser.birth_date)


def _identity_state(advertiser: Advertiser | None) -> str:
    if advertiser is None:
        return ""
    if advertiser.identity_pending_at is not None:
        return IDENTITY_PENDING
    return IDENTITY_REVIEWED if advertiser.identity_reviewed_at is not None else ""


# ---------------------------------------------------------------- the wizard


def load_wizard(*, session: Session, owner_uid: str, uid: str | None) -> WizardDraft:
    """The wizard's state for listing ``uid``; without one, the owner's newest unfinished draft or a blank one."""
    advertiser = _advertiser(session, owner_uid)
    if uid:
        listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    else:
        listing = session.exec(
            select(Listing)
            .where(
                Listing.owner_uid == owner_uid,
                Listing.status == ListingStatus.BORRADOR,
                Listing.wizard_step < WIZARD_DONE,
            )
            .order_by(Listing.updated_at.desc())
        ).first()
    if listing is None:
        blank = dict.fromkeys(EDITABLE_COLUMNS)
        blank["section"] = Section.MUJERES.value
        return WizardDraft(
            uid="",
            step=1,
            editing_published=False,
            identity=_identity_state(advertiser),
            values=_form_values(advertiser, blank),
            services=[],
            schedule=parse_schedule(""),
        )
    columns, services = _effective(session, listing)
    step = min(listing.wizard_step, SEND_STEP)
    if listing.status != ListingStatus.BORRADOR:
        step = 1
    return WizardDraft(
        uid=listing.uid,
        step=step,
        editing_published=listing.status in REVISED_STATUSES,
        identity=_identity_state(advertiser),
        values=_form_values(advertiser, columns),
        services=services,
        schedule=parse_schedule(columns["schedule"] or ""),
    )


def _write_identity(session: Session, owner_uid: str, fields: dict[str, Any], now: datetime) -> None:
    """A new advertiser's identity, or a change kept pending when the identity was already reviewed."""
    advertiser = identity_review.advertiser_of(session, owner_uid, for_update=True)
    if advertiser is None:
        user = session.get(User, owner_uid)
        advertiser = Advertiser(
            user_uid=owner_uid,
            display_name=(user.display_name if user else "")[:80] or "Anunciante",
            birth_date=fields["birth_date"],
            consent_at=now,
        )
    identity_review.save(advertiser, fields, now)
    session.add(advertiser)


def _apply_columns(session: Session, listing: Listing, fields: dict[str, Any], services: list[str] | None) -> None:
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
        session.exec(delete(ListingService).where(ListingService.listing_uid == listing.uid))
        session.add_all([ListingService(listing_uid=listing.uid, service_uid=uid) for uid in services])


def set_base_tier(session: Session, listing: Listing, tier_uid: str) -> None:
    """The advertiser's own tier; the shown tier follows unless an upgrade currently lifts it."""
    listing.base_tier_uid = tier_uid
    lifted = session.exec(
        select(ListingUpgrade.uid)
        .join(AppService, AppService.uid == ListingUpgrade.app_service_uid)
        .where(ListingUpgrade.listing_uid == listing.uid, ListingUpgrade.status == "activa")
        .where(AppService.effect == UpgradeEffect.TIER)
        .where(ListingUpgrade.starts_at <= utc_now(), ListingUpgrade.ends_at > utc_now())
    ).first()
    if lifted is None:
        tier = session.get(Tier, tier_uid)
        listing.tier_uid = tier_uid
        listing.tier_rank = tier.display_order if tier else None


def save_step(
    *,
    session: Session,
    owner_uid: str,
    uid: str | None,
    step: int,
    values: dict[str, str],
    services: list[str] | None = None,
    schedule: dict[str, str] | None = None,
    now: datetime | None = None,
) -> str:
    """Validate one wizard step and save it; return the listing's uid (a new draft on the first save).

    Raises InvalidInputError(field=...) and changes nothing when the step is not valid.
    """
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True) if uid else None
    if listing is None and step != 1:
        raise InvalidInputError("Empieza por el primer paso.")
    photo_count = _photo_count(session, listing.uid) if listing is not None and step == PHOTO_STEP else 0
    clean = clean_step(
        step,
        values,
        today=_today(now),
        catalogues=_catalogues(session),
        services=services,
        schedule=schedule,
        photo_count=photo_count,
    )
    if step == 1:
        _write_identity(session, owner_uid, clean.advertiser, now)
    elif clean.advertiser:
        advertiser = _advertiser(session, owner_uid)
        if advertiser is None:
            raise InvalidInputError("Completa primero tu identidad (paso 1).", field="type_uid")
        for name, value in clean.advertiser.items():
            setattr(advertiser, name, value)
        session.add(advertiser)
    if listing is None:
        listing = Listing(owner_uid=owner_uid, status=ListingStatus.BORRADOR, wizard_step=1, created_at=now)
        session.add(listing)
        session.flush()
    _apply_columns(session, listing, clean.listing, clean.services)
    if step < SEND_STEP:
        listing.wizard_step = max(listing.wizard_step, step + 1)
    listing.updated_at = now
    session.add(listing)
    commit(session)
    return listing.uid


def _validate_all(session: Session, listing: Listing, now: datetime) -> None:
    """Run every step again on what is stored: the browser may have skipped steps or sent anything."""
    advertiser = _advertiser(session, listing.owner_uid)
    if not _has_identity(advertiser):
        raise InvalidInputError("Falta tu identidad (paso 1).", field="rut")
    columns, services = _effective(session, listing)
    values = _form_values(advertiser, columns)
    schedule = parse_schedule(columns["schedule"] or "")
    catalogues = _catalogues(session)
    current_tier = columns.get("base_tier_uid")
    if current_tier:
        # A tier the listing already holds stays valid even if it is sold as an upgrade now.
        catalogues = Catalogues(catalogues.tiers | {current_tier}, catalogues.types, catalogues.services)
    for step in STEPS:
        if step.number in (1, SEND_STEP):
            continue
        try:
            clean_step(
                step.number,
                values,
                today=_today(now),
                catalogues=catalogues,
                services=services,
                schedule=schedule,
                photo_count=_photo_count(session, listing.uid),
            )
        except InvalidInputError as exc:
            if step.number == 6 and exc.field == "visiting_until" and listing.status in REVISED_STATUSES:
                continue  # a past visit on a published listing is shown as over, not a reason to refuse an edit
            raise InvalidInputError(f"Paso {step.number} ({step.title}): {exc.message}", field=exc.field) from exc


def review_summary(*, session: Session, owner_uid: str, uid: str) -> list[tuple[str, str]]:
    """(label, value) rows of what will be sent, for the wizard's last step."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    columns, services = _effective(session, listing)
    city = city_by_slug(columns["city_slug"])
    tier = session.get(Tier, columns["base_tier_uid"]) if columns["base_tier_uid"] else None
    names = (
        session.exec(select(AdvertiserService.name).where(AdvertiserService.uid.in_(services))).all()
        if services
        else []
    )
    prices = [
        ("Tarifa por hora", columns["price_hour_clp"]),
        ("30 minutos", columns["price_half_hour_clp"]),
        ("2 horas", columns["price_two_hours_clp"]),
        ("Noche", columns["price_night_clp"]),
    ]
    visit = ""
    if columns["visiting_from"] and columns["visiting_until"]:
        visit = (
            f"Del {format_date(columns['visiting_from'], 'D [de] MMMM')}"
            f" al {format_date(columns['visiting_until'], 'D [de] MMMM')}"
        )
    rows = [
        ("Nombre", columns["display_name"] or ""),
        ("Edad", _as_text(columns["age"])),
        ("Ciudad", f"{city.name}, {columns['commune']}" if city else ""),
        ("Sección", "Trans" if columns["section"] == Section.TRANS else "Mujeres"),
        ("Categoría", tier.name if tier else ""),
        ("Servicios", ", ".join(sorted(names)) or "Ninguno"),
        *((label, format_currency(value)) for label, value in prices if value is not None),
        ("Horario", schedule_text(columns["schedule"] or "")),
        ("De pasada", visit or "No"),
        ("Fotos", str(_photo_count(session, listing.uid))),
        ("Teléfono", columns["phone"] or ""),
        ("WhatsApp", columns["whatsapp"] or "No"),
        ("Descripción", columns["description"] or ""),
    ]
    return rows


def _open_review(session: Session, listing_uid: str, now: datetime) -> None:
    pending = session.exec(
        select(ListingReview.uid).where(
            ListingReview.listing_uid == listing_uid, ListingReview.decision == ReviewDecision.PENDIENTE
        )
    ).first()
    if pending is None:
        session.add(ListingReview(listing_uid=listing_uid, created_at=now))


def send_to_review(*, session: Session, owner_uid: str, uid: str, now: datetime | None = None) -> None:
    """Validate the whole listing again and put it in staff's review queue.

    A draft, a rejected or an expired listing becomes ``pendiente``; a published or paused
    one keeps showing its approved version while its changes wait for review.
    """
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    _validate_all(session, listing, now)
    advertiser = identity_review.advertiser_of(session, owner_uid, for_update=True)
    if listing.status in REVISED_STATUSES:
        if (
            not listing.revision
            and listing.revision_at is None
            and not identity_review.has_unsent_change(session, advertiser)
        ):
            raise ConflictError("No hay cambios que enviar: tu publicación ya está publicada así.")
        listing.revision_at = now
    elif listing.status != ListingStatus.PENDIENTE:
        listing.status = ensure_transition(listing.status, ListingStatus.PENDIENTE, ActorKind.OWNER)
    listing.wizard_step = WIZARD_DONE
    listing.updated_at = now
    _open_review(session, listing.uid, now)
    session.flush()
    identity_review.attach(session, advertiser, listing.uid)
    session.add(listing)
    commit(session)


# ---------------------------------------------------------------- my listings


def _latest_rejection(session: Session, listing_uids: list[str]) -> dict[str, str]:
    """The reason of each listing's latest decided review, when that review was a rejection."""
    if not listing_uids:
        return {}
    rows = session.exec(
        select(ListingReview)
        .where(ListingReview.listing_uid.in_(listing_uids), ListingReview.decision != ReviewDecision.PENDIENTE)
        .order_by(ListingReview.decided_at)
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
        select(ListingPhoto).where(ListingPhoto.listing_uid.in_(listing_uids)).order_by(ListingPhoto.position.desc())
    ).all()
    return {photo.listing_uid: photo_url(photo.path) for photo in rows}


def _local_time(moment: datetime) -> str:
    return format_date(moment.astimezone(ZoneInfo(get_settings().timezone)), "HH:mm")


def list_my_listings(*, session: Session, owner_uid: str, now: datetime | None = None) -> list[MyListingRow]:
    """Every listing of the owner, newest change first, with its status, figures and allowed actions."""
    now = now or utc_now()
    listings = session.exec(
        select(Listing).where(Listing.owner_uid == owner_uid).order_by(Listing.updated_at.desc(), Listing.uid)
    ).all()
    uids = [listing.uid for listing in listings]
    totals = stats.totals_for(session=session, listing_uids=uids, today=_today(now))
    rejections = _latest_rejection(session, uids)
    covers = _covers(session, uids)
    rows = []
    for listing in listings:
        status = ListingStatus(listing.status)
        city = city_by_slug(listing.city_slug)
        figures = totals.get(listing.uid)
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
                available_until_label=f"Disponible ahora hasta las {_local_time(listing.available_until)}"
                if available and listing.available_until
                else "",
                expires_label=f"Vence el {format_date(listing.expires_at, 'D [de] MMMM [de] YYYY')}"
                if listing.expires_at and status in REVISED_STATUSES
                else "",
                pending_revision=listing.revision_at is not None,
                verified_label=verified_label,
                can_continue=status == ListingStatus.BORRADOR,
                can_edit=status != ListingStatus.BORRADOR,
                can_pause=status == ListingStatus.PUBLICADA,
                can_resume=status == ListingStatus.PAUSADA,
                can_renew=status == ListingStatus.EXPIRADA,
                can_available_now=public,
                can_copy=status != ListingStatus.BORRADOR,
                can_upgrade=status in REVISED_STATUSES,
                can_verify=status != ListingStatus.BORRADOR and not listing.verified,
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
    """Show a paused listing again, unless its time ran out while it was paused (then it expires)."""
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if listing.status == ListingStatus.PAUSADA and listing.expires_at and listing.expires_at <= now:
        listing.status = ensure_transition(listing.status, ListingStatus.EXPIRADA, ActorKind.SYSTEM)
        listing.updated_at = now
        session.add(listing)
        commit(session)
        raise ConflictError("Tu publicación venció mientras estaba pausada: renuévala para volver a publicarla.")
    _move(session, owner_uid, uid, ListingStatus.PUBLICADA, now)
    commit(session)


def renew_listing(*, session: Session, owner_uid: str, uid: str, now: datetime | None = None) -> None:
    """Send an expired listing to review again (it is checked like a new one)."""
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if listing.status != ListingStatus.EXPIRADA:
        raise ConflictError("Solo se renuevan las publicaciones vencidas.")
    send_to_review(session=session, owner_uid=owner_uid, uid=uid, now=now)


def set_available_now(*, session: Session, owner_uid: str, uid: str, hours: int, now: datetime | None = None) -> None:
    """Switch "Disponible AHORA" on for ``hours``; it switches itself off when they pass."""
    now = now or utc_now()
    if not isinstance(hours, int) or isinstance(hours, bool) or hours not in AVAILABLE_NOW_HOURS:
        raise InvalidInputError("Elige por cuántas horas estarás disponible.", field="hours")
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if listing.status != ListingStatus.PUBLICADA:
        raise ConflictError("Solo una publicación publicada puede marcarse como disponible ahora.")
    listing.available_until = now + timedelta(hours=hours)
    listing.updated_at = now
    session.add(listing)
    commit(session)


def delete_listing(*, session: Session, storage: Storage, owner_uid: str, uid: str) -> None:
    """Delete a listing in any status, with its photo files, its private verification photos and its records.

    Reports against it stay for staff, unlinked, with a note naming it. Files go only once the
    deletion is committed: a failed commit leaves the listing whole.
    """
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    private_keys = [
        key
        for key in session.exec(
            select(ListingVerification.storage_key).where(ListingVerification.listing_uid == listing.uid)
        )
        if key
    ]
    photos = listing_photos.delete_all_photos(session=session, listing_uid=listing.uid)
    for table in (ListingService, ListingReview, ListingUpgrade, ListingVerification, ListingDailyStats):
        session.exec(delete(table).where(table.listing_uid == listing.uid))
    now = utc_now()
    stamp = now.astimezone(ZoneInfo(get_settings().timezone)).strftime("%Y/%m/%d %H:%M")
    note = f"[{stamp} · sistema] Se eliminó la publicación «{listing.display_name or DRAFT_TITLE}» ({listing.uid})."
    for report in session.exec(select(Report).where(Report.listing_uid == listing.uid)):
        report.listing_uid = None
        report.staff_notes = f"{report.staff_notes}\n{note}" if report.staff_notes else note
        report.updated_at = now
        session.add(report)
    session.flush()
    session.delete(listing)
    commit(session)
    listing_photos.delete_photo_files(storage=storage, photos=photos)
    private = get_private_storage()
    for key in private_keys:
        private.delete(key)


def copy_to_city(*, session: Session, storage: Storage, owner_uid: str, uid: str, city_slug: str) -> str:
    """A new draft with the same content and photos in another city; the owner picks its commune and sends it."""
    source = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    city = city_by_slug(city_slug)
    if city is None:
        raise InvalidInputError("Elige una ciudad de la lista.", field="city_slug")
    columns, services = _effective(session, source)
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
        set_base_tier(session, copy, columns["base_tier_uid"])
    session.add_all([ListingService(listing_uid=copy.uid, service_uid=service) for service in services])
    listing_photos.copy_photos(session=session, storage=storage, from_listing_uid=source.uid, to_listing_uid=copy.uid)
    commit(session)
    return copy.uid
