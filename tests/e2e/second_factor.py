"""Pass a staff member's second factor in a real browser (issue 20 §1), for every test that signs staff in.

After the password a staff member lands on /login/segundo-factor. :func:`pass_second_factor`
completes that step the way a person does: with a factor set up (``tests.factories.enrol_staff``,
the known secret) it types the app's current code; without one it sets it up from the secret the page
shows, confirms with a code and goes on past the recovery codes. Either way it returns once the
browser is on the way to the landing page.
"""

from __future__ import annotations

import re
import time
from datetime import datetime

import pyotp
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.models import StaffSecondFactor, User
from tests.factories import STAFF_TOTP_SECRET, enrol_staff

SETUP_HEADING = "Configura tu segundo factor"
VERIFY_HEADING = "Segundo factor"
STEP_S = 30


def fresh_code(db: Session, user_uid: str, secret: str = STAFF_TOTP_SECRET) -> str:
    """A code of ``secret`` the server has not accepted yet for this user (a code is accepted once).

    The code of the current step, or of the next one (the server accepts one step ahead) when the current
    one was used already; when both were, wait for the next step.
    """
    totp = pyotp.TOTP(secret)
    while True:
        # A column read: fresh from the database, and the caller's loaded objects stay as they are.
        stored = db.exec(select(StaffSecondFactor.last_step).where(StaffSecondFactor.user_uid == user_uid)).first()
        last = stored if stored is not None else -1
        current = totp.timecode(datetime.now())
        for step in (current, current + 1):
            if step > last:
                return totp.generate_otp(step)
        time.sleep(max(0.2, STEP_S - time.time() % STEP_S))


def pass_second_factor(page: Page, db: Session, email: str, *, secret: str = STAFF_TOTP_SECRET) -> list[str]:
    """Complete the second-factor page for the staff member ``email``; the recovery codes a setup showed.

    ``secret``: the one their app holds, for the code step (the known one of ``enrol_staff`` by default).
    """
    page.wait_for_url(re.compile(r".*/login/segundo-factor/?$"))
    heading = page.get_by_role("heading", name=re.compile(f"^({SETUP_HEADING}|{VERIFY_HEADING})$"), level=2)
    expect(heading).to_be_visible()
    user = db.exec(select(User).where(User.email == email)).one()
    if heading.inner_text() == VERIFY_HEADING:
        form = page.get_by_role("form", name="Código del segundo factor")
        form.get_by_label("Código de tu app o de recuperación").fill(fresh_code(db, user.uid, secret))
        form.get_by_role("button", name="Ingresar").click()
        return []
    secret_text = page.locator("#segundo-factor-clave")
    expect(secret_text).to_have_text(re.compile(r"^[A-Z2-7 ]{32,}$"))
    shown = secret_text.inner_text().replace(" ", "")
    form = page.get_by_role("form", name="Confirmar segundo factor")
    form.get_by_label("Código de 6 dígitos de la app").fill(fresh_code(db, user.uid, shown))
    form.get_by_role("button", name="Confirmar").click()
    codes = page.get_by_role("list", name="Códigos de recuperación").get_by_role("listitem")
    expect(codes).to_have_count(10)
    recovery = codes.all_inner_texts()
    page.get_by_role("link", name="Ya los guardé, continuar").click()
    return recovery


def enrolled(db: Session, email: str) -> None:
    """Give the staff member ``email`` a second factor with the known secret (so sign-in asks for its code)."""
    enrol_staff(db, db.exec(select(User).where(User.email == email)).one().uid)
