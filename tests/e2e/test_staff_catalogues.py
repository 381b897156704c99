"""Catalogues in a real browser: a catalogue entry in use refuses deletion, and linked records
are chosen from selects of the catalogue's entries.

An administrator tries to delete a servicioProfesor that a listing offers: the page says where it
is used, and the row stays; an unused one is deleted after the confirmation.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.identity.local import LocalProvider
from app.models import AdvertiserService, Agency, AgencyCategory, AuditEntry, Listing, ListingService, ProfileId
from tests.e2e.conftest import Site
from tests.e2e.second_factor import enrolled, pass_second_factor
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import make_account, make_listing, make_owner, tier_of

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]


def test_a_catalogue_entry_in_use_refuses_deletion(page: Page, site: Site, db: Session):
    provider = LocalProvider(engine=db.get_bind())
    make_account(db, provider, "jefa-catalogos@correo.cl", profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    used = AdvertiserService(name="Masaje en uso e2e")
    unused = AdvertiserService(name="Servicio sin uso e2e")
    db.add_all([used, unused])
    db.commit()
    # A draft in a city no other test counts: it offers the service without showing anywhere public.
    listing = make_listing(db, make_owner(db, "ofrece-servicio@correo.cl"), status="borrador", city="constitucion")
    db.add(ListingService(listing_uid=listing.uid, service_uid=used.uid))
    db.commit()

    enrolled(db, "jefa-catalogos@correo.cl")
    sign_in(page, "jefa-catalogos@correo.cl")
    pass_second_factor(page, db, "jefa-catalogos@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    page.get_by_role("navigation", name="Administración").get_by_role(
        "link", name="Servicios de los anunciantes", exact=True
    ).click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/servicioProfesor") + "/?$"))
    expect(page.get_by_role("heading", name="Servicios de los anunciantes", level=1)).to_be_visible()
    page.get_by_label("Buscar").fill("e2e")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text="Masaje en uso e2e")
    expect(row).to_have_count(1)

    row.get_by_role("button", name="Eliminar").click()
    question = page.get_by_role("alertdialog")
    expect(question).to_contain_text("Masaje en uso e2e")
    question.get_by_role("button", name="Sí, eliminar").click()
    expect(page.get_by_text("Este servicio está en 1 publicación.")).to_be_visible()
    expect(row).to_have_count(1)

    other = page.get_by_role("row").filter(has_text="Servicio sin uso e2e")
    other.get_by_role("button", name="Eliminar").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Sí, eliminar").click()
    expect(page.get_by_text("Eliminado.")).to_be_visible()
    expect(other).to_have_count(0)
    expect(row).to_have_count(1)

    used_uid, unused_uid = used.uid, unused.uid
    db.expunge_all()
    assert db.get(AdvertiserService, used_uid) is not None
    assert db.get(AdvertiserService, unused_uid) is None
    assert [e.action for e in db.exec(select(AuditEntry).where(AuditEntry.entity_uid.in_([used_uid, unused_uid])))] == [
        "eliminar"
    ]


def test_linked_records_are_chosen_from_selects_of_what_exists(page: Page, site: Site, db: Session):
    """A new agency takes its category from a select of the categories there are; a listing's edit
    dialog shows its tier chosen in the tier select, and another tier saved moves the row."""
    provider = LocalProvider(engine=db.get_bind())
    make_account(db, provider, "jefa-selects@correo.cl", profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    category = AgencyCategory(name="Categoría e2e")
    db.add(category)
    db.commit()
    owner = make_owner(db, "cambia-nivel@correo.cl")
    listing = make_listing(
        db,
        owner,
        name="Nivel Cambiante",
        status="borrador",
        city="constitucion",
        commune="Constitución",
        tier="chicas-del-dia",
    )
    before, after = tier_of(db, "chicas-del-dia"), tier_of(db, "platino")

    enrolled(db, "jefa-selects@correo.cl")
    sign_in(page, "jefa-selects@correo.cl")
    pass_second_factor(page, db, "jefa-selects@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    page.goto("/admin/agencia")
    expect(page.get_by_role("heading", name="Agencias", level=1)).to_be_visible()
    page.get_by_role("button", name="Nuevo").click()
    dialog = page.get_by_role("dialog", name="Nuevo: agencia")
    dialog.get_by_label("Nombre").fill("Agencia Selecta e2e")
    dialog.get_by_label("Categoría").select_option(label="Categoría e2e")
    dialog.get_by_role("button", name="Guardar").click()
    expect(page.get_by_text("Creamos el registro.")).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="Agencia Selecta e2e")).to_contain_text("Categoría e2e")
    stored = db.exec(select(Agency).where(Agency.name == "Agencia Selecta e2e")).one()
    assert stored.category_uid == category.uid

    page.goto("/admin/publicacion")
    page.get_by_label("Buscar por nombre o teléfono").fill("Nivel Cambiante")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text="Nivel Cambiante")
    expect(row).to_contain_text(before.name)
    row.get_by_role("button", name="Editar").click()
    dialog = page.get_by_role("dialog", name="Editar: publicacion")
    expect(dialog.get_by_label("Categoría")).to_have_value(before.uid)
    dialog.get_by_label("Categoría").select_option(label=after.name)
    dialog.get_by_label("Descripción").fill("Una descripción con bastante detalle para la revisión.")
    dialog.get_by_role("button", name="Guardar").click()
    expect(page.get_by_text("Guardamos los cambios.")).to_be_visible()
    expect(row).to_contain_text(after.name)
    db.expire_all()
    assert db.get(Listing, listing.uid).base_tier_uid == after.uid
