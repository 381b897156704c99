"""Upgrades (mejorasPublicacion) on both databases: the advertiser asks, staff approve with dates, and the
public city page follows the tier, VIP tab and bump while the upgrade is in force, and forgets it after."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.models import AppService, ListingUpgrade, ProfileId, Section, UpgradeStatus, utc_now
from app.models.filter_tabs import TABS_BY_SLUG
from app.services import listings, upgrades
from tests.factories import actor_of, make_listing, make_owner, make_staff, tier_of, tier_upgrade

CITY = "valparaiso"


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture
def catalogue(db) -> dict[str, AppService]:
    """The demo upgrade catalogue (app/seed.py) plus one inactive service and one sold by hand."""
    services = {
        "diamante": tier_upgrade(db, "diamante", name="Subir a Diamante", price_clp=59990),
        "platino": tier_upgrade(db, "platino", name="Subir a Platino", price_clp=24990),
        "vip": AppService(name="VIP", price_clp=19990, duration_days=15, effect="vip"),
        "subir": AppService(name="Subir", price_clp=4990, duration_days=3, effect="subir"),
        "inactive": AppService(name="Antigua", price_clp=1000, duration_days=3, effect="vip", activo=False),
        "by_hand": AppService(name="Banner", price_clp=1000, duration_days=3, effect=None),
    }
    db.add_all(services.values())
    db.commit()
    return services


@pytest.fixture
def staff(db):
    return make_staff(db, "staff@example.cl", ProfileId.ADMINISTRADOR)


@pytest.fixture
def owner(db):
    return make_owner(db, "duena@example.cl")


def _city(db, tab: str = "todas", now=None) -> list[str]:
    page = listings.city_cards(
        session=db, section=Section.MUJERES.value, city_slug=CITY, tab=TABS_BY_SLUG[tab], now=now
    )
    return [card.display_name for card in page.cards]


def _request(db, owner, listing, service, **kwargs):
    return upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid, **kwargs
    )


def _approve(db, staff, row, starts_at, days, now=None):
    upgrades.approve_upgrade(
        session=db,
        actor=actor_of(staff),
        upgrade_uid=row.uid,
        starts_at=starts_at,
        ends_at=starts_at + timedelta(days=days),
        payment_reference="Transferencia 1234",
        now=now or starts_at,
    )


def test_requestable_upgrades_are_the_active_services_with_an_effect(db, catalogue):
    options = upgrades.requestable_upgrades(session=db)
    assert [option.name for option in options] == ["Subir a Diamante", "Subir a Platino", "VIP", "Subir"]
    assert options[0].price_label == "$59.990"
    assert (options[0].effect, options[0].duration_days) == ("nivel", 30)


def test_a_request_is_priced_and_dated_from_the_service(db, catalogue, owner):
    listing = make_listing(db, owner, city=CITY)
    row = _request(
        db, owner, listing, catalogue["vip"], starts_on=date(2099, 3, 2), now=datetime(2099, 3, 1, 15, tzinfo=UTC)
    )
    assert (row.name, row.status, row.status_label, row.amount) == ("VIP", "solicitada", "Solicitada", "$19.990")
    assert (row.starts, row.ends) == ("2 de marzo de 2099", "16 de marzo de 2099")  # 15 days
    stored = db.get(ListingUpgrade, row.uid)
    assert stored.amount_clp == 19990 and stored.requested_by_uid == owner.uid
    # From Chilean midnight (summer time, UTC-3) for 15 whole days.
    assert (stored.starts_at, stored.ends_at) == (
        datetime(2099, 3, 2, 3, tzinfo=UTC),
        datetime(2099, 3, 17, 3, tzinfo=UTC),
    )
    assert upgrades.my_upgrades(session=db, owner_uid=owner.uid, listing_uid=listing.uid) == [row]


def test_the_start_defaults_to_today_and_cannot_be_in_the_past(db, catalogue, owner):
    listing = make_listing(db, owner, city=CITY)
    today = listings.clock().today
    with pytest.raises(InvalidInputError) as error:
        _request(db, owner, listing, catalogue["vip"], starts_on=today - timedelta(days=1))
    assert error.value.field == "starts_on"
    row = _request(db, owner, listing, catalogue["vip"])
    assert row.starts.startswith(f"{today.day} de ")


def test_another_owner_gets_not_found_for_every_id(db, catalogue, owner):
    listing = make_listing(db, owner, city=CITY)
    _request(db, owner, listing, catalogue["vip"])
    other = make_owner(db, "otra@example.cl")
    for uid in (listing.uid, "no-existe", "", None, 42, "x" * 500):
        with pytest.raises(NotFoundError):
            upgrades.request_upgrade(
                session=db, owner_uid=other.uid, listing_uid=uid, app_service_uid=catalogue["subir"].uid
            )
        with pytest.raises(NotFoundError):
            upgrades.my_upgrades(session=db, owner_uid=other.uid, listing_uid=uid)
    assert len(db.exec(select(ListingUpgrade)).all()) == 1


@pytest.mark.parametrize("status", ["borrador", "pendiente", "rechazada", "expirada"])
def test_only_published_or_paused_listings_can_be_upgraded(db, catalogue, owner, status):
    listing = make_listing(db, owner, city=CITY, status=status)
    with pytest.raises(ConflictError, match="publicada o pausada"):
        _request(db, owner, listing, catalogue["vip"])
    paused = make_listing(db, owner, city=CITY, status="pausada")
    assert _request(db, owner, paused, catalogue["vip"]).status == "solicitada"


def test_unknown_inactive_or_hand_sold_services_and_lower_tiers_are_refused(db, catalogue, owner):
    listing = make_listing(db, owner, city=CITY, tier="platino")
    for uid in ("no-existe", catalogue["inactive"].uid, catalogue["by_hand"].uid, catalogue["platino"].uid):
        with pytest.raises(InvalidInputError) as error:
            upgrades.request_upgrade(session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=uid)
        assert error.value.field == "app_service_uid"


def test_one_pending_request_per_listing_and_service(db, catalogue, owner, staff):
    listing = make_listing(db, owner, city=CITY)
    first = _request(db, owner, listing, catalogue["vip"])
    with pytest.raises(ConflictError, match="esperando aprobación"):
        _request(db, owner, listing, catalogue["vip"])
    _request(db, owner, listing, catalogue["subir"])  # another service is fine
    upgrades.deny_upgrade(session=db, actor=actor_of(staff), upgrade_uid=first.uid, reason="Pago no recibido")
    assert _request(db, owner, listing, catalogue["vip"]).status == "solicitada"


def test_a_tier_upgrade_moves_the_listing_up_while_in_force_and_back_after(db, catalogue, owner, staff):
    now = utc_now()
    other = make_owner(db, "otra@example.cl")
    make_listing(db, other, name="Diamante", tier="diamante", city=CITY, published_at=now - timedelta(days=1))
    make_listing(db, other, name="Ruby", tier="ruby", city=CITY, published_at=now - timedelta(days=1))
    listing = make_listing(db, owner, name="Mía", tier="platino", city=CITY, published_at=now - timedelta(days=20))
    assert _city(db) == ["Diamante", "Ruby", "Mía"]
    row = _request(db, owner, listing, catalogue["diamante"])
    assert _city(db) == ["Diamante", "Ruby", "Mía"]  # a request alone changes nothing
    _approve(db, staff, row, now, 30)
    assert _city(db) == ["Diamante", "Mía", "Ruby"]  # Diamante tier, older than the other Diamante
    db.refresh(listing)
    assert (listing.tier_uid, listing.tier_rank) == (tier_of(db, "diamante").uid, 1)
    assert listing.base_tier_uid == tier_of(db, "platino").uid
    assert upgrades.apply_upgrades(session=db, now=now + timedelta(days=29)) == 0  # still in force
    assert upgrades.apply_upgrades(session=db, now=now + timedelta(days=30)) == 1
    assert _city(db) == ["Diamante", "Ruby", "Mía"]
    db.refresh(listing)
    assert (listing.tier_uid, listing.tier_rank) == (tier_of(db, "platino").uid, 3)
    [shown] = upgrades.my_upgrades(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert (shown.status, shown.status_label) == ("vencida", "Terminada")
    assert upgrades.apply_upgrades(session=db, now=now + timedelta(days=31)) == 0


def test_vip_shows_in_the_vip_tab_only_while_in_force(db, catalogue, owner, staff):
    now = utc_now()
    listing = make_listing(db, owner, name="Mía", tier="platino", city=CITY)
    assert _city(db, "vip", now=now) == []
    row = _request(db, owner, listing, catalogue["vip"])
    _approve(db, staff, row, now, 15)
    assert _city(db, "vip", now=now + timedelta(minutes=1)) == ["Mía"]
    db.refresh(listing)
    assert listing.vip_until == now + timedelta(days=15)
    later = now + timedelta(days=15, minutes=1)
    assert upgrades.apply_upgrades(session=db, now=later) == 1
    db.refresh(listing)
    assert listing.vip_until is None
    assert _city(db, "vip", now=later) == []


def test_a_bump_puts_the_listing_first_of_its_tier_while_in_force(db, catalogue, owner, staff):
    now = utc_now()
    other = make_owner(db, "otra@example.cl")
    make_listing(db, other, name="Ruby", tier="ruby", city=CITY, published_at=now - timedelta(days=40))
    make_listing(db, other, name="Nueva", tier="platino", city=CITY, published_at=now - timedelta(days=1))
    listing = make_listing(db, owner, name="Mía", tier="platino", city=CITY, published_at=now - timedelta(days=20))
    assert _city(db) == ["Ruby", "Nueva", "Mía"]
    row = _request(db, owner, listing, catalogue["subir"])
    _approve(db, staff, row, now, 3)
    assert _city(db) == ["Ruby", "Mía", "Nueva"]  # first of Platino, never above a higher tier
    assert upgrades.apply_upgrades(session=db, now=now + timedelta(days=3)) == 1
    assert _city(db) == ["Ruby", "Nueva", "Mía"]
    db.refresh(listing)
    assert listing.ranked_at == listing.published_at


def test_an_upgrade_approved_for_later_starts_by_itself(db, catalogue, owner, staff):
    now = utc_now()
    listing = make_listing(db, owner, name="Mía", tier="platino", city=CITY)
    row = _request(db, owner, listing, catalogue["vip"], starts_on=listings.clock(now).today + timedelta(days=2))
    starts_at = now + timedelta(days=2)
    _approve(db, staff, row, starts_at, 15, now=now)
    assert _city(db, "vip", now=now) == []
    assert upgrades.apply_upgrades(session=db, now=now + timedelta(days=1)) == 0
    assert upgrades.apply_upgrades(session=db, now=starts_at) == 1
    assert upgrades.apply_upgrades(session=db, now=starts_at) == 0  # idempotent
    assert _city(db, "vip", now=starts_at) == ["Mía"]
    [shown] = upgrades.my_upgrades(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert (shown.status, shown.status_label) == ("activa", "Aprobada")
    assert db.get(ListingUpgrade, shown.uid).reviewer_uid == staff.uid
    assert shown.starts and shown.ends


def test_deny_keeps_the_listing_as_it_was(db, catalogue, owner, staff):
    listing = make_listing(db, owner, name="Mía", tier="platino", city=CITY)
    row = _request(db, owner, listing, catalogue["diamante"])
    with pytest.raises(InvalidInputError) as error:
        upgrades.deny_upgrade(session=db, actor=actor_of(staff), upgrade_uid=row.uid, reason="  ")
    assert error.value.field == "reason"
    upgrades.deny_upgrade(session=db, actor=actor_of(staff), upgrade_uid=row.uid, reason="Pago no recibido")
    [shown] = upgrades.my_upgrades(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert (shown.status, shown.status_label, shown.reason) == ("rechazada", "Rechazada", "Pago no recibido")
    stored = db.get(ListingUpgrade, row.uid)
    assert (stored.reviewer_uid, stored.reason) == (staff.uid, "Pago no recibido")
    db.refresh(listing)
    assert listing.tier_uid == tier_of(db, "platino").uid
    with pytest.raises(ConflictError, match="ya fue revisada"):
        _approve(db, staff, row, utc_now(), 30)


def test_only_staff_review_and_approval_needs_a_payment_and_a_period(db, catalogue, owner, staff):
    listing = make_listing(db, owner, city=CITY)
    row = _request(db, owner, listing, catalogue["vip"])
    now = utc_now()
    with pytest.raises(ForbiddenError):
        _approve(db, owner, row, now, 15)
    with pytest.raises(ForbiddenError):
        upgrades.deny_upgrade(session=db, actor=actor_of(owner), upgrade_uid=row.uid, reason="No")
    with pytest.raises(InvalidInputError) as error:
        upgrades.approve_upgrade(
            session=db,
            actor=actor_of(staff),
            upgrade_uid=row.uid,
            starts_at=now,
            ends_at=now + timedelta(days=1),
            payment_reference=" ",
        )
    assert error.value.field == "payment_reference"
    with pytest.raises(InvalidInputError) as error:
        upgrades.approve_upgrade(
            session=db,
            actor=actor_of(staff),
            upgrade_uid=row.uid,
            starts_at=now,
            ends_at=now,
            payment_reference="Transferencia 1",
        )
    assert error.value.field == "ends_at"
    with pytest.raises(NotFoundError):
        _approve(db, staff, row.model_copy(update={"uid": "no-existe"}), now, 1)
    assert db.get(ListingUpgrade, row.uid).status == UpgradeStatus.SOLICITADA
