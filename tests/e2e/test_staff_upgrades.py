"""The administrator's upgrade desk in a real browser: an upgrade approved today moves the listing up on
its public city page, and it goes back to its place when the upgrade ends.

The request is made through the upgrade service, the approval in the browser by an administrator whose
session was opened through the session service. The browser's clock cannot be moved: the end comes by
putting ``ends_at`` in the past in the database and running the clock job's function once.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ListingUpgrade, ProfileId, UpgradeStatus, utc_now
from app.services import upgrades
from app.services.listings import clock
from tests.e2e.conftest import Site, accept_age
from tests.e2e.text_lines import text_lines
from tests.factories import make_account, make_listing, make_owner, open_session, tier_upgrade

pytestmark = pytest.mark.e2e
DESK = "/admin/mejorasPublicacion"
# A city no other test file counts listings in (the e2e database is shared by the whole run).
CITY = "san-fernando"
LOW_TIER = "chicas-del-dia"


def _expect_order(page: Page, names: list[str]) -> None:
    cards = page.get_by_test_id("listing-card").locator("h3")
    expect(cards).to_have_count(len(names))
    expect(cards).to_have_text(names)


def test_an_upgrade_approved_today_moves_the_listing_up_and_back_when_it_ends(page: Page, site: Site, db):
    owner = make_owner(db, "sube@correo.cl")
    now = utc_now()
    climber = make_listing(
        db, owner, name="Soledad Sube", city=CITY, tier=LOW_TIER, published_at=now - timedelta(days=9)
    )
    make_listing(db, owner, name="Rebeca Reciente", city=CITY, tier=LOW_TIER, published_at=now - timedelta(days=1))
    service = tier_upgrade(db, "platino", name="Subir a Platino (prueba)", price_clp=24990)
    db.add(service)
    db.commit()
    request = upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=climber.uid, app_service_uid=service.uid
    )

    # Before: the newer listing of the same tier comes first.
    page.goto(f"/escorts/{CITY}")
    accept_age(page)
    _expect_order(page, ["Rebeca Reciente", "Soledad Sube"])

    admin = make_account(db, LocalProvider(engine=db.get_bind()), "jefa@correo.cl", profile=ProfileId.ADMINISTRADOR)
    page.context.add_cookies(
        [
            {
                "name": SESSION_COOKIE,
                "value": open_session(db, admin.uid),
                "url": site.url,
                "httpOnly": True,
                "sameSite": "Lax",
            }
        ]
    )
    page.goto(DESK)
    expect(page.get_by_role("heading", name="Mejoras de publicación", level=1)).to_be_visible()
    row = page.get_by_role("row").filter(has_text="Soledad Sube")
    expect(row).to_contain_text("sube@correo.cl")
    expect(row).to_contain_text("Subir a Platino (prueba)")
    expect(row).to_contain_text("$24.990")
    # At 1280 px the row reads on the screen, nothing in it broken: each button's word, the reference, the price
    # and the state on one line.
    for label in ("Aprobar", "Rechazar"):
        button = row.get_by_role("button", name=f"{label} la mejora de Soledad Sube")
        expect(button).to_be_in_viewport(ratio=1)
        assert text_lines(button) == 1, label
    for value in (request.payment_code, "$24.990", "Solicitada"):
        assert text_lines(row.get_by_role("cell", name=value, exact=True)) == 1, value
    row.get_by_role("button", name="Aprobar la mejora de Soledad Sube").click()
    dialog = page.get_by_role("dialog")
    today = clock().today
    # The period the advertiser asked for is offered: from today, 30 days.
    expect(dialog.get_by_label("Primer día (dd-mm-aaaa)")).to_have_value(today.strftime("%d-%m-%Y"))
    expect(dialog.get_by_label("Último día (dd-mm-aaaa)")).to_have_value(
        (today + timedelta(days=29)).strftime("%d-%m-%Y")
    )
    # Without the payment reference the approval is refused under its field.
    dialog.get_by_role("button", name="Aprobar").click()
    expect(dialog.get_by_label("Referencia del pago")).to_have_attribute("aria-invalid", "true")
    dialog.get_by_label("Último día (dd-mm-aaaa)").fill((today + timedelta(days=6)).strftime("%d-%m-%Y"))
    dialog.get_by_label("Referencia del pago").fill("Transferencia 4471")
    dialog.get_by_role("button", name="Aprobar").click()
    expect(dialog).to_have_count(0)
    expect(page.get_by_role("row").filter(has_text="Soledad Sube")).to_have_count(0)  # no longer pending

    stored = db.get(ListingUpgrade, request.uid)
    db.refresh(stored)
    assert stored.status == UpgradeStatus.ACTIVA and stored.payment_reference == "Transferencia 4471"

    # In force at once: a Platino listing comes before the Chicas del día.
    page.goto(f"/escorts/{CITY}")
    _expect_order(page, ["Soledad Sube", "Rebeca Reciente"])

    # The upgrade ends: the clock job's run puts the listing back in its place.
    stored.ends_at = utc_now() - timedelta(minutes=1)
    db.add(stored)
    db.commit()
    with Session(db.get_bind()) as job:  # its own session, as the clock job has
        upgrades.apply_upgrades(session=job)
    page.reload()
    _expect_order(page, ["Rebeca Reciente", "Soledad Sube"])
    db.refresh(stored)
    assert stored.status == UpgradeStatus.VENCIDA
