"""The administrator's upgrade desk (/admin/mejorasPublicacion): who asked for what, and the decision form.

Queries, and the approval form's dates: the decisions themselves are
:func:`app.services.upgrades.approve_upgrade` and ``deny_upgrade`` (administrators only, audited).
Requests come oldest first (the desk opens on the pending ones), one page at a time.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import ColumnElement
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.dates import parse_date, typed_day
from app.core.errors import InvalidInputError
from app.core.money import format_currency
from app.core.payment_codes import normalize_payment_code
from app.models import UPGRADE_STATUS_LABELS, AppService, Listing, ListingUpgrade, UpgradeStatus, User, utc_now
from app.services import upgrades
from app.services.listings import listing_path
from app.services.staff.shared import StaffPage, TableQuery, fetch_page, search_condition
from app.services.staff.table_spec import ADMIN, Column, Filter, TableSpec

# The filter: each status by the label staff read; the desk opens on the pending ones.
STATUS_FILTERS: tuple[tuple[str, str], ...] = tuple(
    (status.value, UPGRADE_STATUS_LABELS[status]) for status in UpgradeStatus
)
DEFAULT_STATUS = UpgradeStatus.SOLICITADA.value
STATUS_FILTER = "estado"

UPGRADES_SPEC = TableSpec(
    entity="mejora",
    title="Mejoras de publicación",
    columns=(
        Column("requested_on", "Pedida el", sortable=True, wrap="never"),
        Column("payment_code", "Referencia", wrap="never"),
        Column("listing_name", "Publicación", wrap="words"),
        Column("owner_email", "Correo del anunciante"),
        Column("service", "Mejora", wrap="words"),
        Column("price", "Precio", wrap="never"),
        Column("period", "Período", wrap="words"),
        Column("status_label", "Estado", wrap="words"),
        Column("decision", "Pago o motivo"),
    ),
    default_sort="requested_on",
    filters=(Filter(STATUS_FILTER, "Estado", STATUS_FILTERS),),
    search_label="Buscar por referencia de pago, correo o publicación",
    profiles=(ADMIN,),
    actions=frozenset({"export"}),
    admin_only_actions=frozenset({"export"}),
    csv_name="mejoras",
    row_label_key="listing_name",
)


class StaffUpgradeRow(BaseModel):
    """One upgrade as the administrator's desk shows it."""

    uid: str
    listing_name: str
    listing_url: str
    city: str
    owner_email: str
    service: str
    price: str
    status: str
    status_label: str
    requested_on: str
    starts: str
    ends: str
    period: str
    payment_code: str
    payment_reference: str
    reason: str


def _local_day(moment: datetime | None) -> date | None:
    return upgrades.local_day(moment) if moment is not None else None


def _day_text(day: date | None) -> str:
    """A day as the desk's date fields ask for it (dd-mm-aaaa), so a row's days fill them as they are."""
    return typed_day(day) if day else ""


def _row(upgrade: ListingUpgrade, listing: Listing, email: str, service: AppService) -> StaffUpgradeRow:
    starts = _local_day(upgrade.starts_at)
    # The last day in force: an upgrade ending at midnight ends with the day before.
    last = _local_day(upgrade.ends_at - timedelta(microseconds=1)) if upgrade.ends_at else None
    return StaffUpgradeRow(
        uid=upgrade.uid,
        listing_name=listing.display_name or "",
        listing_url=listing_path(
            section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
        ),
        city=listing.city_slug or "",
        owner_email=email,
        service=service.name,
        price=format_currency(upgrade.amount_clp),
        status=upgrade.status.value,
        status_label=UPGRADE_STATUS_LABELS[upgrade.status],
        requested_on=_day_text(_local_day(upgrade.created_at)),
        starts=_day_text(starts),
        ends=_day_text(last),
        period=f"{_day_text(starts)} al {_day_text(last)}",
        payment_code=upgrade.payment_code,
        payment_reference=upgrade.payment_reference,
        reason=upgrade.reason,
    )


def list_upgrades(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of upgrades (rows: StaffUpgradeRow) in the ``estado`` filter (none or unknown: every status),
    by request time, oldest first (descending: newest first).

    The search matches the owner's e-mail, the listing's name or part of a payment reference; a whole
    reference (any case, with or without its dash) finds its request whatever the status filter says.
    Administrators only (ForbiddenError otherwise).
    """
    upgrades.ensure_upgrade_reviewer(session, actor.uid)
    conditions: list[ColumnElement[bool]] = []
    status = UPGRADES_SPEC.filter_value(STATUS_FILTER, query.filter(STATUS_FILTER))
    if status:
        conditions.append(col(ListingUpgrade.status) == UpgradeStatus(status))
    code = normalize_payment_code(query.search)
    if code is not None:
        # A payment reference, however it was typed, finds its request in any status.
        conditions = [col(ListingUpgrade.payment_code) == code]
    else:
        found = search_condition((User.email, Listing.display_name, ListingUpgrade.payment_code), query)
        if found is not None:
            conditions.append(found)
    statement = (
        select(ListingUpgrade, Listing, User.email, AppService)
        .join(Listing, col(Listing.uid) == col(ListingUpgrade.listing_uid))
        .join(User, col(User.uid) == col(Listing.owner_uid))
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(*conditions)
    )
    order = (col(ListingUpgrade.created_at), col(ListingUpgrade.uid))
    rows, total = fetch_page(
        session, statement, query, [column.desc() if query.descending else column.asc() for column in order]
    )
    return StaffPage([_row(*row) for row in rows], total, query.page, query.page_size)


def _day(text: object, field: str) -> date:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("Indica la fecha, por ejemplo 24-12-2026.", field=field)
    parsed = parse_date(text[:20])
    if parsed is None:
        raise InvalidInputError("La fecha no es válida: escribe día, mes y año, por ejemplo 24-12-2026.", field=field)
    return parsed.date()


def approval_period(starts_on: object, ends_on: object) -> tuple[datetime, datetime]:
    """The period of an approval from its first and last Chilean days (any shape ``parse_date`` reads, both included).

    The upgrade is in force from the first day's midnight to the midnight after the last day.
    """
    first, last = _day(starts_on, "starts_on"), _day(ends_on, "ends_on")
    if last < first:
        raise InvalidInputError("El último día no puede ser anterior al primero.", field="ends_on")
    return upgrades.start_of_day(first), upgrades.start_of_day(last + timedelta(days=1))


def approve_request(
    *,
    session: Session,
    actor: Actor,
    upgrade_uid: str,
    starts_on: object,
    ends_on: object,
    payment_reference: object,
    now: datetime | None = None,
) -> None:
    """Approve from the desk's form: the Chilean days typed, then :func:`upgrades.approve_upgrade`."""
    upgrades.ensure_upgrade_reviewer(session, actor.uid)
    starts_at, ends_at = approval_period(starts_on, ends_on)
    if ends_at <= (now or utc_now()):
        raise InvalidInputError("Ese período ya terminó: el último día debe ser hoy o después.", field="ends_on")
    upgrades.approve_upgrade(
        session=session,
        actor=actor,
        upgrade_uid=upgrade_uid,
        starts_at=starts_at,
        ends_at=ends_at,
        payment_reference=payment_reference if isinstance(payment_reference, str) else "",
        now=now,
    )
