"""How to pay for an upgrade (issue 19 §4) on PostgreSQL: the administrator's payment instructions (admin only,
audited), each request's own reference with the amount and instructions on the card and in the e-mail, staff
finding a request by its reference, unpaid requests expiring after 7 days, verification states on the cards."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from email.header import decode_header, make_header

import pytest
from sqlmodel import select

from app.core.errors import ForbiddenError, InvalidInputError
from app.models import AuditEntry, ListingUpgrade, ListingVerification, ProfileId, UpgradeStatus, utc_now
from app.services import listing_jobs, my_listings, upgrades
from app.services.staff import site_settings
from app.services.staff import upgrades as staff_upgrades
from app.services.staff.shared import TableQuery
from tests.factories import actor_of, make_listing, make_owner, make_staff, tier_upgrade
from tests.waits import wait_until_sent

INSTRUCTIONS = "Transferencia al Banco Estado\nCuenta Vista 123456789\nRUT 76.123.456-7"


@pytest.fixture
def admin(db):
    return make_staff(db, "jefa@example.cl", ProfileId.ADMINISTRADOR)


@pytest.fixture
def owner(db):
    return make_owner(db, f"paga-{uuid.uuid4().hex[:12]}@example.cl")


@pytest.fixture
def service(db):
    service = tier_upgrade(db, "diamante", name="Subir a Diamante", price_clp=59990)
    db.add(service)
    db.commit()
    return service


def _request(db, owner, service, name="Antonia"):
    listing = make_listing(db, owner, name=name, tier="platino")
    return listing, upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid
    )


def test_only_an_administrator_sets_the_payment_instructions_and_each_change_is_audited(db, admin, staff):
    assert site_settings.payment_instructions(db) == site_settings.NO_INSTRUCTIONS
    with pytest.raises(ForbiddenError):
        site_settings.set_payment_instructions(session=db, actor=actor_of(staff), text="Paga a mi cuenta")
    with pytest.raises(ForbiddenError):
        site_settings.instructions_for_admin(session=db, actor=actor_of(staff))
    with pytest.raises(InvalidInputError):
        site_settings.set_payment_instructions(session=db, actor=actor_of(admin), text="   ")
    assert site_settings.payment_instructions(db) == site_settings.NO_INSTRUCTIONS
    assert db.exec(select(AuditEntry)).all() == []

    site_settings.set_payment_instructions(session=db, actor=actor_of(admin), text=f"  {INSTRUCTIONS}  \n")
    site_settings.set_payment_instructions(session=db, actor=actor_of(admin), text=INSTRUCTIONS + "\nO en efectivo")
    assert site_settings.instructions_for_admin(session=db, actor=actor_of(admin)).endswith("O en efectivo")
    entries = db.exec(select(AuditEntry).order_by(AuditEntry.created_at)).all()
    assert [(e.actor_uid, e.action, e.entity, e.entity_uid) for e in entries] == [
        (admin.uid, "editar", "ajuste_sitio", "instrucciones_pago")
    ] * 2
    assert entries[0].before_json == ""
    assert json.loads(entries[1].before_json)["value"] == INSTRUCTIONS
    assert json.loads(entries[1].after_json)["value"].endswith("O en efectivo")


def test_a_request_gets_its_reference_shown_on_the_card_and_in_the_email(db, mailbox, admin, owner, service):
    site_settings.set_payment_instructions(session=db, actor=actor_of(admin), text=INSTRUCTIONS)
    listing, row = _request(db, owner, service)
    _, other = _request(db, owner, service, name="Berta")
    assert row.payment_code != other.payment_code
    assert row.amount == "$59.990"

    card = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert card.upgrade_label == ""
    assert [(p.name, p.payment_code, p.amount) for p in card.waiting_payments] == [
        ("Subir a Diamante", row.payment_code, "$59.990")
    ]

    # A second request waits beside the first: the card lists both, in the order they were asked for, and the
    # dialog offers neither again but names its reference.
    ruby = tier_upgrade(db, "ruby", name="Subir a Ruby", price_clp=39990)
    db.add(ruby)
    db.commit()
    second = upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=ruby.uid
    )
    card = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert [(p.name, p.payment_code, p.amount) for p in card.waiting_payments] == [
        ("Subir a Diamante", row.payment_code, "$59.990"),
        ("Subir a Ruby", second.payment_code, "$39.990"),
    ]
    choices = upgrades.upgrade_choices(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    waiting = {choice.uid: choice.waiting_code for choice in choices if choice.waiting_code}
    assert waiting == {service.uid: row.payment_code, ruby.uid: second.payment_code}

    # The first one approved: the card says it is in force, and still lists the second until it is paid.
    staff_upgrades.approve_request(
        session=db,
        actor=actor_of(admin),
        upgrade_uid=row.uid,
        starts_on=utc_now().strftime("%Y/%m/%d"),
        ends_on=(utc_now() + timedelta(days=30)).strftime("%Y/%m/%d"),
        payment_reference="Transferencia 5150",
    )
    card = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert card.upgrade_label.startswith("Mejora «Subir a Diamante»: aprobada hasta el ")
    assert [p.payment_code for p in card.waiting_payments] == [second.payment_code]

    wait_until_sent()
    mails = [m for m in mailbox.to(owner.email) if row.payment_code in str(make_header(decode_header(m["Subject"])))]
    assert len(mails) == 1
    body = mails[0].get_payload(decode=True).decode().replace("\r\n", "\n")
    assert f"paga $59.990 indicando la referencia {row.payment_code}" in body
    assert INSTRUCTIONS in body and "en 7 días" in body


def test_staff_find_a_request_by_its_reference_however_it_is_typed(db, admin, owner, service):
    _, wanted = _request(db, owner, service)
    _request(db, owner, service, name="Otra")
    for typed in (wanted.payment_code, wanted.payment_code.lower().replace("-", " "), wanted.payment_code[:4]):
        page = staff_upgrades.list_upgrades(session=db, actor=actor_of(admin), query=TableQuery(search=typed))
        assert [r.uid for r in page.rows] == [wanted.uid], typed
        assert page.rows[0].payment_code == wanted.payment_code
    # Approved already: a whole reference still finds it, whatever the status filter.
    staff_upgrades.approve_request(
        session=db,
        actor=actor_of(admin),
        upgrade_uid=wanted.uid,
        starts_on=utc_now().strftime("%Y/%m/%d"),
        ends_on=(utc_now() + timedelta(days=30)).strftime("%Y/%m/%d"),
        payment_reference="Transferencia 9911",
    )
    found = staff_upgrades.list_upgrades(
        session=db,
        actor=actor_of(admin),
        query=TableQuery(search=wanted.payment_code, filters={"estado": "solicitada"}),
    )
    assert [(r.uid, r.status) for r in found.rows] == [(wanted.uid, "activa")]


def test_a_request_left_unpaid_for_seven_days_expires_and_the_owner_is_told(db, mailbox, owner, service):
    listing, row = _request(db, owner, service)
    upgrade = db.get(ListingUpgrade, row.uid)
    requested = upgrade.created_at
    assert upgrades.expire_unpaid_upgrades(session=db, now=requested + timedelta(days=6, hours=23)) == 0
    assert upgrades.expire_unpaid_upgrades(session=db, now=requested + timedelta(days=7)) == 1
    assert upgrades.expire_unpaid_upgrades(session=db, now=requested + timedelta(days=8)) == 0
    db.refresh(upgrade)
    assert upgrade.status == UpgradeStatus.VENCIDA
    card = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert card.upgrade_label == "Mejora «Subir a Diamante»: terminada"
    assert card.upgrade_reason == upgrades.UNPAID_REASON and card.waiting_payments == []

    wait_until_sent()
    subjects = [str(make_header(decode_header(m["Subject"]))) for m in mailbox.to(owner.email)]
    assert "Venció tu solicitud de la mejora «Subir a Diamante»" in subjects
    # A new request for the same upgrade is allowed again.
    upgrades.request_upgrade(session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid)


def test_the_clock_run_expires_unpaid_requests(db, owner, service):
    _, row = _request(db, owner, service)
    upgrade = db.get(ListingUpgrade, row.uid)
    upgrade.created_at = utc_now() - timedelta(days=8)
    db.add(upgrade)
    db.commit()
    assert listing_jobs.run_clock_jobs().unpaid == 1


def test_verification_states_show_on_the_card(db, owner, staff):
    listing = make_listing(db, owner, name="Clara")
    request = ListingVerification(listing_uid=listing.uid, owner_uid=owner.uid)
    db.add(request)
    db.commit()
    card = my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0]
    assert card.verification_label == "Verificación solicitada: la revisaremos pronto."
    request.status = "rechazada"
    request.reason = "No se ve el papel"
    db.add(request)
    db.commit()
    card = my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0]
    assert (card.verification_label, card.verification_reason) == ("Verificación rechazada.", "No se ve el papel")
