"""The administrator's upgrade desk on both databases: pending requests oldest first with what staff need,
the state filter, approval from Chilean days, audit entries, and a secretary refused by the services."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError
from app.models import AppService, AuditEntry, Listing, ListingUpgrade, ProfileId, UpgradeStatus
from app.services import upgrades
from app.services.staff import upgrades as staff_upgrades
from app.services.staff.shared import TableQuery
from tests.factories import actor_of, make_listing, make_owner, make_staff, tier_of, tier_upgrade

SANTIAGO = ZoneInfo("America/Santiago")


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture
def services(db) -> dict[str, AppService]:
    found = {
        "diamante": tier_upgrade(db, "diamante", name="Subir a Diamante", price_clp=59990),
        "vip": AppService(name="VIP", price_clp=19990, duration_days=15, effect="vip"),
    }
    db.add_all(found.values())
    db.commit()
    return found


@pytest.fixture
def admin(db):
    return make_staff(db, "admin@example.cl", ProfileId.ADMINISTRADOR)


@pytest.fixture
def secretary(db):
    return make_staff(db, "secre@example.cl", ProfileId.SECRETARIA)


def _request(db, owner, listing, service, at: datetime):
    row = upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid
    )
    stored = db.get(ListingUpgrade, row.uid)
    stored.created_at = at
    db.add(stored)
    db.commit()
    return stored


def _approve(db, admin, upgrade_uid: str, first: date, last: date, reference: str, now: datetime | None = None):
    """Approve as the administrator would from the form: Chilean days written as the date fields send them."""
    return staff_upgrades.approve_request(
        session=db,
        actor=actor_of(admin),
        upgrade_uid=upgrade_uid,
        starts_on=first.strftime("%Y/%m/%d"),
        ends_on=last.strftime("%Y/%m/%d"),
        payment_reference=reference,
        now=now,
    )


def _upgrades(db, admin, estado: str):
    return staff_upgrades.list_upgrades(session=db, actor=actor_of(admin), query=TableQuery(filters={"estado": estado}))


def test_pending_requests_oldest_first_with_listing_owner_service_price_and_dates(db, services, admin):
    first_owner, second_owner = make_owner(db, "primera@example.cl"), make_owner(db, "segunda@example.cl")
    now = datetime.now(UTC)
    newer = _request(db, first_owner, make_listing(db, first_owner, name="Nueva"), services["vip"], now)
    older = _request(
        db, second_owner, make_listing(db, second_owner, name="Antigua"), services["diamante"], now - timedelta(days=2)
    )
    page = _upgrades(db, admin, estado="solicitada")
    assert [row.uid for row in page.rows] == [older.uid, newer.uid]
    assert page.total == 2
    row = page.rows[0]
    assert (row.listing_name, row.owner_email, row.service, row.price) == (
        "Antigua",
        "segunda@example.cl",
        "Subir a Diamante",
        "$59.990",
    )
    today = datetime.now(SANTIAGO).date()
    # Day first, as the dialog's date fields ask for them (the row's days fill them).
    assert row.starts == today.strftime("%d-%m-%Y")
    assert row.ends == (today + timedelta(days=29)).strftime("%d-%m-%Y")  # 30 days, the first one included
    assert row.requested_on == (now - timedelta(days=2)).astimezone(SANTIAGO).strftime("%d-%m-%Y")
    assert row.listing_url.endswith(f"/{db.get(ListingUpgrade, older.uid).listing_uid}")


def test_the_filter_shows_approved_denied_and_ended_ones_apart(db, services, admin):
    owner = make_owner(db, "duena@example.cl")
    now = datetime.now(UTC)
    approved = _request(db, owner, make_listing(db, owner, name="A"), services["vip"], now)
    denied = _request(db, owner, make_listing(db, owner, name="B"), services["vip"], now)
    ended = _request(db, owner, make_listing(db, owner, name="C"), services["vip"], now)
    pending = _request(db, owner, make_listing(db, owner, name="D"), services["vip"], now)
    today = datetime.now(SANTIAGO).date()
    # The ended one was approved while it ran, 8 days ago; the clock job has ended it since.
    for row, first, last, approved_at in (
        (approved, today, today + timedelta(days=3), now),
        (ended, today - timedelta(days=9), today - timedelta(days=5), now - timedelta(days=8)),
    ):
        _approve(db, admin, row.uid, first, last, "Transferencia 77", now=approved_at)
    upgrades.apply_upgrades(session=db, now=now)
    upgrades.deny_upgrade(session=db, actor=actor_of(admin), upgrade_uid=denied.uid, reason="Pago no recibido")

    def uids(status: str) -> list[str]:
        return [row.uid for row in _upgrades(db, admin, estado=status).rows]

    assert uids("solicitada") == [pending.uid]
    assert uids("activa") == [approved.uid]
    assert uids("rechazada") == [denied.uid]
    assert uids("vencida") == [ended.uid]
    assert set(uids("")) == set(uids("cualquier-cosa")) == {pending.uid, approved.uid, denied.uid, ended.uid}
    denied_row = _upgrades(db, admin, estado="rechazada").rows[0]
    assert (denied_row.status_label, denied_row.reason) == ("Rechazada", "Pago no recibido")
    approved_row = _upgrades(db, admin, estado="activa").rows[0]
    assert approved_row.payment_reference == "Transferencia 77"


def test_approval_from_chilean_days_runs_from_the_first_midnight_to_the_one_after_the_last_day(db, services, admin):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, tier="chicas-del-dia")
    row = _request(db, owner, listing, services["diamante"], datetime.now(UTC))
    today = datetime.now(SANTIAGO).date()
    last = today + timedelta(days=6)
    _approve(db, admin, row.uid, today, last, "  Depósito 12  ")
    stored = db.get(ListingUpgrade, row.uid)
    db.refresh(stored)
    assert stored.status == UpgradeStatus.ACTIVA and stored.payment_reference == "Depósito 12"
    assert stored.starts_at.astimezone(SANTIAGO).replace(tzinfo=None) == datetime.combine(today, datetime.min.time())
    next_day = datetime.combine(last + timedelta(days=1), datetime.min.time())
    assert stored.ends_at.astimezone(SANTIAGO).replace(tzinfo=None) == next_day
    # In force at once: the listing is shown in the tier paid for.
    shown = db.get(Listing, listing.uid)
    db.refresh(shown)
    assert shown.tier_uid == tier_of(db, "diamante").uid
    entry = db.exec(select(AuditEntry).where(AuditEntry.entity_uid == row.uid)).one()
    assert (entry.action, entry.entity, entry.actor_uid) == ("aprobar", "mejoras_publicacion", admin.uid)
    assert json.loads(entry.before_json)["status"] == "solicitada"
    assert json.loads(entry.after_json)["status"] == "activa"
    assert json.loads(entry.after_json)["payment_reference"] == "Depósito 12"


def test_a_denial_is_audited(db, services, admin):
    owner = make_owner(db, "duena@example.cl")
    row = _request(db, owner, make_listing(db, owner), services["vip"], datetime.now(UTC))
    upgrades.deny_upgrade(session=db, actor=actor_of(admin), upgrade_uid=row.uid, reason="Sin pago")
    entry = db.exec(select(AuditEntry).where(AuditEntry.entity_uid == row.uid)).one()
    assert (entry.action, entry.actor_uid) == ("rechazar", admin.uid)
    assert json.loads(entry.after_json)["reason"] == "Sin pago"


@pytest.mark.parametrize(
    ("starts_on", "ends_on", "field"),
    [
        ("", "2030/01/02", "starts_on"),
        ("2030/02/30", "2030/03/02", "starts_on"),
        ("2030/01/05", "ayer", "ends_on"),
        ("2030/01/05", "2030/01/04", "ends_on"),
    ],
)
def test_wrong_days_are_refused_under_their_field(db, services, admin, starts_on, ends_on, field):
    owner = make_owner(db, "duena@example.cl")
    row = _request(db, owner, make_listing(db, owner), services["vip"], datetime.now(UTC))
    with pytest.raises(InvalidInputError) as error:
        staff_upgrades.approve_request(
            session=db,
            actor=actor_of(admin),
            upgrade_uid=row.uid,
            starts_on=starts_on,
            ends_on=ends_on,
            payment_reference="Transferencia 1",
        )
    assert error.value.field == field
    assert db.get(ListingUpgrade, row.uid).status == UpgradeStatus.SOLICITADA


def test_one_day_is_a_valid_period():
    starts_at, ends_at = staff_upgrades.approval_period("2030/01/05", "2030/01/05")
    assert ends_at - starts_at == timedelta(days=1)
    assert starts_at.astimezone(SANTIAGO).date() == date(2030, 1, 5)


def test_a_secretary_cannot_list_approve_or_deny_upgrades(db, services, secretary):
    owner = make_owner(db, "duena@example.cl")
    row = _request(db, owner, make_listing(db, owner), services["vip"], datetime.now(UTC))
    now = datetime.now(UTC)
    with pytest.raises(ForbiddenError):
        staff_upgrades.list_upgrades(session=db, actor=actor_of(secretary), query=TableQuery())
    with pytest.raises(ForbiddenError):
        staff_upgrades.approve_request(
            session=db,
            actor=actor_of(secretary),
            upgrade_uid=row.uid,
            starts_on="2030/01/05",
            ends_on="2030/01/06",
            payment_reference="Transferencia 1",
        )
    with pytest.raises(ForbiddenError):
        upgrades.approve_upgrade(
            session=db,
            actor=actor_of(secretary),
            upgrade_uid=row.uid,
            starts_at=now,
            ends_at=now + timedelta(days=1),
            payment_reference="Transferencia 1",
        )
    with pytest.raises(ForbiddenError):
        upgrades.deny_upgrade(session=db, actor=actor_of(secretary), upgrade_uid=row.uid, reason="No")
    db.rollback()
    assert db.get(ListingUpgrade, row.uid).status == UpgradeStatus.SOLICITADA
    assert db.exec(select(AuditEntry)).all() == []


def test_search_by_owner_email_or_listing_name_and_newest_first(db, services, admin):
    first_owner, second_owner = make_owner(db, "lucia@example.cl"), make_owner(db, "marta@example.cl")
    now = datetime.now(UTC)
    old = _request(
        db, first_owner, make_listing(db, first_owner, name="Rosa"), services["vip"], now - timedelta(days=1)
    )
    new = _request(db, second_owner, make_listing(db, second_owner, name="Lucía 100%"), services["vip"], now)

    def uids(**kwargs) -> list[str]:
        return [
            row.uid
            for row in staff_upgrades.list_upgrades(session=db, actor=actor_of(admin), query=TableQuery(**kwargs)).rows
        ]

    assert uids(search="LUCIA@") == [old.uid]
    assert uids(search="100%") == [new.uid]
    assert uids(search="%") == [new.uid]  # a wildcard is searched as text
    assert uids(descending=True) == [new.uid, old.uid]


def test_a_period_already_over_or_a_listing_no_longer_public_is_not_approved(db, services, admin):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, name="Se fue")
    request = _request(db, owner, listing, services["vip"], datetime.now(UTC))
    today = datetime.now(SANTIAGO).date()

    def approve(first: date, last: date) -> None:
        _approve(db, admin, request.uid, first, last, "Transferencia 9")

    with pytest.raises(InvalidInputError) as over:
        approve(today - timedelta(days=9), today - timedelta(days=2))
    assert over.value.field == "ends_on"
    listing.status = "expirada"
    db.add(listing)
    db.commit()
    with pytest.raises(ConflictError, match="ya no está publicada"):
        approve(today, today + timedelta(days=3))
    db.rollback()
    assert db.get(ListingUpgrade, request.uid).status == UpgradeStatus.SOLICITADA
    assert db.exec(select(AuditEntry)).all() == []
