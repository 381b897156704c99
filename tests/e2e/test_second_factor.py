"""The staff second factor in a real browser (issue 20 §1).

An administrator's first sign-in after the change: the setup shows a QR code
drawn on the server and the secret as text, a code from the app confirms it,
the ten recovery codes are shown once, and the staff pages work. Before that,
no staff page opens. Signed out and in again, the sign-in asks for the code.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.identity.local import LocalProvider
from app.models import ProfileId, RecoveryCode, StaffSecondFactor, User
from tests.e2e.conftest import Site
from tests.e2e.second_factor import fresh_code, pass_second_factor
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import make_account

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]

EMAIL = "jefa-dos-pasos@correo.cl"


def test_first_sign_in_sets_up_the_second_factor_then_sign_in_asks_for_the_code(page: Page, site: Site, db: Session):
    make_account(db, LocalProvider(engine=db.get_bind()), EMAIL, profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    user = db.exec(select(User).where(User.email == EMAIL)).one()

    sign_in(page, EMAIL)
    page.wait_for_url(re.compile(re.escape(f"{site.url}/login/segundo-factor") + "/?$"))
    expect(page.get_by_role("heading", name="Configura tu segundo factor")).to_be_visible()
    qr = page.get_by_role("img", name="Código QR para tu app de autenticación")
    expect(qr.locator("path")).to_have_attribute("d", re.compile(r"^M"))
    assert qr.evaluate("(svg) => svg.getBBox().width > 0"), "the QR code was not drawn"
    expect(page.locator("#segundo-factor-clave")).to_have_text(re.compile(r"^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$"))

    # Half signed in: no staff page opens, whichever is asked for.
    page.goto("/admin/usuarios")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/login/segundo-factor") + "/?$"))
    expect(page.get_by_text("Antes de seguir, confirma tu ingreso con tu segundo factor.")).to_be_visible()

    # A wrong code is refused under its field; the setup goes on with the right one.
    shown_secret = page.locator("#segundo-factor-clave")
    expect(shown_secret).to_have_text(re.compile(r"^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$"))  # the same, drawn again
    secret = shown_secret.inner_text().replace(" ", "")
    form = page.get_by_role("form", name="Confirmar segundo factor")
    wrong = "000000" if fresh_code(db, user.uid, secret) != "000000" else "111111"
    form.get_by_label("Código de 6 dígitos de la app").fill(wrong)
    form.get_by_role("button", name="Confirmar").click()
    expect(form.get_by_text("El código no es correcto o ya fue usado.", exact=False)).to_be_visible()

    codes = pass_second_factor(page, db, EMAIL)
    assert len(codes) == 10 and all(re.fullmatch(r"[a-z2-9]{5}-[a-z2-9]{5}", code) for code in codes)
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    expect(page.get_by_role("heading", name="Administración", level=1)).to_be_visible()
    page.get_by_role("navigation", name="Administración").get_by_role("link", name="Usuarios").click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/usuarios") + "/?$"))
    row = page.get_by_role("row").filter(has_text=EMAIL)
    page.get_by_label("Buscar por correo").fill("jefa-dos-pasos")
    page.get_by_role("button", name="Buscar").click()
    expect(row).to_have_count(1)
    db.expire_all()
    assert db.get(StaffSecondFactor, user.uid).confirmed_at is not None
    stored = db.exec(select(RecoveryCode).where(RecoveryCode.user_uid == user.uid)).all()
    assert len(stored) == 10 and not any(code in r.code_hash for code in codes for r in stored)
    # The secret and the codes never reached the browser's storage (Reflex keeps state there too).
    kept = page.evaluate("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")
    assert secret not in kept and not any(code in kept for code in codes)

    page.get_by_role("button", name="Cerrar sesión").click()
    expect(page.get_by_role("link", name="Ingresar")).to_be_visible()

    # The next sign-in asks for the code after the password; a recovery code would do as well.
    sign_in(page, EMAIL)
    page.wait_for_url(re.compile(re.escape(f"{site.url}/login/segundo-factor") + "/?$"))
    expect(page.get_by_role("heading", name="Segundo factor")).to_be_visible()
    expect(page.get_by_role("heading", name="Configura tu segundo factor")).to_have_count(0)
    pass_second_factor(page, db, EMAIL, secret=secret)
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    expect(page.get_by_role("heading", name="Administración", level=1)).to_be_visible()
