"""Accounts in a real browser with the local provider and a real SMTP server.

Sign-up, the e-mailed verification link, sign-in and each profile's landing
page; the Spanish error messages; password reset and change; sign-out in
every tab; a ban forcing an open session out; the guarded areas refusing
every wrong profile; the session cookie (HttpOnly, never stored by Reflex
or logged) and a stolen tab token replayed without it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from limits.storage import RedisStorage
from playwright.sync_api import Browser, Page, expect

from app.db import make_engine
from app.identity.errors import AUTH_MESSAGES
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE, digest
from app.identity.throttle import SIGN_UPS_PER_CLIENT
from app.models import STAFF_PROFILES, ProfileId, User
from app.services import accounts
from app.services.abuse import REDIS_KEY_PREFIX, Limiter, client_key
from app.settings import get_settings
from tests.e2e.conftest import Site
from tests.e2e.second_factor import pass_second_factor
from tests.factories import actor_of, make_account

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]

PASSWORD = "cordillera-nevada-42"
LANDING = {
    ProfileId.ADMINISTRADOR: ("/admin/escorts", "Administración"),
    ProfileId.CLIENTE: ("/escorts", "Escorts en Chile"),
    ProfileId.PROFESOR: ("/my/publicacion/misPublicaciones", "Mis publicaciones"),
    ProfileId.SECRETARIA: ("/bbitamia/publicacion", "Publicaciones"),
}
AREAS = {
    ProfileId.ADMINISTRADOR: "/admin/escorts",
    ProfileId.SECRETARIA: "/bbitamia/publicacion",
    ProfileId.PROFESOR: "/my/publicacion/misPublicaciones",
}
PHONE = {"width": 390, "height": 844}
FORBIDDEN = "No tienes permiso para entrar ahí"


@pytest.fixture
def provider(site: Site) -> Iterator[LocalProvider]:
    engine = make_engine(site.database_url)
    yield LocalProvider(engine=engine)
    engine.dispose()


def _account(db, provider, email: str, profile: ProfileId, **changes) -> User:
    return make_account(db, provider, email, profile=profile, password=PASSWORD, **changes)


def _login_form(page: Page, tab: str = "Ingresar"):
    return page.get_by_role("form", name=tab)


def sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    """Fill and send the sign-in form (the button is enabled once the page is live)."""
    page.goto("/login")
    form = _login_form(page)
    expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()  # the page is live
    form.get_by_label("Correo electrónico").fill(email)
    form.get_by_label("Contraseña").fill(password)
    form.get_by_role("button", name="Ingresar").click()


def _wait_without_session_cookie(page: Page, timeout_s: float = 10) -> None:
    """Wait until the browser has dropped its session cookie (it is HttpOnly: only the context sees it)."""
    deadline = time.monotonic() + timeout_s
    while SESSION_COOKIE in {c["name"] for c in page.context.cookies()}:
        assert time.monotonic() < deadline, "the session cookie was never cleared"
        page.wait_for_timeout(50)  # let the page's pending requests run between polls


def _expect_landing(page: Page, site: Site, profile: ProfileId) -> None:
    path, heading = LANDING[profile]
    # Sign-in ends with a full page load, which the static server answers at the folder's address.
    page.wait_for_url(re.compile(re.escape(f"{site.url}{path}") + "/?$"))
    # The app's own heading (inside its root): some guarded documents show the heading in their first
    # screen already (app.web.private_api), before the app runs and has its tab token.
    expect(page.locator("[data-is-root-theme]").get_by_role("heading", name=heading, level=1)).to_be_visible()


def _sign_up(page: Page, email: str, *, advertiser: bool, password: str = PASSWORD, confirm: str | None = None) -> None:
    page.goto("/login?modo=registro")
    form = _login_form(page, "Crear cuenta")
    expect(form.get_by_role("button", name="Crear cuenta")).to_be_enabled()
    form.get_by_label("Correo electrónico").fill(email)
    form.get_by_label("Nombre o apodo (opcional)").fill("Prueba")
    form.get_by_label("Contraseña", exact=True).fill(password)
    form.get_by_label("Repite la contraseña").fill(confirm if confirm is not None else password)
    form.get_by_label("Publicar mis avisos (anunciante)" if advertiser else "Ver avisos (cliente)").check()
    form.get_by_label(re.compile("Confirmo que soy mayor de 18 años")).check()
    form.get_by_role("button", name="Crear cuenta").click()


def test_every_login_tab_reads_whole_on_a_phone(browser: Browser, site: Site):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE)
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        page.goto("/login")
        expect(_login_form(page).get_by_role("button", name="Ingresar")).to_be_enabled()  # the page is live
        for label in ("Ingresar", "Crear cuenta", "Olvidé mi contraseña"):
            tab = page.get_by_role("button", name=label, exact=True).and_(page.locator("[aria-pressed]"))
            expect(tab).to_have_text(label)
            # Its words fit the tab, and the tab fits the row of tabs (which would clip it) and the screen.
            shown = tab.evaluate(
                "(tab) => { const box = tab.getBoundingClientRect(), row = tab.parentElement.getBoundingClientRect();"
                " return {scroll: tab.scrollWidth, client: tab.clientWidth, left: box.left, right: box.right,"
                " row_left: row.left, row_right: row.right}; }"
            )
            assert shown["scroll"] <= shown["client"], f"«{label}» is cut: {shown}"
            assert shown["row_left"] <= shown["left"] and shown["right"] <= shown["row_right"], f"«{label}»: {shown}"
            assert shown["left"] >= 0 and shown["right"] <= PHONE["width"], f"«{label}» is off the screen: {shown}"
    finally:
        context.close()


@pytest.mark.parametrize("profile", list(ProfileId), ids=[p.value for p in ProfileId])
def test_sign_up_verify_sign_in_and_land(page: Page, site: Site, db, provider, profile):
    email = f"alta-{profile.value}@correo.cl"
    sent_before = len(site.mailbox.to(email))
    _sign_up(page, email, advertiser=profile is ProfileId.PROFESOR)
    page.wait_for_url(f"{site.url}/login/auth/signup-sucessful")
    expect(page.get_by_role("heading", name="Un paso más")).to_be_visible()
    expect(page.get_by_text(email)).to_be_visible()

    # Signing in before confirming is refused; the link sent at sign-up is still the one to use.
    sign_in(page, email)
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["email-not-verified"])

    link = site.mailbox.wait_for_link(email, "verifyEmail", after=sent_before)
    page.goto(link.replace(site.url, ""))
    expect(page.get_by_role("status")).to_have_text("¡Listo! Tu correo quedó confirmado. Ya puedes ingresar.")
    page.goto(link.replace(site.url, ""))  # single use
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["invalid-action-code"])

    if profile in (ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA):
        # Staff profiles are given only by an administrator.
        admin = _account(db, provider, f"jefa-{profile.value}@correo.cl", ProfileId.ADMINISTRADOR)
        user = db.query(User).filter(User.email == email).one()
        accounts.set_profile(
            session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, profile=profile.value
        )

    sign_in(page, email)
    if profile in STAFF_PROFILES:
        pass_second_factor(page, db, email)  # first sign-in: the second factor's setup
    _expect_landing(page, site, profile)
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_visible()
    stored = page.evaluate("JSON.parse(window.localStorage.getItem('user'))")
    user = db.query(User).filter(User.email == email).one()
    assert stored["uid"] == user.uid and stored["display_name"] == "Prueba"
    assert email not in str(stored) and "password" not in str(stored).lower()  # display data only


def test_sign_up_and_sign_in_errors_reach_the_screen(page: Page, site: Site, db, provider):
    _account(db, provider, "existe@correo.cl", ProfileId.CLIENTE)
    # A used address gets exactly the screen of a new one (its owner is told by e-mail), so
    # nobody learns from the form who has an account.
    _sign_up(page, "existe@correo.cl", advertiser=False)
    page.wait_for_url(f"{site.url}/login/auth/signup-sucessful")
    expect(page.get_by_role("heading", name="Un paso más")).to_be_visible()
    expect(page.get_by_text("existe@correo.cl")).to_be_visible()
    _sign_up(page, "nueva-debil@correo.cl", advertiser=False, password="password1")
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["weak-password"])
    # What was typed is still there after the error.
    expect(_login_form(page, "Crear cuenta").get_by_label("Correo electrónico")).to_have_value("nueva-debil@correo.cl")
    _sign_up(page, "nueva-otra@correo.cl", advertiser=False, confirm="no-coincide-nunca")
    expect(page.get_by_role("alert")).to_have_text("Las contraseñas no coinciden.")

    # Wrong password and unknown e-mail: the same words, so nobody learns who has an account.
    sign_in(page, "existe@correo.cl", "clave-equivocada")
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["invalid-credential"])
    sign_in(page, "nadie-aqui@correo.cl", PASSWORD)
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["invalid-credential"])


def test_five_failures_give_too_many_requests(page: Page, site: Site, db, provider):
    """Three failures are free; then this browser is held back for a doubling delay the message
    names, and once it is over the right password gets in: nobody is locked out for long."""
    _account(db, provider, "insistente@correo.cl", ProfileId.CLIENTE)
    wrong = re.escape(AUTH_MESSAGES["invalid-credential"])
    held = r"Demasiados intentos\. Por seguridad, espera \d+ segundos? antes de volver a intentarlo\."
    alert = page.get_by_role("alert")
    for _ in range(3):
        sign_in(page, "insistente@correo.cl", "no-es-la-clave")
        expect(alert).to_have_text(AUTH_MESSAGES["invalid-credential"])
    for _ in range(10):  # the windows double, so a hold comes within a few more tries
        sign_in(page, "insistente@correo.cl", "no-es-la-clave")
        expect(alert).to_have_text(re.compile(f"^({wrong}|{held})$"))
        if re.fullmatch(held, alert.inner_text()):
            break
    else:
        pytest.fail("ten quick failures were never held back")
    landed = page.get_by_role("heading", name=LANDING[ProfileId.CLIENTE][1], level=1)
    for _ in range(120):  # a held attempt is not counted: try until the wait is over
        sign_in(page, "insistente@correo.cl")
        expect(alert.or_(landed)).to_be_visible()
        if landed.is_visible():
            break
        # Held, or landing after all: the hold may end while this attempt's answer is on its way.
        expect(alert.filter(has_text=re.compile(f"^{held}$")).or_(landed)).to_be_visible()
    _expect_landing(page, site, ProfileId.CLIENTE)


def test_password_reset_by_email(page: Page, site: Site, db, provider):
    email = "olvidadiza@correo.cl"
    _account(db, provider, email, ProfileId.PROFESOR)
    sent_before = len(site.mailbox.to(email))
    page.goto("/login?modo=recuperar")
    form = _login_form(page, "Recuperar contraseña")
    expect(form.get_by_role("button", name="Enviar enlace")).to_be_enabled()
    form.get_by_label("Correo electrónico").fill(email)
    form.get_by_role("button", name="Enviar enlace").click()
    expect(page.get_by_role("status")).to_contain_text("Si existe una cuenta con ese correo")

    link = site.mailbox.wait_for_link(email, "resetPassword", after=sent_before)
    page.goto(link.replace(site.url, ""))
    reset = page.get_by_role("form", name="Nueva contraseña")
    reset.get_by_label("Nueva contraseña", exact=True).fill("12345678")
    reset.get_by_label("Repite la nueva contraseña").fill("12345678")
    reset.get_by_role("button", name="Guardar contraseña").click()
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["weak-password"])
    reset.get_by_label("Nueva contraseña", exact=True).fill("volcan-osorno-2026")
    reset.get_by_label("Repite la nueva contraseña").fill("volcan-osorno-2026")
    reset.get_by_role("button", name="Guardar contraseña").click()
    expect(page.get_by_role("status")).to_have_text("Tu contraseña fue cambiada. Ya puedes ingresar con la nueva.")

    sign_in(page, email)
    expect(page.get_by_role("alert")).to_have_text(AUTH_MESSAGES["invalid-credential"])
    sign_in(page, email, "volcan-osorno-2026")
    _expect_landing(page, site, ProfileId.PROFESOR)


def test_sign_out_ends_the_session_in_every_tab(page: Page, site: Site, db, provider):
    _account(db, provider, "dos-pestanas@correo.cl", ProfileId.PROFESOR)
    sign_in(page, "dos-pestanas@correo.cl")
    _expect_landing(page, site, ProfileId.PROFESOR)
    other = page.context.new_page()
    other.goto(LANDING[ProfileId.PROFESOR][0])
    app_root = other.locator("[data-is-root-theme]")  # the app's own page, not the document's first screen
    expect(app_root.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()

    page.get_by_role("button", name="Cerrar sesión").click()
    page.wait_for_url(f"{site.url}/escorts")
    expect(page.get_by_role("link", name="Ingresar")).to_be_visible()
    # The other tab is signed out too: it reloads, its area refuses it, and its header changes.
    other.wait_for_url(re.compile(re.escape(f"{site.url}/escorts") + "/?$"))
    expect(other.get_by_role("link", name="Ingresar")).to_be_visible()
    expect(other.get_by_role("heading", name="Mis publicaciones", level=1)).to_have_count(0)
    # And the browser holds no session cookie any more.
    _wait_without_session_cookie(page)


def test_change_password_from_the_header(page: Page, site: Site, db, provider, browser: Browser):
    _account(db, provider, "cambia@correo.cl", ProfileId.CLIENTE)
    elsewhere = browser.new_context(base_url=site.url).new_page()
    sign_in(elsewhere, "cambia@correo.cl")
    _expect_landing(elsewhere, site, ProfileId.CLIENTE)
    sign_in(page, "cambia@correo.cl")
    _expect_landing(page, site, ProfileId.CLIENTE)

    page.get_by_role("button", name="Cambiar contraseña").click()
    dialog = page.get_by_role("dialog", name="Cambiar contraseña")
    dialog.get_by_label("Contraseña actual").fill("no-es-la-actual")
    dialog.get_by_label("Nueva contraseña", exact=True).fill("patagonia-azul-77")
    dialog.get_by_label("Repite la nueva contraseña").fill("patagonia-azul-77")
    dialog.get_by_role("button", name="Guardar").click()
    expect(dialog.get_by_role("alert")).to_have_text(AUTH_MESSAGES["wrong-password"])
    dialog.get_by_label("Contraseña actual").fill(PASSWORD)
    dialog.get_by_role("button", name="Guardar").click()
    expect(page.get_by_text("Cambiamos tu contraseña y cerramos tus otras sesiones.")).to_be_visible()
    expect(dialog).to_be_hidden()

    # This tab stays signed in; the other device is out at its next page.
    page.goto("/escorts/trans")
    expect(page.get_by_role("button", name="Cerrar sesión")).to_be_visible()
    elsewhere.goto("/escorts/trans")
    expect(elsewhere.get_by_role("link", name="Ingresar")).to_be_visible()
    elsewhere.context.close()


def test_a_ban_forces_an_open_session_out(page: Page, site: Site, db, provider):
    admin = _account(db, provider, "jefa-ban@correo.cl", ProfileId.ADMINISTRADOR)
    user = _account(db, provider, "vetada-ya@correo.cl", ProfileId.PROFESOR)
    sign_in(page, "vetada-ya@correo.cl")
    _expect_landing(page, site, ProfileId.PROFESOR)

    accounts.set_ban(session=db, provider=provider, actor=actor_of(admin), user_uid=user.uid, banned=True)
    # The tab is still open on the advertiser area; its next action signs it out.
    page.get_by_role("link", name="Trans").click()
    expect(page.get_by_text(AUTH_MESSAGES["user-disabled"])).to_be_visible()
    page.wait_for_url(f"{site.url}/escorts")
    expect(page.get_by_role("link", name="Ingresar")).to_be_visible()
    page.goto(AREAS[ProfileId.PROFESOR])
    page.wait_for_url(f"{site.url}/escorts")
    # The dead cookie is gone, so pages load normally; signing in again is refused with the same message.
    _wait_without_session_cookie(page)
    sign_in(page, "vetada-ya@correo.cl")
    expect(page.get_by_text(AUTH_MESSAGES["user-disabled"])).to_be_visible()


@pytest.mark.parametrize("caller", [None, *ProfileId], ids=["anonimo", *[p.value for p in ProfileId]])
def test_guarded_areas_refuse_every_wrong_profile(page: Page, site: Site, db, provider, caller):
    if caller is not None:
        _account(db, provider, f"guardia-{caller.value}@correo.cl", caller)
        sign_in(page, f"guardia-{caller.value}@correo.cl")
        if caller in STAFF_PROFILES:
            pass_second_factor(page, db, f"guardia-{caller.value}@correo.cl")
        _expect_landing(page, site, caller)
    for owner, path in AREAS.items():
        if owner == caller:
            continue
        page.goto(path)
        page.wait_for_url(f"{site.url}/escorts")
        expect(page.get_by_text(FORBIDDEN)).to_be_visible()
        expect(page.get_by_role("heading", name=LANDING[owner][1], level=1)).to_have_count(0)


def _stored_values(url: str) -> list[bytes]:
    """Every key and value Reflex wrote to the run's Redis database."""
    store = redis.Redis.from_url(url)
    values = []
    for key in store.scan_iter():
        values.append(key)
        kind = store.type(key)
        if kind == b"string":
            values.append(store.get(key) or b"")
        elif kind == b"hash":
            values.extend(b"%s=%s" % item for item in store.hgetall(key).items())
        elif kind == b"list":
            values.extend(store.lrange(key, 0, -1))
        elif kind in (b"set", b"zset"):
            values.extend(store.smembers(key) if kind == b"set" else store.zrange(key, 0, -1))
    return values


def test_the_session_is_an_httponly_cookie_that_nothing_stores(page: Page, site: Site, db, provider):
    _account(db, provider, "galleta@correo.cl", ProfileId.PROFESOR)
    sign_in(page, "galleta@correo.cl")
    _expect_landing(page, site, ProfileId.PROFESOR)
    cookie = {c["name"]: c for c in page.context.cookies()}[SESSION_COOKIE]
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
    token = cookie["value"]
    # Scripts cannot read it, and the browser's storage holds no token.
    assert SESSION_COOKIE + "=" not in page.evaluate("document.cookie")
    assert token not in page.evaluate("JSON.stringify({...window.localStorage, ...window.sessionStorage})")
    # A guarded action later on still works: the connection carries the cookie.
    page.goto("/my/publicacion/misPublicaciones")
    expect(page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
    # Reflex's state storage (Redis in this run) holds the connection's digest, never the token. The
    # worker holding the tab's state (Reflex's opportunistic lock, rxconfig.py) writes it back when its
    # hold ends: wait for it.
    deadline = time.monotonic() + 20
    while digest(token).encode() not in (stored := b"\n".join(_stored_values(site.redis_url))):
        assert time.monotonic() < deadline, "the scan must see the handshake headers Reflex stored"
        time.sleep(0.1)
    assert token.encode() not in stored
    for pickled in (Path(__file__).resolve().parents[2] / ".states").glob("**/*"):
        assert not pickled.is_file() or token.encode() not in pickled.read_bytes()
    assert token not in site.log_path.read_text(errors="replace")


def test_a_stolen_tab_token_without_the_cookie_is_refused(page: Page, site: Site, db, provider, browser: Browser):
    _account(db, provider, "robada@correo.cl", ProfileId.PROFESOR)
    sign_in(page, "robada@correo.cl")
    _expect_landing(page, site, ProfileId.PROFESOR)
    tab_token = page.evaluate("window.sessionStorage.getItem('token')")
    page.close()  # the victim's tab goes away; its Reflex client token is known to someone else
    thief = browser.new_context(base_url=site.url)
    thief.add_init_script(f"window.sessionStorage.setItem('token', {json.dumps(tab_token)})")
    tab = thief.new_page()
    tab.goto(LANDING[ProfileId.PROFESOR][0])
    tab.wait_for_url(f"{site.url}/escorts")
    expect(tab.get_by_text(FORBIDDEN)).to_be_visible()
    expect(tab.get_by_role("heading", name="Mis publicaciones", level=1)).to_have_count(0)
    assert tab.evaluate("window.sessionStorage.getItem('token')") == tab_token  # it really was that tab's token
    thief.close()


def test_a_sign_up_behind_a_busy_shared_address_succeeds_once_the_browser_proves_its_work(
    page: Page, site: Site, db, provider
):
    """Ten sign-ups this hour from the browser's address already (a carrier's shared one): the eleventh is
    not refused; the server asks for a proof of work, assets/proof.js finds it and sends the form again."""
    counters = Limiter(RedisStorage(site.redis_url, key_prefix=REDIS_KEY_PREFIX))
    secret = get_settings().secret_key
    for address in ("127.0.0.1", "::1"):  # whichever the browser reaches localhost by
        for _ in range(SIGN_UPS_PER_CLIENT.amount):
            assert counters.hit([(SIGN_UPS_PER_CLIENT, client_key(address, secret))]) == 0.0
    log_before = site.log_path.read_text()
    email = "tras-la-red-compartida@correo.cl"
    _sign_up(page, email, advertiser=False)
    page.wait_for_url(f"{site.url}/login/auth/signup-sucessful", timeout=60_000)
    expect(page.get_by_role("heading", name="Un paso más")).to_be_visible()
    assert db.query(User).filter(User.email == email).count() == 1
    new_log = site.log_path.read_text()[len(log_before) :]
    assert "past its hourly limit: proof of work missing or invalid" in new_log
    assert "already used" not in new_log
