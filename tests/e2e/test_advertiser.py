"""The advertiser's pages in a real browser: the listing wizard and "my listings".

The whole wizard with real photo uploads (a reload in the middle resumes at
the first unsaved step with the values kept), sent to review and approved
through the review service, then on its city page; pause and resume;
"Disponible AHORA" switching itself off; an upgrade request; a verification
request. The advertiser's browser carries a session opened through the
session service (the sign-in form has tests of its own).
"""

from __future__ import annotations

import io
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from sqlmodel import Session, select

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import Listing, ProfileId, User, utc_now
from app.pages.wizard import EDITING_NOTE
from app.seed import _ensure_catalogues
from app.services.staff.reviews import approve_listing
from app.services.users import create_user
from tests.e2e.conftest import Site, accept_age
from tests.factories import actor_of, make_account, make_listing, open_session

pytestmark = pytest.mark.e2e
LOW_TIER = "chicas-del-dia"  # below the seeded tiers, so the home's featured listings stay the seeded ones

MY_LISTINGS = "/my/publicacion/misPublicaciones"
WIZARD = "/my/publicacion/nuevaPublicacion"
SAVE = "Guardar y seguir"
UPLINK_BYTES_PER_S = 300_000
# Cities no other test file counts listings in (the e2e database is shared by the whole run).
WIZARD_CITY = "rancagua"


@pytest.fixture
def db(db: Session) -> Session:
    """The running site's database, with the catalogues the wizard offers."""
    _ensure_catalogues(db)
    return db


def _advertiser(db: Session, site: Site, page: Page, email: str) -> User:
    """An advertiser account whose session cookie this browser holds."""
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=ProfileId.PROFESOR)
    token = open_session(db, user.uid)
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": token, "url": site.url, "httpOnly": True, "sameSite": "Lax"}]
    )
    return user


def _jpeg(folder: Path, name: str, color: tuple[int, int, int]) -> Path:
    """A 900×1200 JPEG: ``color`` with noise, so it weighs a few hundred kilobytes like a real photo."""
    noise = Image.effect_noise((900, 1200), 60).convert("RGB")
    buffer = io.BytesIO()
    Image.blend(Image.new("RGB", (900, 1200), color), noise, 0.5).save(buffer, "JPEG", quality=90)
    path = folder / name
    path.write_bytes(buffer.getvalue())
    return path


def _at_step(page: Page, number: int) -> None:
    expect(page.get_by_text(re.compile(rf"^Paso {number} de 9"))).to_be_visible()


def _save(page: Page, number: int) -> None:
    page.get_by_role("button", name=SAVE).click()
    _at_step(page, number + 1)


def _card(page: Page, name: str):
    return page.get_by_role("article", name=name)


def test_the_whole_wizard_then_review_then_the_city_page(page: Page, site: Site, db, tmp_path):
    user = _advertiser(db, site, page, "asistente@correo.cl")
    page.goto(WIZARD)
    expect(page.get_by_role("heading", name="Nueva publicación", level=1)).to_be_visible()
    _at_step(page, 1)

    # 1. Identity: a wrong RUT is refused under its field; the right one goes through.
    page.get_by_label("RUT chileno").check()
    page.get_by_label("RUT", exact=True).fill("12.345.678-9")
    page.get_by_label("Fecha de nacimiento (dd-mm-aaaa)").fill("1996/04/12")  # still read, shown day first
    page.get_by_label("Nacionalidad").select_option("Chile")
    page.get_by_role("button", name=SAVE).click()
    expect(page.get_by_label("RUT", exact=True)).to_have_attribute("aria-invalid", "true")
    _at_step(page, 1)
    page.get_by_label("RUT", exact=True).fill("12.345.678-5")
    _save(page, 1)

    # 2. Location: the communes follow the city.
    page.get_by_label("Ciudad").select_option(WIZARD_CITY)
    page.get_by_label("Comuna").select_option("Codegua")
    page.get_by_label("Mujeres").check()
    _save(page, 2)

    # A reload (or another device) resumes at the first unsaved step, with what was saved.
    page.reload()
    _at_step(page, 3)
    page.get_by_role("button", name="Atrás").click()
    _at_step(page, 2)
    expect(page.get_by_label("Ciudad")).to_have_value(WIZARD_CITY)
    expect(page.get_by_label("Comuna")).to_have_value("Codegua")
    page.get_by_role("button", name="Atrás").click()
    _at_step(page, 1)
    expect(page.get_by_label("Fecha de nacimiento (dd-mm-aaaa)")).to_have_value("12-04-1996")
    page.get_by_role("navigation", name="Pasos de la publicación").get_by_role("button", name="3. Categoría").click()
    _at_step(page, 3)

    # 3. Tier and type.
    page.get_by_role("combobox", name="Categoría").select_option(index=1)
    page.get_by_role("combobox", name="Tipo").select_option(index=1)
    _save(page, 3)

    # 4. The listing itself.
    page.get_by_label("Nombre del aviso").fill("Rocío Sur")
    page.get_by_label("Edad").fill("27")
    page.get_by_label("Descripción").fill("Hola, soy Rocío: tranquila, puntual y muy simpática. Te espero en Rancagua.")
    page.get_by_label("Culonas").check()
    page.locator(".wizard-services input[type=checkbox]").first.check()
    _save(page, 4)

    # 5. Rates, shown as money.
    page.get_by_label("Tarifa por hora").fill("85000")
    page.get_by_label("Tarifa por hora").press("Tab")
    expect(page.get_by_text("$85.000")).to_be_visible()
    _save(page, 5)

    # 6. Availability: Monday from 10 to 20, and "De pasada" dates picked in the calendar, shown as día-mes-año.
    page.get_by_label("No atiendo el Lunes").uncheck()
    page.get_by_label("Desde el Lunes").fill("10:00")
    page.get_by_label("Hasta el Lunes").fill("20:00")
    arrival, departure = date.today() + timedelta(days=1), date.today() + timedelta(days=3)
    page.get_by_label("Elegir llego el en el calendario").fill(arrival.isoformat())
    page.get_by_label("Elegir me voy el en el calendario").fill(departure.isoformat())
    expect(page.get_by_label("Llego el (dd-mm-aaaa)")).to_have_value(arrival.strftime("%d-%m-%Y"))
    expect(page.get_by_label("Me voy el (dd-mm-aaaa)")).to_have_value(departure.strftime("%d-%m-%Y"))
    expect(page.get_by_label("Llego el (dd-mm-aaaa)")).to_have_attribute("placeholder", "dd-mm-aaaa")
    _save(page, 6)

    # 7. Photos: two real JPEGs and a text file named .jpg, processed by the site's worker; the bad one gets its own
    # message, the others stay (each waited for as its thumbnail appears).
    fake = tmp_path / "falsa.jpg"
    fake.write_text("esto no es una foto")
    files = [_jpeg(tmp_path, "uno.jpg", (200, 60, 90)), fake, _jpeg(tmp_path, "dos.jpg", (40, 90, 160))]
    # With a mouse, photos can be dragged onto the zone.
    expect(page.get_by_text("Arrastra tus fotos aquí o haz clic para elegirlas.")).to_be_visible()
    expect(page.get_by_text("Elige fotos", exact=True)).to_be_hidden()
    page.get_by_role("button", name=SAVE).click()
    expect(page.get_by_text("Sube al menos una foto.")).to_be_visible()
    # A slow uplink, so the progress bar is there long enough to be seen.
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": UPLINK_BYTES_PER_S},
    )
    page.locator(".upload-zone input[type=file]").set_input_files([str(path) for path in files])
    expect(page.get_by_role("progressbar")).to_be_visible()
    expect(page.get_by_role("progressbar")).to_have_count(0)
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    listed = page.get_by_role("list", name="Tus fotos").get_by_role("listitem")
    photos = listed.filter(has=page.get_by_role("img"))
    expect(photos).to_have_count(2)
    # The file the worker refused is in the photo list with its reason, until it is dismissed.
    refused = listed.filter(has_text="falsa.jpg")
    expect(refused).to_contain_text("No se pudo procesar: El archivo no es una foto válida")
    refused.get_by_role("button", name="Descartar falsa.jpg").click()
    expect(refused).to_have_count(0)
    expect(photos.first.get_by_text("Portada")).to_be_visible()
    # The cover is the first photo: choosing another one moves it to the front; arrows move one place.
    second = photos.nth(1).get_by_role("img").get_attribute("src")
    photos.nth(1).get_by_role("button", name="Hacer portada").click()
    expect(photos.first.get_by_role("img")).to_have_attribute("src", second)
    expect(photos.first.get_by_text("Portada")).to_be_visible()
    photos.first.get_by_role("button", name="Mover después").click()
    expect(photos.nth(1).get_by_role("img")).to_have_attribute("src", second)
    _save(page, 7)

    # 8. Contact.
    page.get_by_label("Teléfono celular").fill("+56 9 8765 1234")
    _save(page, 8)

    # 9. Review and send: the summary shows the photos themselves, the cover first.
    expect(page.get_by_role("table", name="Resumen de tu publicación")).to_contain_text("Rocío Sur")
    thumbnails = page.get_by_role("list", name="Fotos de tu publicación").get_by_role("img")
    expect(thumbnails).to_have_count(2)
    expect(thumbnails.first).to_have_attribute("alt", "Foto 1, portada")
    expect(thumbnails.nth(1)).to_have_attribute("alt", "Foto 2")
    expect(thumbnails.nth(1)).to_have_attribute("src", second)  # moved after the cover in step 7
    for thumbnail in thumbnails.all():
        thumbnail.scroll_into_view_if_needed()
        expect(thumbnail).to_have_js_property("complete", True)
        assert thumbnail.evaluate("img => img.naturalWidth") > 0
    page.get_by_role("button", name="Enviar a revisión").click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}{MY_LISTINGS}") + "/?$"))
    expect(page.get_by_text("Tu publicación quedó en revisión")).to_be_visible()
    expect(_card(page, "Rocío Sur").get_by_text("En revisión", exact=True)).to_be_visible()

    listing = db.exec(select(Listing).where(Listing.owner_uid == user.uid)).one()
    reviewer = create_user(
        session=db,
        data={"email": "revisora@correo.cl", "display_name": "Revisora", "profile_uid": ProfileId.SECRETARIA.value},
    )
    approve_listing(session=db, actor=actor_of(reviewer), listing_uid=listing.uid)

    page.goto(f"/escorts/{WIZARD_CITY}")
    accept_age(page)
    expect(page.get_by_text("Rocío Sur").first).to_be_visible()


def test_pause_and_resume(page: Page, site: Site, db):
    user = _advertiser(db, site, page, "pausa@correo.cl")
    make_listing(db, user, name="Valeska Pausa", city="valdivia", tier=LOW_TIER)
    make_listing(db, user, name="Valeria Testigo", city="valdivia", tier=LOW_TIER)  # shows the city page has loaded
    page.goto(MY_LISTINGS)
    card = _card(page, "Valeska Pausa")
    copy_city = card.get_by_role("form", name="Copiar a otra ciudad").get_by_role("combobox")
    copy_city.select_option("talca")  # chosen, not sent
    card.get_by_role("button", name="Pausar").click()
    expect(card.get_by_text("Pausada", exact=True)).to_be_visible()
    # The paused listing moved to the top of the list; the city chosen on its card moved with it.
    expect(page.get_by_role("article").first).to_have_accessible_name("Valeska Pausa")
    expect(copy_city).to_have_value("talca")
    expect(
        _card(page, "Valeria Testigo").get_by_role("form", name="Copiar a otra ciudad").get_by_role("combobox")
    ).to_have_value("")

    page.goto("/escorts/valdivia")
    accept_age(page)
    expect(page.get_by_text("Valeria Testigo").first).to_be_visible()
    expect(page.get_by_text("Valeska Pausa")).to_have_count(0)

    page.goto(MY_LISTINGS)
    _card(page, "Valeska Pausa").get_by_role("button", name="Reanudar").click()
    expect(_card(page, "Valeska Pausa").get_by_text("Publicada", exact=True)).to_be_visible()
    page.goto("/escorts/valdivia")
    expect(page.get_by_text("Valeska Pausa").first).to_be_visible()

    # Editing a published listing says the published version stays until the changes are approved.
    page.goto(MY_LISTINGS)
    _card(page, "Valeska Pausa").get_by_role("link", name="Editar").click()
    expect(page.get_by_role("heading", name="Editar publicación", level=1)).to_be_visible()
    expect(page.get_by_role("note")).to_have_text(EDITING_NOTE)

    # A rejected listing opened in the wizard is being edited too, not a new one.
    rejected = make_listing(db, user, name="Rebeca Rechazada", city="valdivia", tier=LOW_TIER, status="rechazada")
    page.goto(f"{WIZARD}?id={rejected.uid}")
    expect(page.get_by_role("heading", name="Editar publicación", level=1)).to_be_visible()


def test_available_now_switches_itself_off(page: Page, site: Site, db):
    user = _advertiser(db, site, page, "ahora@correo.cl")
    listing = make_listing(db, user, name="Antonia Ahora", city="chillan", tier=LOW_TIER)
    # Another listing available for hours yet: shows the tab has loaded.
    make_listing(
        db, user, name="Carla Testigo", city="chillan", tier=LOW_TIER, available_until=utc_now() + timedelta(hours=5)
    )
    page.goto(MY_LISTINGS)
    card = _card(page, "Antonia Ahora")
    card.get_by_role("form", name="Disponible AHORA").get_by_role("combobox").select_option("1")
    card.get_by_role("button", name="Activar").click()
    expect(card.get_by_text(re.compile("Disponible ahora hasta las"))).to_be_visible()

    page.goto("/escorts/chillan/disponible-ahora")
    accept_age(page)
    expect(page.get_by_text("Antonia Ahora").first).to_be_visible()

    # The browser's clock cannot be moved: the window ends in the database instead.
    stored = db.get(Listing, listing.uid)
    db.refresh(stored)
    stored.available_until = utc_now() - timedelta(minutes=1)
    db.add(stored)
    db.commit()

    page.goto(MY_LISTINGS)
    expect(_card(page, "Antonia Ahora")).to_be_visible()
    expect(_card(page, "Antonia Ahora").get_by_text(re.compile("Disponible ahora hasta las"))).to_have_count(0)
    page.goto("/escorts/chillan/disponible-ahora")
    expect(page.get_by_text("Carla Testigo").first).to_be_visible()
    expect(page.get_by_text("Antonia Ahora")).to_have_count(0)


def test_an_upgrade_request_shows_as_requested(page: Page, site: Site, db):
    user = _advertiser(db, site, page, "mejora@correo.cl")
    make_listing(db, user, name="Macarena Mejora", city="copiapo", tier=LOW_TIER)
    page.goto(MY_LISTINGS)
    _card(page, "Macarena Mejora").get_by_role("button", name="Mejorar").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Todavía no pediste mejoras")).to_be_visible()
    dialog.get_by_role("button", name=re.compile("^Pedir ")).first.click()
    expect(dialog).to_have_count(0)
    card = _card(page, "Macarena Mejora")
    expect(card.get_by_role("list", name="Mejoras por pagar")).to_contain_text("esperando tu pago")
    card.get_by_role("button", name="Mejorar").click()
    upgrades = dialog.get_by_role("table", name="Tus mejoras")
    expect(upgrades.get_by_text("Solicitada", exact=True)).to_be_visible()


def test_a_verification_request_shows_its_state(page: Page, site: Site, db, tmp_path):
    user = _advertiser(db, site, page, "verifica@correo.cl")
    make_listing(db, user, name="Victoria Verifica", city="copiapo", tier=LOW_TIER)
    page.goto(MY_LISTINGS)
    _card(page, "Victoria Verifica").get_by_role("button", name="Verificar").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("sosteniendo un papel con el nombre del sitio y la fecha de hoy")).to_be_visible()
    dialog.locator("input[type=file]").set_input_files(str(_jpeg(tmp_path, "yo.jpg", (120, 120, 120))))
    expect(dialog.get_by_role("status").filter(has_text="Estado de tu solicitud")).to_contain_text("Solicitada")


def test_copy_to_another_city_and_delete_with_confirmation(page: Page, site: Site, db):
    user = _advertiser(db, site, page, "copia@correo.cl")
    make_listing(db, user, name="Camila Copia", city="valdivia", tier=LOW_TIER)
    make_listing(db, user, name="Dora Borrar", city="valdivia", tier=LOW_TIER, photos=0)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(MY_LISTINGS)

    # Deleting asks first; cancelling keeps the listing.
    _card(page, "Dora Borrar").get_by_role("button", name="Eliminar").click()
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_contain_text("¿Eliminar esta publicación?")
    confirm.get_by_role("button", name="Cancelar").click()
    expect(confirm).to_have_count(0)
    _card(page, "Dora Borrar").get_by_role("button", name="Eliminar").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Sí, eliminar").click()
    expect(_card(page, "Dora Borrar")).to_have_count(0)
    expect(_card(page, "Camila Copia")).to_be_visible()

    # A copy is a new draft in the other city, continued in the wizard where the commune is chosen.
    copy_form = _card(page, "Camila Copia").get_by_role("form", name="Copiar a otra ciudad")
    copy_form.get_by_role("combobox").select_option("talca")
    expect(copy_form.get_by_role("combobox")).to_have_value("talca")
    visited: list[str] = []
    page.on("framenavigated", lambda frame: visited.append(frame.url) if frame == page.main_frame else None)
    copy_form.get_by_role("button", name="Copiar").click()
    try:
        page.wait_for_url(re.compile(re.escape(f"{site.url}{WIZARD}") + r"/?\?id=\w+"))
    except PlaywrightTimeoutError as exc:
        # Say what the page showed instead of the wizard (a reconnect here once cleared the chosen city,
        # before guarded_content kept the page over it: tests/e2e/test_write_in_flight.py).
        notices = page.locator("[data-sonner-toast], [role=alert]").all_inner_texts()
        chosen = copy_form.get_by_role("combobox").input_value() if copy_form.count() else "(no form)"
        db.expire_all()
        stored = [(row.city_slug, row.status) for row in db.exec(select(Listing).where(Listing.owner_uid == user.uid))]
        raise AssertionError(
            f"no wizard after Copiar: at {page.url}, notices {notices}, city chosen {chosen!r},"
            f" websockets opened {len(sockets)}, pages visited since {visited}, listings stored {stored}"
        ) from exc
    _at_step(page, 2)
    expect(page.get_by_label("Ciudad")).to_have_value("talca")
