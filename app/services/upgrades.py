"""Upgrades (mejorasPublicacion): an advertiser asks, staff approve with dates, the clock applies them.

An upgrade is a servicioApp with an effect (``AppService.effect``):

- ``nivel``: the listing is shown in a higher tier (``AppService.tier_uid``);
- ``vip``: the listing is in the VIP tab (``Listing.vip_until``);
- ``subir``: the listing goes first in its tier (``Listing.ranked_at``).

A request (solicitada) carries the period the advertiser chose and its own payment reference
(``payment_code``), e-mailed to the advertiser with the amount and the payment instructions; an
administrator approves it (activa) with the period paid for, or denies it (rechazada); a secretary may
not. A request left unpaid for UNPAID_DAYS expires (vencida) by the clock, and the advertiser is told. An approved upgrade is
in force while ``starts_at <= now < ends_at``; :func:`apply_upgrades` writes the
effective values the public pages read (tier_uid, tier_rank, vip_until, ranked_at)
and marks ended upgrades vencida. The clock job (app/services/listing_jobs.py)
runs it every minute, so an upgrade starts and ends on its dates by itself.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlmodel import Session, col, select

from app.content.notices import NoticeKind
from app.core.actor import Actor
from app.core.dates import format_date
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.core.money import format_currency
from app.core.payment_codes import new_payment_code
from app.db import commit
from app.models import (
    UPGRADE_STATUS_LABELS,
    AppService,
    Listing,
    ListingUpgrade,
    Tier,
    UpgradeEffect,
    UpgradeStatus,
    User,
    utc_now,
)
from app.models.listings import PAYMENT_REFERENCE_MAX, REASON_MAX
from app.services import notices
from app.services.listing_lifecycle import owner_statuses
from app.services.listings import clock
from app.services.ownership import owned_listing
from app.services.staff import audit
from app.services.staff.shared import ensure_admin
from app.services.staff.site_settings import payment_instructions
from app.settings import get_settings

DATE_FORMAT = "D [de] MMMM [de] YYYY"
MAX_DAYS_AHEAD = 365
UPGRADES_ADMIN_ONLY = "Solo un administrador puede revisar mejoras."
AUDIT_ENTITY = "mejoras_publicacion"
UPGRADABLE_STATUSES = owner_statuses("upgrade")
_EFFECT_ORDER = {UpgradeEffect.TIER: 0, UpgradeEffect.VIP: 1, UpgradeEffect.BUMP: 2}
_UNKNOWN_UPGRADE = "No encontramos esa mejora."
_LAST_MOMENT = timedelta(microseconds=1)
# A request not paid within this many days expires (vencida, with UNPAID_REASON).
UNPAID_DAYS = 7
UNPAID_REASON = f"No recibimos el pago en {UNPAID_DAYS} días; puedes pedirla de nuevo."
# An upgrade that started longer ago than this (the clock was stopped) starts without a notice.
STARTED_NOTICE_WINDOW = timedelta(days=1)


class UpgradeOption(BaseModel):
    """A servicioApp an advertiser can ask for; ``waiting_code``: the reference of this listing's request of it
    still waiting for payment (then it is not offered again)."""

    uid: str
    name: str
    description: str
    price_label: str
    duration_days: int
    effect: str
    waiting_code: str = ""


class UpgradeRow(BaseModel):
    """One upgrade of a listing as its owner sees it."""

    uid: str
    name: str
    status: str
    status_label: str
    starts: str
    ends: str
    amount: str
    payment_code: str = ""
    reason: str = ""


def _display_date(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return format_date(moment.astimezone(ZoneInfo(get_settings().timezone)), DATE_FORMAT)


def _row(upgrade: ListingUpgrade, service_name: str) -> UpgradeRow:
    return UpgradeRow(
        uid=upgrade.uid,
        name=service_name,
        status=upgrade.status.value,
        status_label=UPGRADE_STATUS_LABELS[upgrade.status],
        starts=_display_date(upgrade.starts_at),
        # The last day in force: an upgrade ending at midnight ends with the day before.
        ends=_display_date(upgrade.ends_at - _LAST_MOMENT if upgrade.ends_at else None),
        amount=format_currency(upgrade.amount_clp),
        payment_code=upgrade.payment_code,
        reason=upgrade.reason if upgrade.status in (UpgradeStatus.RECHAZADA, UpgradeStatus.VENCIDA) else "",
    )


def _service_name(session: Session, upgrade: ListingUpgrade) -> str:
    return session.get_one(AppService, upgrade.app_service_uid).name


def requestable_upgrades(*, session: Session) -> list[UpgradeOption]:
    """The active servicioApp with an effect: tier upgrades best tier first, then VIP, then the bump."""
    rows = session.exec(
        select(AppService, Tier)
        .join(Tier, col(Tier.uid) == col(AppService.tier_uid), isouter=True)
        .where(col(AppService.activo) == True, col(AppService.effect).is_not(None))  # noqa: E712
    ).all()
    rows = sorted(
        rows,
        key=lambda row: (_EFFECT_ORDER[row[0].effect], row[1].display_order if row[1] else 0, row[0].name),  # type: ignore[index]  # rows with an effect
    )
    return [
        UpgradeOption(
            uid=service.uid,
            name=service.name,
            description=service.description,
            price_label=format_currency(service.price_clp),
            duration_days=service.duration_days,
            effect=service.effect.value,  # type: ignore[union-attr]  # rows with an effect
        )
        for service, _tier in rows
    ]


def upgrade_choices(*, session: Session, owner_uid: str, listing_uid: str) -> list[UpgradeOption]:
    """The upgrades the caller may ask for their listing (:func:`requestable_upgrades`), each one already asked
    for and unpaid carrying its payment reference."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
    waiting = dict(
        session.exec(
            select(ListingUpgrade.app_service_uid, ListingUpgrade.payment_code).where(
                ListingUpgrade.listing_uid == listing.uid, ListingUpgrade.status == UpgradeStatus.SOLICITADA
            )
        ).all()
    )
    return [
        option.model_copy(update={"waiting_code": waiting.get(option.uid, "")})
        for option in requestable_upgrades(session=session)
    ]


def start_of_day(day: date) -> datetime:
    """Chilean midnight of ``day`` as an aware UTC time."""
    return datetime.combine(day, time(), tzinfo=ZoneInfo(get_settings().timezone)).astimezone(UTC)


def local_day(moment: datetime) -> date:
    """The Chilean calendar day of an aware moment."""
    return moment.astimezone(ZoneInfo(get_settings().timezone)).date()


def request_upgrade(
    *,
    session: Session,
    owner_uid: str,
    listing_uid: str,
    app_service_uid: str,
    starts_on: date | None = None,
    now: datetime | None = None,
) -> UpgradeRow:
    """Ask for an upgrade of the caller's published or paused listing, from ``starts_on`` (default today).

    The price is the servicioApp's; the period asked for runs ``duration_days`` whole Chilean days from
    ``starts_on``. Staff confirm the payment and the dates when approving.
    """
    moment = clock(now)
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid, for_update=True)
    if listing.status not in UPGRADABLE_STATUSES:
        raise ConflictError("Solo puedes pedir mejoras para una publicación publicada o pausada.")
    service = session.get(AppService, app_service_uid) if isinstance(app_service_uid, str) else None
    if service is None or not service.activo or service.effect is None:
        raise InvalidInputError("Elige una de las mejoras disponibles.", field="app_service_uid")
    if service.effect == UpgradeEffect.TIER:
        target = session.get(Tier, service.tier_uid) if service.tier_uid else None
        own = session.get(Tier, listing.base_tier_uid or listing.tier_uid)
        if target is None or (own is not None and target.display_order >= own.display_order):
            raise InvalidInputError(
                "Tu publicación ya está en esa categoría o en una superior.", field="app_service_uid"
            )
    starts_on = starts_on or moment.today
    if not isinstance(starts_on, date) or starts_on < moment.today:
        raise InvalidInputError("Elige una fecha de inicio desde hoy en adelante.", field="starts_on")
    if starts_on > moment.today + timedelta(days=MAX_DAYS_AHEAD):
        raise InvalidInputError("Elige una fecha de inicio dentro del próximo año.", field="starts_on")
    pending = session.exec(
        select(ListingUpgrade.uid).where(
            ListingUpgrade.listing_uid == listing.uid,
            ListingUpgrade.app_service_uid == service.uid,
            ListingUpgrade.status == UpgradeStatus.SOLICITADA,
        )
    ).first()
    if pending is not None:
        raise ConflictError("Ya pediste esta mejora para esta publicación y está esperando aprobación.")
    upgrade = ListingUpgrade(
        listing_uid=listing.uid,
        app_service_uid=service.uid,
        requested_by_uid=owner_uid,
        amount_clp=service.price_clp,
        payment_code=_unused_payment_code(session),
        starts_at=start_of_day(starts_on),
        ends_at=start_of_day(starts_on + timedelta(days=service.duration_days)),
        created_at=moment.now,
        updated_at=moment.now,
    )
    session.add(upgrade)
    session.flush()
    row = _row(upgrade, service.name)
    notices.notify_owner(
        session=session,
        listing=listing,
        kind=NoticeKind.UPGRADE_REQUESTED,
        key=upgrade.uid,
        now=moment.now,
        upgrade=service.name,
        amount=row.amount,
        reference=upgrade.payment_code,
        instructions=payment_instructions(session),
        unpaid_days=UNPAID_DAYS,
    )
    commit(session)
    return row


def _unused_payment_code(session: Session) -> str:
    """A payment reference no upgrade has (the unique column stays the last word under a race)."""
    while True:
        code = new_payment_code()
        if session.exec(select(ListingUpgrade.uid).where(ListingUpgrade.payment_code == code)).first() is None:
            return code


def expire_unpaid_upgrades(*, session: Session, now: datetime | None = None) -> int:
    """Requests left unpaid (solicitada) for UNPAID_DAYS become vencida, their owner told; return how many."""
    now = now or utc_now()
    rows = session.exec(
        select(ListingUpgrade, AppService.name)
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(
            ListingUpgrade.status == UpgradeStatus.SOLICITADA,
            col(ListingUpgrade.created_at) <= now - timedelta(days=UNPAID_DAYS),
        )
        .order_by(col(ListingUpgrade.uid))
        .with_for_update(skip_locked=True, of=ListingUpgrade)
    ).all()
    for upgrade, name in rows:
        upgrade.status = UpgradeStatus.VENCIDA
        upgrade.reason = UNPAID_REASON
        upgrade.updated_at = now
        session.add(upgrade)
        notices.notify_owner(
            session=session,
            listing=session.get_one(Listing, upgrade.listing_uid),
            kind=NoticeKind.UPGRADE_UNPAID,
            key=upgrade.uid,
            now=now,
            upgrade=name,
            reference=upgrade.payment_code,
            unpaid_days=UNPAID_DAYS,
        )
    commit(session)
    return len(rows)


def my_upgrades(*, session: Session, owner_uid: str, listing_uid: str) -> list[UpgradeRow]:
    """Every upgrade of the caller's listing, newest request first."""
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
    rows = session.exec(
        select(ListingUpgrade, AppService.name)
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(ListingUpgrade.listing_uid == listing.uid)
        .order_by(col(ListingUpgrade.created_at).desc(), col(ListingUpgrade.uid).desc())
    ).all()
    return [_row(upgrade, name) for upgrade, name in rows]


class CardUpgrades(BaseModel):
    """What a listing's card shows of its upgrades: every request waiting for payment (in the order asked for),
    and the state of the upgrade in force, or else, with none waiting, of the latest one."""

    waiting: list[UpgradeRow]
    shown: UpgradeRow | None


def card_upgrades(*, session: Session, listing_uids: list[str]) -> dict[str, CardUpgrades]:
    """For each listing with upgrades, what its card shows of them (:class:`CardUpgrades`)."""
    if not listing_uids:
        return {}
    rows = session.exec(
        select(ListingUpgrade, AppService.name)
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(col(ListingUpgrade.listing_uid).in_(listing_uids))
        .order_by(col(ListingUpgrade.created_at), col(ListingUpgrade.uid))
    ).all()
    by_listing: dict[str, list[UpgradeRow]] = {}
    for upgrade, name in rows:
        by_listing.setdefault(upgrade.listing_uid, []).append(_row(upgrade, name))
    cards = {}
    for uid, oldest_first in by_listing.items():
        waiting = [row for row in oldest_first if row.status == UpgradeStatus.SOLICITADA]
        in_force = next((row for row in reversed(oldest_first) if row.status == UpgradeStatus.ACTIVA), None)
        cards[uid] = CardUpgrades(waiting=waiting, shown=in_force or (None if waiting else oldest_first[-1]))
    return cards


def ensure_upgrade_reviewer(session: Session, user_uid: object) -> User:
    """The active administrator ``user_uid``; ForbiddenError for anyone else (a secretary included)."""
    return ensure_admin(session, user_uid, UPGRADES_ADMIN_ONLY)


def _pending_upgrade(session: Session, upgrade_uid: str) -> ListingUpgrade:
    upgrade = session.get(ListingUpgrade, upgrade_uid, with_for_update=True) if isinstance(upgrade_uid, str) else None
    if upgrade is None:
        raise NotFoundError(_UNKNOWN_UPGRADE)
    if upgrade.status != UpgradeStatus.SOLICITADA:
        raise ConflictError("Esta mejora ya fue revisada.")
    return upgrade


def approve_upgrade(
    *,
    session: Session,
    actor: Actor,
    upgrade_uid: str,
    starts_at: datetime,
    ends_at: datetime,
    payment_reference: str,
    now: datetime | None = None,
) -> None:
    """An administrator approves a requested upgrade for the period paid for; it takes effect at once if that
    period started. ``payment_reference`` (the receipt checked) is required and kept with the reviewer; audited.
    """
    ensure_upgrade_reviewer(session, actor.uid)
    if (
        not isinstance(payment_reference, str)
        or not payment_reference.strip()
        or len(payment_reference.strip()) > PAYMENT_REFERENCE_MAX
    ):
        raise InvalidInputError(
            f"Indica la referencia del pago que confirmaste (hasta {PAYMENT_REFERENCE_MAX} caracteres).",
            field="payment_reference",
        )
    for name, value in (("starts_at", starts_at), ("ends_at", ends_at)):
        if not isinstance(value, datetime) or value.utcoffset() is None:
            raise InvalidInputError("Indica la fecha y hora con su zona horaria.", field=name)
    if ends_at <= starts_at:
        raise InvalidInputError("El término debe ser posterior al inicio.", field="ends_at")
    upgrade = _pending_upgrade(session, upgrade_uid)
    listing = session.get(Listing, upgrade.listing_uid)
    if listing is None or listing.status not in UPGRADABLE_STATUSES:
        raise ConflictError(
            "La publicación ya no está publicada ni pausada: rechaza la solicitud con el motivo para el anunciante."
        )
    before = audit.snapshot(upgrade)
    now = now or utc_now()
    upgrade.status = UpgradeStatus.ACTIVA
    upgrade.reviewer_uid = actor.uid
    upgrade.payment_reference = payment_reference.strip()
    upgrade.starts_at = starts_at.astimezone(UTC)
    upgrade.ends_at = ends_at.astimezone(UTC)
    upgrade.updated_at = now
    session.add(upgrade)
    session.flush()
    notices.notify_owner(
        session=session,
        listing=listing,
        kind=NoticeKind.UPGRADE_APPROVED,
        key=upgrade.uid,
        now=now,
        upgrade=_service_name(session, upgrade),
        starts=_row(upgrade, "").starts,
        ends=_row(upgrade, "").ends,
    )
    _apply(session, now, listing_uids=[upgrade.listing_uid])
    audit.record(
        session,
        actor_uid=actor.uid,
        action="aprobar",
        entity=AUDIT_ENTITY,
        entity_uid=upgrade.uid,
        before=before,
        after=audit.snapshot(upgrade),
        now=now,
    )
    commit(session)


def deny_upgrade(*, session: Session, actor: Actor, upgrade_uid: str, reason: str) -> None:
    """An administrator denies a requested upgrade; ``reason`` is required and shown to the owner; audited."""
    ensure_upgrade_reviewer(session, actor.uid)
    if not isinstance(reason, str) or not reason.strip() or len(reason.strip()) > REASON_MAX:
        raise InvalidInputError(f"Indica el motivo del rechazo (hasta {REASON_MAX} caracteres).", field="reason")
    upgrade = _pending_upgrade(session, upgrade_uid)
    before = audit.snapshot(upgrade)
    upgrade.status = UpgradeStatus.RECHAZADA
    upgrade.reviewer_uid = actor.uid
    upgrade.reason = reason.strip()
    upgrade.updated_at = utc_now()
    session.add(upgrade)
    notices.notify_owner(
        session=session,
        listing=session.get_one(Listing, upgrade.listing_uid),
        kind=NoticeKind.UPGRADE_DENIED,
        key=upgrade.uid,
        now=upgrade.updated_at,
        upgrade=_service_name(session, upgrade),
        reason=upgrade.reason,
    )
    audit.record(
        session,
        actor_uid=actor.uid,
        action="rechazar",
        entity=AUDIT_ENTITY,
        entity_uid=upgrade.uid,
        before=before,
        after=audit.snapshot(upgrade),
        now=upgrade.updated_at,
    )
    commit(session)


def apply_upgrades(*, session: Session, now: datetime | None = None) -> int:
    """Bring every listing with an approved upgrade up to date at ``now``; return how many listings changed.

    Idempotent: a second run at the same moment changes nothing.
    """
    changed = _apply(session, now or utc_now())
    commit(session)
    return changed


def _apply(session: Session, now: datetime, listing_uids: list[str] | None = None) -> int:
    """Recompute the effective values of listings with activa upgrades (all, or ``listing_uids``); flushed.

    A listing's upgrades that ended become vencida in the same run that takes their effect away, so a
    listing stops being looked at once its last upgrade ended.
    """
    query = select(ListingUpgrade, AppService).join(
        AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid)
    )
    query = query.where(ListingUpgrade.status == UpgradeStatus.ACTIVA)
    if listing_uids is not None:
        query = query.where(col(ListingUpgrade.listing_uid).in_(listing_uids))
    rows = session.exec(query.order_by(ListingUpgrade.listing_uid, ListingUpgrade.uid)).all()
    by_listing: dict[str, list[tuple[ListingUpgrade, AppService]]] = {}
    for upgrade, service in rows:
        by_listing.setdefault(upgrade.listing_uid, []).append((upgrade, service))
    if not by_listing:
        return 0
    tiers: dict[str | None, Tier] = {tier.uid: tier for tier in session.exec(select(Tier)).all()}
    listings = session.exec(
        select(Listing).where(col(Listing.uid).in_(list(by_listing))).order_by(col(Listing.uid)).with_for_update()
    ).all()
    changed = 0
    for listing in listings:
        in_force = []
        for upgrade, service in by_listing[listing.uid]:
            if upgrade.ends_at is not None and upgrade.ends_at <= now:
                upgrade.status = UpgradeStatus.VENCIDA
                upgrade.updated_at = now
                session.add(upgrade)
                notices.notify_owner(
                    session=session,
                    listing=listing,
                    kind=NoticeKind.UPGRADE_ENDED,
                    key=upgrade.uid,
                    now=now,
                    upgrade=service.name,
                )
            elif upgrade.starts_at is not None and upgrade.starts_at <= now:
                in_force.append((upgrade, service))
                if upgrade.starts_at > now - STARTED_NOTICE_WINDOW:
                    notices.notify_owner(
                        session=session,
                        listing=listing,
                        kind=NoticeKind.UPGRADE_STARTED,
                        key=upgrade.uid,
                        now=now,
                        upgrade=service.name,
                        ends=_row(upgrade, service.name).ends,
                    )
        if _set_effective(listing, in_force, tiers):
            session.add(listing)
            changed += 1
    session.flush()
    return changed


def _set_effective(
    listing: Listing, in_force: list[tuple[ListingUpgrade, AppService]], tiers: dict[str | None, Tier]
) -> bool:
    """Write the listing's effective tier, VIP end and rank time from the upgrades in force; True if any changed."""
    if listing.base_tier_uid is None:
        # Listings from before upgrades existed: their tier is their own.
        listing.base_tier_uid = listing.tier_uid
    tier_uid = listing.base_tier_uid
    vip_until = None
    ranked_at = listing.published_at
    for upgrade, service in in_force:
        if service.effect == UpgradeEffect.TIER and service.tier_uid in tiers:
            current = tiers.get(tier_uid)
            if current is None or tiers[service.tier_uid].display_order < current.display_order:
                tier_uid = service.tier_uid
        elif service.effect == UpgradeEffect.VIP:
            vip_until = max(vip_until or upgrade.ends_at, upgrade.ends_at)  # type: ignore[type-var]  # in force: dated
        elif service.effect == UpgradeEffect.BUMP:
            # A bump never pushes a listing down: a later publication (a renewal) still counts.
            ranked_at = max(ranked_at or upgrade.starts_at, upgrade.starts_at)  # type: ignore[type-var]  # in force: dated
    tier_rank = tiers[tier_uid].display_order if tier_uid in tiers else listing.tier_rank
    new = {"tier_uid": tier_uid, "tier_rank": tier_rank, "vip_until": vip_until, "ranked_at": ranked_at}
    differs = {name: value for name, value in new.items() if getattr(listing, name) != value}
    for name, value in differs.items():
        setattr(listing, name, value)
    return bool(differs)
