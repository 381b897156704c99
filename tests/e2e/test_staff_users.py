"""The users table in a real browser: an administrator bans a user who is signed in elsewhere, and that session ends.

The ban is made through the page (search by e-mail, "Suspender" on the row); the user's other
browser is out at its next action, and the administrator reads the ban in the audit log.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, select

from app.identity.errors import AUTH_MESSAGES
from app.identity.local import LocalProvider
from app.models import AuditEntry, ProfileId, User
from app.services.staff import users as staff_users
from tests.e2e.conftest import Site
from tests.e2e.second_factor import enrolled, pass_second_factor
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import actor_of, make_account

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]


def test_an_administrator_bans_a_user_signed_in_elsewhere_and_that_session_ends(
    page: Page, site: Site, db: Session, browser: Browser
):
    provider = LocalProvider(engine=db.get_bind())
    make_account(db, provider, "jefa-usuarios@correo.cl", profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    user = make_account(db, provider, "vetada-tabla@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD)

    elsewhere = browser.new_context(base_url=site.url, locale="es-CL").new_page()
    sign_in(elsewhere, "vetada-tabla@correo.cl")
    elsewhere.wait_for_url(re.compile(re.escape(f"{site.url}/my/publicacion/misPublicaciones") + "/?$"))
    # The app's own page (inside its root), not the document's first screen, which shows the heading too.
    app_root = elsewhere.locator("[data-is-root-theme]")
    expect(app_root.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()

    enrolled(db, "jefa-usuarios@correo.cl")
    sign_in(page, "jefa-usuarios@correo.cl")
    pass_second_factor(page, db, "jefa-usuarios@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    page.get_by_role("navigation", name="Administración").get_by_role("link", name="Usuarios").click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/usuarios") + "/?$"))
    expect(page.get_by_role("heading", name="Usuarios", level=1)).to_be_visible()
    page.get_by_label("Buscar por correo").fill("vetada-tabla")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text="vetada-tabla@correo.cl")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Activo")
    row.get_by_role("button", name="Suspender").click()
    expect(page.get_by_text("Suspendiste la cuenta y cerramos sus sesiones.")).to_be_visible()
    expect(row).to_contain_text("Suspendido")
    expect(row.get_by_role("button", name="Quitar suspensión")).to_be_visible()

    # The other browser is still on the advertiser area; its next action signs it out.
    elsewhere.get_by_role("link", name="Trans").click()
    expect(elsewhere.get_by_text(AUTH_MESSAGES["user-disabled"])).to_be_visible()
    elsewhere.wait_for_url(re.compile(re.escape(f"{site.url}/escorts") + "/?$"))
    expect(elsewhere.get_by_role("link", name="Ingresar")).to_be_visible()
    elsewhere.goto("/my/publicacion/misPublicaciones")
    elsewhere.wait_for_url(re.compile(re.escape(f"{site.url}/escorts") + "/?$"))
    expect(elsewhere.get_by_role("heading", name="Mis publicaciones", level=1)).to_have_count(0)
    elsewhere.context.close()

    db.expire_all()
    assert db.get(User, user.uid).ban is True
    assert db.exec(select(AuditEntry).where(AuditEntry.entity_uid == user.uid)).one().action == "banear"

    # The administrator reads the ban in the audit log, filtered by their own e-mail.
    page.get_by_role("navigation", name="Administración").get_by_role("link", name="Auditoría").click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/auditoria") + "/?$"))
    page.get_by_label("Correo de la persona").fill("jefa-usuarios@correo.cl")
    page.get_by_role("button", name="Buscar").click()
    entry = page.get_by_role("row").filter(has_text=user.uid)
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text("banear")
    expect(entry).to_contain_text("ban: false → true")


def test_the_edit_dialog_fills_a_narrow_screen_and_saves_a_profile_change(page: Page, site: Site, db: Session):
    provider = LocalProvider(engine=db.get_bind())
    make_account(db, provider, "jefa-perfiles@correo.cl", profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    user = make_account(db, provider, "cambia-perfil@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    enrolled(db, "jefa-perfiles@correo.cl")
    sign_in(page, "jefa-perfiles@correo.cl")
    pass_second_factor(page, db, "jefa-perfiles@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    page.set_viewport_size({"width": 400, "height": 780})
    page.goto("/admin/usuarios")
    expect(page.get_by_role("link", name="Usuarios")).to_have_attribute("aria-current", "page")
    page.get_by_label("Buscar por correo").fill("cambia-perfil")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text="cambia-perfil@correo.cl")
    expect(row).to_contain_text("Cliente")
    row.get_by_role("button", name="Editar").click()
    dialog = page.get_by_role("dialog", name="Editar: usuario")
    expect(dialog.get_by_label("Perfil")).to_have_value("cliente")
    dialog.evaluate("(el) => Promise.all(el.getAnimations().map((a) => a.finished))")  # opened, not growing
    box = dialog.bounding_box()
    assert box is not None and (box["x"], box["y"], box["width"], box["height"]) == (0, 0, 400, 780), box
    dialog.get_by_label("Perfil").select_option("profesor")
    dialog.get_by_role("button", name="Guardar").click()
    expect(page.get_by_text("Guardamos los cambios.")).to_be_visible()
    expect(dialog).to_be_hidden()
    expect(row).to_contain_text("Anunciante")
    db.expire_all()
    assert db.get(User, user.uid).profile_uid == "profesor"


def test_a_secretary_sees_no_button_for_what_only_an_administrator_may_undo(page: Page, site: Site, db: Session):
    """Staff rows and an administrator's ban show her no ban or lift button; her own kind of row does."""
    provider = LocalProvider(engine=db.get_bind())
    admin = make_account(db, provider, "jefa-tabla-secre@correo.cl", profile=ProfileId.ADMINISTRADOR)
    make_account(db, provider, "secre-tabla@correo.cl", profile=ProfileId.SECRETARIA, password=PASSWORD)
    banned = make_account(db, provider, "tabla-vetada-jefa@correo.cl", profile=ProfileId.PROFESOR)
    make_account(db, provider, "tabla-libre@correo.cl", profile=ProfileId.CLIENTE)
    staff_users.set_ban(session=db, provider=provider, actor=actor_of(admin), user_uid=banned.uid, banned=True)

    enrolled(db, "secre-tabla@correo.cl")
    sign_in(page, "secre-tabla@correo.cl")
    pass_second_factor(page, db, "secre-tabla@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/bbitamia/publicacion") + "/?$"))
    page.goto("/bbitamia/usuarios")
    expect(page.get_by_role("heading", name="Usuarios", level=1)).to_be_visible()
    page.get_by_label("Buscar por correo").fill("tabla")
    page.get_by_role("button", name="Buscar").click()

    def row(email: str):
        found = page.get_by_role("row").filter(has_text=email)
        expect(found).to_have_count(1)
        return found

    free = row("tabla-libre@correo.cl")
    expect(free.get_by_role("button", name="Suspender")).to_be_visible()
    expect(free.get_by_role("button", name="Desactivar")).to_be_visible()
    for staff in ("jefa-tabla-secre@correo.cl", "secre-tabla@correo.cl"):
        expect(
            row(staff).get_by_role("button", name=re.compile("Suspender|Desactivar|Quitar suspensión"))
        ).to_have_count(0)
    by_admin = row("tabla-vetada-jefa@correo.cl")
    expect(by_admin).to_contain_text("Suspendido")
    expect(by_admin.get_by_role("button", name="Quitar suspensión")).to_have_count(0)
    expect(by_admin.get_by_role("button", name="Desactivar")).to_be_visible()
