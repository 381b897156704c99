"""The advertiser's drafts: the wizard's choices, loading and saving its steps, and sending to review.

Every function takes the caller's ``owner_uid`` from the server (never from the
browser) and looks the listing up with it (``owned_listing``): someone else's
listing and a missing one give the same "not found".

The wizard saves after every step, into the ``publicacion`` row itself (status
borrador, fields still empty until their step); an edit of a listing that has been
public waits as a revision instead (``app.services.listing_revisions``). Identity
(step 1) belongs to the advertiser record, which only staff see; once reviewed, a
change to it waits for review too (``app.services.identity_review``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.core.dates import format_date, typed_day
from app.core.errors import ConflictError, InvalidInputError
from app.core.geo import CITIES, city_by_slug, commune_names_for_city
from app.core.money import format_currency
from app.db import commit
from app.models import (
    WIZARD_DONE,
    ActorKind,
    Advertiser,
    AdvertiserService,
    AdvertiserType,
    AppService,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingStatus,
    ReviewDecision,
    Section,
    Tier,
    UpgradeEffect,
    User,
    utc_now,
)
from app.services import identity_review, listing_revisions, photo_uploads
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
from app.services.listings import clock
from app.services.ownership import owned_listing


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


def _upgrade_tiers(session: Session) -> set[str]:
    """Tiers sold as upgrades: reached through "Mejorar", not chosen freely in the wizard."""
    rows = session.exec(
        select(col(AppService.tier_uid)).where(
            col(AppService.effect) == UpgradeEffect.TIER, col(AppService.tier_uid).is_not(None)
        )
    ).all()
    return {uid for uid in rows if uid}


def _free_tiers(session: Session) -> list[Tier]:
    sold = _upgrade_tiers(session)
    tiers = session.exec(select(Tier).order_by(col(Tier.display_order))).all()
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


def _advertiser(session: Session, owner_uid: str) -> Advertiser | None:
    return session.exec(select(Advertiser).where(Advertiser.user_uid == owner_uid)).first()


def _today(now: datetime | None = None) -> date:
    return clock(now).today


def _photo_count(session: Session, listing_uid: str) -> int:
    return session.exec(
        select(func.count()).select_from(ListingPhoto).where(ListingPhoto.listing_uid == listing_uid)
    ).one()


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else ""
    if isinstance(value, date):
        return typed_day(value)
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


def load_wizard(*, session: Session, owner_uid: str, uid: str | None) -> WizardDraft:
    """The wizard's state for listing ``uid``; without one, the owner's newest unfinished draft or a blank one."""
    advertiser = _advertiser(session, owner_uid)
    listing: Listing | None
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
            .order_by(col(Listing.updated_at).desc())
        ).first()
    if listing is None:
        blank = dict.fromkeys(listing_revisions.EDITABLE_COLUMNS)
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
    columns, services = listing_revisions.effective_columns(session, listing)
    step = min(listing.wizard_step, SEND_STEP)
    if listing.status != ListingStatus.BORRADOR:
        step = 1
    return WizardDraft(
        uid=listing.uid,
        step=step,
        editing_published=listing.status in listing_revisions.REVISED_STATUSES,
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
    # Photos still processing count: the advertiser may go on while they process (send_to_review waits for them).
    photo_count = photo_uploads.photo_count(session, listing.uid) if listing is not None and step == PHOTO_STEP else 0
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
    listing_revisions.write_columns(session, listing, clean.listing, clean.services)
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
    columns, services = listing_revisions.effective_columns(session, listing)
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
            if (
                step.number == 6
                and exc.field == "visiting_until"
                and listing.status in listing_revisions.REVISED_STATUSES
            ):
                continue  # a past visit on a published listing is shown as over, not a reason to refuse an edit
            raise InvalidInputError(f"Paso {step.number} ({step.title}): {exc.message}", field=exc.field) from exc


def review_summary(*, session: Session, owner_uid: str, uid: str) -> list[tuple[str, str]]:
    """(label, value) rows of what will be sent, for the wizard's last step."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    columns, services = listing_revisions.effective_columns(session, listing)
    city = city_by_slug(columns["city_slug"])
    tier = session.get(Tier, columns["base_tier_uid"]) if columns["base_tier_uid"] else None
    names = (
        session.exec(select(col(AdvertiserService.name)).where(col(AdvertiserService.uid).in_(services))).all()
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
    one keeps showing its approved version while its changes wait for review. Refused
    (ConflictError) while photos are still processing: staff review the photos it will have.
    """
    now = now or utc_now()
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=uid, for_update=True)
    if photo_uploads.processing_count(session, listing.uid):
        raise ConflictError(photo_uploads.STILL_PROCESSING)
    _validate_all(session, listing, now)
    advertiser = identity_review.advertiser_of(session, owner_uid, for_update=True)
    if listing.status in listing_revisions.REVISED_STATUSES:
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
