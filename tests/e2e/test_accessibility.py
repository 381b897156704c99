"""axe-core over the pages people use, on a phone and a desktop: 0 serious or critical violations.

Public pages on a first visit (the 18+ notice open) and as a returning visitor; the
server-rendered first screen before any script runs; /login, also with its errors shown;
every step of the listing wizard, also with errors shown; "my listings" with its
dialogs open; a staff table with its edit dialog open; the review queue; the notice choices, the
administrator's settings, a card waiting for payment with its "Mejorar" dialog, and the upgrades
desk. Every state is audited once the app runs it, and all of a test's violations are listed
together when it fails. Data comes from the services; every browser carries a session opened through the
session service.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ProfileId, User
from app.routes import ADMIN_SETTINGS, ADMIN_TASKS, ADMIN_UPGRADES, ADVERTISER_NOTICES, WIZARD_LISTING_PARAM
from app.seed import _ensure_catalogues
from app.services import listing_drafts, upgrades
from app.states.public import AGE_COOKIE
from app.storage.local import LocalStorage, PrivateLocalStorage
from tests.e2e.axe import serious_violations
from tests.e2e.conftest import AREA_CITY, CITY, Site
from tests.factories import (
    make_account,
    make_listing,
    open_session,
    processed_clip,
    tier_upgrade,
    wizard_draft,
)
from tests.video_samples import h264_mp4

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = {"telefono": PHONE, "escritorio": DESKTOP}
WIZARD = "/my/publicacion/nuevaPublicacion"
MY_LISTINGS = "/my/publicacion/misPublicaciones"
SAVE = "Guardar y seguir"
AXE_CITY = "ovalle"  # no other test file counts listings there


@pytest.fixture
def db(db: Session) -> Session:
    """The running site's database, with the catalogues the wizard offers."""
    _ensure_catalogues(db)
    return db


@pytest.fixture(params=sorted(VIEWPORTS))
def audited(request, browser: Browser, site: Site) -> Iterator[BrowserContext]:
    """A context that lets axe-core in (CSP bypassed here only), at a phone's or a desktop's size."""
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=VIEWPORTS[request.param], bypass_csp=True)
    context.set_default_timeout(20_000)
    yield context
    context.close()


def _live(page: Page) -> None:
    """Wait until the app has taken over from the server's first screen."""
    page.locator("#vista-previa").wait_for(state="detached")
    expect(page.locator("main").first).to_be_visible()


def _sign_in(db: Session, context: BrowserContext, site: Site, email: str, profile: ProfileId) -> User:
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=profile)
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )
    return user


def _photo() -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((900, 1200), 60).convert("RGB").save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def _draft(db: Session, site: Site, owner: User, name: str) -> str:
    """A draft saved through step 8 with the wizard's own services (one real photo); its uid."""
    media = LocalStorage(site.log_path.parent / "media")
    return wizard_draft(db, media, owner, name=name, city=AXE_CITY, phone="+56 9 6200 0001", photo=_photo())


def _assert_none(found: list[str]) -> None:
    assert not found, f"{len(found)} serious or critical axe violations:\n" + "\n".join(found)


def test_public_pages_first_visit_and_returning(audited: BrowserContext, site: Site):
    directory = [
        "/",
        "/escorts",
        f"/escorts/{CITY}",
        f"/escorts/{CITY}/vip",
        "/escorts/trans",
        f"/escorts/trans/{CITY}",
        f"/escort/{site.uids['diamante']}",
        f"/escort/{site.uids['video']}",  # with a clip after the photos
    ]
    legal = ["/disclaimer/report", "/disclaimer/privacidad", "/favoritas"]
    found: list[str] = []
    page = audited.new_page()
    for path in directory:  # a first visit: the 18+ notice is open
        page.goto(path)
        _live(page)
        expect(page.get_by_role("dialog")).to_be_visible()
        found += serious_violations(page, "primera visita")
    audited.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    for path in directory + legal:
        page.goto(path)
        _live(page)
        found += serious_violations(page)
    # The static pages, plain HTML: a commune's with its way back to the city.
    for path in ("/escorts-ssg", f"/escorts-ssg/{CITY}", f"/escorts-ssg/{AREA_CITY}/concon"):
        page.goto(path)
        expect(page.locator("main")).to_be_visible()
        found += serious_violations(page)
    _assert_none(found)


def test_the_first_screen_before_any_script(browser: Browser, site: Site):
    """What the served document shows until the app runs: every rule holds there too."""
    found: list[str] = []
    for viewport in VIEWPORTS.values():
        context = browser.new_context(base_url=site.url, locale="es-CL", viewport=viewport, bypass_csp=True)
        try:
            page = context.new_page()
            # The app's modules never load, so the page stays on the server's first screen.
            page.route("**/_next/**", lambda route: route.abort())
            page.route("**/*.js", lambda route: route.abort())
            for path in ("/escorts", f"/escorts/{CITY}", "/escorts/trans"):
                page.goto(path)
                expect(page.locator("#vista-previa")).to_be_attached()
                found += serious_violations(page, "sin scripts")
        finally:
            context.close()
    _assert_none(found)


def test_login_with_and_without_errors(audited: BrowserContext, no_earlier_attempts):
    page = audited.new_page()
    page.goto("/login")
    form = page.get_by_role("form", name="Ingresar")
    expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()
    found = serious_violations(page)
    form.get_by_label("Correo electrónico").fill("nadie@correo.cl")
    form.get_by_label("Contraseña").fill("no-es-la-clave-1")
    form.get_by_role("button", name="Ingresar").click()
    expect(page.get_by_role("alert").first).to_be_visible()
    found += serious_violations(page)
    _assert_none(found)


def test_every_wizard_step_with_and_without_errors(audited: BrowserContext, site: Site, db: Session, request):
    viewport = request.node.callspec.params["audited"]
    owner = _sign_in(db, audited, site, f"axe-asistente-{viewport}@correo.cl", ProfileId.PROFESOR)
    page = audited.new_page()
    found: list[str] = []

    # A new listing: step 1 as it opens, then sent empty, with its messages.
    page.goto(WIZARD)
    expect(page.get_by_text("Paso 1 de 9")).to_be_visible()
    found += serious_violations(page, "paso 1")
    page.get_by_role("button", name=SAVE).click()
    expect(page.locator("[aria-invalid=true]").first).to_be_visible()
    found += serious_violations(page, "paso 1 con errores")
    page.get_by_role("radio", name="Pasaporte").check()  # its own field shows, the RUT goes
    expect(page.get_by_label("Número de pasaporte")).to_be_visible()
    found += serious_violations(page, "paso 1 con pasaporte")

    # A draft saved through step 8: every step, reached through the list of steps.
    uid = _draft(db, site, owner, f"Axe {viewport.capitalize()}")
    page.goto(f"{WIZARD}?{WIZARD_LISTING_PARAM}={uid}")
    expect(page.get_by_text("Paso 9 de 9")).to_be_visible()
    found += serious_violations(page, "paso 9")
    steps = page.get_by_role("navigation", name="Pasos de la publicación")
    for number in range(1, 9):
        steps.get_by_role("button").nth(number - 1).click()
        expect(page.get_by_text(f"Paso {number} de 9")).to_be_visible()
        found += serious_violations(page, f"paso {number}")
        if number == 4:  # with its messages: the texts emptied, then sent
            page.get_by_label("Nombre del aviso").fill("")
            page.get_by_label("Descripción").fill("")
            page.get_by_role("button", name=SAVE).click()
            expect(page.locator("[aria-invalid=true]").first).to_be_visible()
            found += serious_violations(page, "paso 4 con errores")
    _assert_none(found)


def test_my_listings_with_its_dialogs(audited: BrowserContext, site: Site, db: Session, request):
    viewport = request.node.callspec.params["audited"]
    owner = _sign_in(db, audited, site, f"axe-mis-{viewport}@correo.cl", ProfileId.PROFESOR)
    name = f"Axe Mía {viewport.capitalize()}"
    make_listing(db, owner, name=name, city=AXE_CITY, tier="chicas-del-dia")
    page = audited.new_page()
    page.goto(MY_LISTINGS)
    card = page.get_by_role("article", name=name)
    expect(card).to_be_visible()
    found = serious_violations(page)
    for button in ("Mejorar", "Estadísticas", "Verificar"):
        card.get_by_role("button", name=button).click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        found += serious_violations(page, f"diálogo {button}")
        dialog.get_by_role("button", name="Cerrar").click()
        expect(dialog).to_have_count(0)
    _assert_none(found)


def test_a_staff_table_with_its_dialog_and_the_review_queue(audited: BrowserContext, site: Site, db: Session, request):
    viewport = request.node.callspec.params["audited"]
    owner = make_account(
        db, LocalProvider(engine=db.get_bind()), f"axe-cola-{viewport}@correo.cl", profile=ProfileId.PROFESOR
    )
    uid = _draft(db, site, owner, f"Axe Cola {viewport.capitalize()}")
    processed_clip(  # the queue shows it playable beside the photos
        db,
        uid,
        storage=LocalStorage(site.log_path.parent / "media"),
        private_storage=PrivateLocalStorage(site.log_path.parent / "private"),
        source=h264_mp4(site.log_path.parent / "samples", name=f"axe-{viewport}.mp4", size="640x360", seconds=1),
        approved=False,
    )
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    _sign_in(db, audited, site, f"axe-admin-{viewport}@correo.cl", ProfileId.ADMINISTRADOR)
    page = audited.new_page()
    found: list[str] = []

    page.goto("/admin/usuarios")
    expect(page.get_by_role("heading", name="Usuarios", level=1)).to_be_visible()
    page.get_by_label("Buscar por correo").fill(f"axe-cola-{viewport}")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text=f"axe-cola-{viewport}@correo.cl")
    expect(row).to_have_count(1)
    found += serious_violations(page)
    row.get_by_role("button", name="Editar").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    found += serious_violations(page, "diálogo Editar")

    page.goto("/admin/revisarPublicacion")
    item = page.get_by_role("article", name=f"Axe Cola {viewport.capitalize()}")
    expect(item.get_by_label("Video enviado 1")).to_be_visible()
    found += serious_violations(page)
    _assert_none(found)


def test_the_notice_choices_the_settings_and_a_card_waiting_for_payment(
    audited: BrowserContext, site: Site, db: Session, request
):
    viewport = request.node.callspec.params["audited"]
    owner = _sign_in(db, audited, site, f"axe-pago-{viewport}@correo.cl", ProfileId.PROFESOR)
    name = f"Axe Pago {viewport.capitalize()}"
    listing = make_listing(db, owner, name=name, city=AXE_CITY, tier="platino")
    service = tier_upgrade(db, "diamante", name=f"Axe Diamante {viewport}", price_clp=59990)
    db.add(service)
    db.commit()
    requested = upgrades.request_upgrade(
        session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid
    )
    page = audited.new_page()
    page.goto(MY_LISTINGS)
    card = page.get_by_role("article", name=name)
    expect(card.get_by_text("Referencia de pago")).to_be_visible()
    found = serious_violations(page)
    # Its "Mejorar" dialog names the reference instead of offering that upgrade again.
    card.get_by_role("button", name="Mejorar").click()
    expect(page.get_by_role("dialog").get_by_text(requested.payment_code, exact=True)).to_be_visible()
    found += serious_violations(page, "diálogo Mejorar con una mejora pedida")
    page.goto(ADVERTISER_NOTICES)
    expect(page.get_by_role("heading", name="Mi cuenta: avisos por correo", level=1)).to_be_visible()
    found += serious_violations(page)

    _sign_in(db, audited, site, f"axe-ajustes-{viewport}@correo.cl", ProfileId.ADMINISTRADOR)
    page.goto(ADMIN_SETTINGS)
    expect(page.get_by_label("Instrucciones de pago")).to_be_visible()
    found += serious_violations(page)
    # The upgrades desk with that request on it.
    page.goto(ADMIN_UPGRADES)
    expect(page.get_by_role("row").filter(has_text=requested.payment_code)).to_be_visible()
    found += serious_violations(page)
    # The background work's page, its two tables drawn.
    page.goto(ADMIN_TASKS)
    expect(page.get_by_role("table")).to_have_count(2)
    found += serious_violations(page)
    _assert_none(found)
