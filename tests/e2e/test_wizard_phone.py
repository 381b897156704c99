"""The whole listing wizard on a 390×844 phone, as a first-time advertiser fills it.

Every step fits the screen (no sideways scrolling); every input has a visible
border; a step sent empty shows all of its messages at once and a field's
message goes as soon as that field changes; only the document chosen (RUT or
passport) is asked for; a birth date written the Chilean way ("12-04-1996") is
accepted and shown back that way; a double click on "Guardar y seguir" moves one
step, never submitting the next step empty; hours typed into a day open it and
are kept; the photo step says "Elige fotos" (nothing can be dragged on a phone),
its progress bar has the site's colours, "Guardar y seguir" waits for a photo
upload from the moment the files are chosen, and a file the browser refuses is
listed with its reason. Once sent, the verification dialog says "Elige la foto" too.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, Route, expect
from sqlmodel import Session

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ProfileId
from app.seed import _ensure_catalogues
from app.services.photos import MAX_BYTES
from tests.e2e.conftest import Site
from tests.factories import make_account, open_session

pytestmark = pytest.mark.e2e
PHONE = {"width": 390, "height": 844}
WIZARD = "/my/publicacion/nuevaPublicacion"
SAVE = "Guardar y seguir"
CITY, COMMUNE = "los-angeles", "Coronel"  # no other test file counts listings there
UPLINK_BYTES_PER_S = 200_000


@pytest.fixture
def phone(browser: Browser, site: Site, db: Session) -> Page:
    """An advertiser's browser at a phone's size, signed in through the session service."""
    _ensure_catalogues(db)
    user = make_account(db, LocalProvider(engine=db.get_bind()), "telefono@correo.cl", profile=ProfileId.PROFESOR)
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(20_000)
    context.add_cookies(
        [
            {
                "name": SESSION_COOKIE,
                "value": open_session(db, user.uid),
                "url": site.url,
                "httpOnly": True,
                "sameSite": "Lax",
            }
        ]
    )
    tab = context.new_page()
    yield tab
    context.close()


def _at_step(page: Page, number: int) -> None:
    expect(page.get_by_text(re.compile(rf"^Paso {number} de 9"))).to_be_visible()


def _fits(page: Page, where: str) -> None:
    """No sideways scrolling: the document is no wider than the screen."""
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{where}: the page is {widths[0]} px wide on a {widths[1]} px screen"


def _bordered(page: Page, where: str) -> None:
    """Every text-like control of the form has a visible border and an opaque background."""
    styles = page.locator(
        "form.wizard-form :is(input:not([type=checkbox], [type=radio], [type=hidden], [type=file], [type=date]),"
        " select, textarea)"
    ).evaluate_all(
        "els => els.map(e => { const s = getComputedStyle(e);"
        " return [e.name, s.borderTopWidth, s.borderTopStyle, s.borderTopColor, s.backgroundColor]; })"
    )
    assert styles, where
    for name, width, style, color, background in styles:
        assert float(width.removesuffix("px")) >= 1 and style == "solid", f"{where}: {name} has no border"
        assert color not in ("transparent", "rgba(0, 0, 0, 0)"), f"{where}: {name} has an invisible border"
        assert background not in ("transparent", "rgba(0, 0, 0, 0)"), f"{where}: {name} has no background"


def _save(page: Page, number: int) -> None:
    page.get_by_role("button", name=SAVE).click()
    _at_step(page, number + 1)
    _fits(page, f"paso {number + 1}")


def _jpeg(folder: Path, name: str = "retrato.jpg") -> Path:
    buffer = io.BytesIO()
    Image.effect_noise((900, 1200), 60).convert("RGB").save(buffer, "JPEG", quality=90)
    path = folder / name
    path.write_bytes(buffer.getvalue())
    return path


def test_the_whole_wizard_on_a_phone(phone: Page, tmp_path):
    page = phone
    page.goto(WIZARD)
    _at_step(page, 1)
    _fits(page, "paso 1")
    _bordered(page, "paso 1")
    assert page.locator("[aria-describedby='']").count() == 0
    assert page.locator("[autocomplete='']").count() == 0
    # The calendar beside a date is a small button, not a cut-off date field.
    picker = page.get_by_label("Elegir fecha de nacimiento en el calendario").bounding_box()
    assert picker is not None and picker["width"] <= 48 and picker["x"] + picker["width"] <= PHONE["width"]

    # Only the document chosen is asked for: RUT until "Pasaporte" is chosen.
    rut, passport = page.get_by_label("RUT", exact=True), page.get_by_label("Número de pasaporte")
    expect(page.get_by_role("radio", name="RUT chileno")).to_be_checked()
    expect(rut).to_be_visible()
    expect(passport).to_be_hidden()
    page.get_by_role("radio", name="Pasaporte").check()
    expect(passport).to_be_visible()
    expect(rut).to_be_hidden()
    page.get_by_role("radio", name="RUT chileno").check()
    expect(rut).to_be_visible()
    expect(passport).to_be_hidden()

    # Sent empty: every field's message at once, each under its field; the browser's own checks never speak.
    page.get_by_role("button", name=SAVE).click()
    born = page.get_by_label("Fecha de nacimiento (dd-mm-aaaa)")
    expect(born).to_have_attribute("placeholder", "dd-mm-aaaa")
    nationality = page.get_by_label("Nacionalidad")
    for field in (rut, born, nationality):
        expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#wizard-birth_date-error")).to_contain_text("Indica la fecha")
    expect(born).to_have_attribute("aria-describedby", "wizard-birth_date-hint wizard-birth_date-error")
    border = rut.evaluate("e => getComputedStyle(e).borderTopColor")
    assert border == "rgb(255, 154, 168)", border  # the invalid field's border shows
    # Writing in a field takes its own message away, and only its own.
    page.get_by_role("radio", name="RUT chileno").check()
    rut.fill("12.345.678-5")
    expect(rut).to_have_attribute("aria-invalid", "false")
    expect(page.locator("#wizard-rut-error")).to_have_count(0)
    expect(born).to_have_attribute("aria-invalid", "true")
    # A date the way Chileans write it.
    # Each time, the field's message goes first: its paragraph leaving moves the button up, and a press
    # in that moment lands where the button was.
    born.fill("31-04-1996")
    expect(born).to_have_attribute("aria-invalid", "false")
    page.get_by_role("button", name=SAVE).click()
    expect(page.locator("#wizard-birth_date-error")).to_contain_text("el día 31 no existe")
    born.fill("12-04-1996")
    nationality.select_option("Chile")
    expect(born).to_have_attribute("aria-invalid", "false")
    expect(nationality).to_have_attribute("aria-invalid", "false")
    # A double click saves step 1 once and does not submit step 2 empty.
    page.get_by_role("button", name=SAVE).dblclick()
    _at_step(page, 2)
    # Back at step 1, the date reads as it was typed, day first.
    page.get_by_role("button", name="Atrás").click()
    _at_step(page, 1)
    expect(born).to_have_value("12-04-1996")
    expect(rut).to_have_value("12.345.678-5")
    _save(page, 1)
    page.get_by_label("Ciudad").select_option(CITY)
    # Events run in order: once the city's communes are listed, any second submit was answered.
    page.get_by_label("Comuna").select_option(COMMUNE)
    expect(page.locator("[aria-invalid=true]")).to_have_count(0)
    expect(page.locator(".field-error:not(:empty)")).to_have_count(0)  # none shown
    _fits(page, "paso 2")
    page.get_by_label("Mujeres").check()
    _save(page, 2)

    page.get_by_role("combobox", name="Categoría").select_option(index=1)
    page.get_by_role("combobox", name="Tipo").select_option(index=1)
    _save(page, 3)

    # Step 4 sent empty: the name, the age and the description at once.
    _bordered(page, "paso 4")
    page.get_by_role("button", name=SAVE).click()
    for label in ("Nombre del aviso", "Edad", "Descripción"):
        expect(page.get_by_label(label)).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Nombre del aviso").fill("Telma Fono")
    page.get_by_label("Edad").fill("29")
    page.get_by_label("Descripción").fill("Hola, soy Telma: simpática, tranquila y puntual. Escríbeme por WhatsApp.")
    page.get_by_label("Culonas").check()
    _save(page, 4)

    page.get_by_label("Tarifa por hora").fill("70000")
    _bordered(page, "paso 5")
    _save(page, 5)

    # Step 6: the week fits the phone; "No atiendo" of every day is on screen.
    for day in ("Lunes", "Domingo"):
        box = page.get_by_label(f"No atiendo el {day}").bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], f"No atiendo el {day}: {box}"
    page.get_by_label("No atiendo el Martes").uncheck()
    page.get_by_label("Desde el Martes").fill("11:00")
    page.get_by_role("button", name=SAVE).click()
    expect(page.get_by_role("alert").filter(has_text="Martes: elige la hora de inicio y la de término")).to_be_visible()
    page.get_by_label("Hasta el Martes").fill("19:00")
    expect(page.get_by_text("Martes: elige la hora de inicio")).to_have_count(0)
    # Hours typed into a day left "No atiendo" open that day: they are saved, not dropped.
    page.get_by_label("Desde el Miércoles").fill("10:00")
    page.get_by_label("Hasta el Miércoles").fill("18:00")
    expect(page.get_by_label("No atiendo el Miércoles")).not_to_be_checked()
    _save(page, 6)
    page.get_by_role("button", name="Atrás").click()
    _at_step(page, 6)
    expect(page.get_by_label("Desde el Miércoles")).to_have_value("10:00")
    expect(page.get_by_label("Hasta el Miércoles")).to_have_value("18:00")
    expect(page.get_by_label("No atiendo el Miércoles")).not_to_be_checked()
    expect(page.get_by_label("No atiendo el Jueves")).to_be_checked()
    # Marking a day "No atiendo" again empties its times: what shows is what is saved.
    page.get_by_label("Desde el Jueves").fill("09:00")
    expect(page.get_by_label("No atiendo el Jueves")).not_to_be_checked()
    page.get_by_label("No atiendo el Jueves").check()
    expect(page.get_by_label("Desde el Jueves")).to_have_value("")
    _save(page, 6)

    # Step 7: the file input has a name; a file too big is listed with its reason; the step waits for uploads,
    # and each photo shows once the site's worker has processed it.
    expect(page.get_by_label("Elegir fotos para subir")).to_have_count(1)
    # Nothing can be dragged on a phone: the zone says to choose.
    expect(page.get_by_text("Elige fotos", exact=True)).to_be_visible()
    expect(page.get_by_text("Arrastra tus fotos aquí", exact=False)).to_be_hidden()
    huge = tmp_path / "enorme.jpg"
    huge.write_bytes(b"\0" * (MAX_BYTES + 1))
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": UPLINK_BYTES_PER_S},
    )
    page.get_by_label("Elegir fotos para subir").set_input_files([str(_jpeg(tmp_path)), str(huge)])
    expect(page.get_by_role("progressbar")).to_be_visible()
    expect(page.get_by_role("button", name=SAVE)).to_be_disabled()
    # The bar fills in the site's accent colour, not the browser's default.
    colours = page.get_by_role("progressbar").evaluate(
        "e => [getComputedStyle(e).accentColor,"
        " getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()]"
    )
    assert colours[0] == page.evaluate(
        "c => { const s = document.createElement('span'); s.style.color = c; document.body.append(s);"
        " const v = getComputedStyle(s).color; s.remove(); return v; }",
        colours[1],
    ), colours
    photos = page.get_by_role("list", name="Tus fotos").get_by_role("listitem")
    refused = photos.filter(has_text="enorme.jpg")
    expect(refused).to_contain_text("pesa más de 15 MB")
    expect(refused).not_to_contain_text("./")
    expect(page.get_by_role("status").filter(has_text="no se subió")).to_be_visible()
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    expect(photos.get_by_role("img")).to_have_count(1)
    expect(page.get_by_role("button", name=SAVE)).to_be_enabled()
    _fits(page, "paso 7")

    # Photos chosen with one already there: the step waits from that very moment, before any progress.
    # The upload is held, so the tap lands in the window before the first progress event.
    held: list[Route] = []
    page.route("**/_upload", lambda route: held.append(route))
    page.get_by_label("Elegir fotos para subir").set_input_files(str(_jpeg(tmp_path, "segunda.jpg")))
    assert page.get_by_role("button", name=SAVE).is_disabled(), "Guardar y seguir is enabled as photos are chosen"
    page.get_by_role("button", name=SAVE).tap(force=True)
    # A submit that does not go through the button (another client) is refused by the server too.
    page.locator("form.wizard-form").evaluate("form => form.requestSubmit()")
    while not held:
        page.wait_for_timeout(50)  # lets Playwright deliver the routing callback between polls
    expect(page.get_by_text("Subiendo fotos")).to_be_visible()
    held[0].continue_()
    expect(photos.get_by_role("img")).to_have_count(2)
    _at_step(page, 7)
    expect(page.get_by_text("Sube al menos una foto.")).to_have_count(0)
    page.unroute("**/_upload")
    _save(page, 7)

    page.get_by_label("Teléfono celular").fill("+56 9 7654 3210")
    _bordered(page, "paso 8")
    _save(page, 8)
    expect(page.get_by_role("table", name="Resumen de tu publicación")).to_contain_text("Telma Fono")
    expect(page.get_by_role("table", name="Resumen de tu publicación")).to_contain_text("Martes 11:00-19:00")
    expect(page.get_by_role("table", name="Resumen de tu publicación")).to_contain_text("Miércoles 10:00-18:00")
    expect(page.get_by_role("table", name="Resumen de tu publicación")).not_to_contain_text("Jueves")

    # Sent: on "Mis publicaciones", the verification photo is chosen, not dragged, on a phone too.
    page.get_by_role("button", name="Enviar a revisión").click()
    card = page.get_by_role("article", name="Telma Fono")
    card.get_by_role("button", name="Verificar").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Elige la foto", exact=True)).to_be_visible()
    expect(dialog.get_by_text("Arrastra la foto aquí", exact=False)).to_be_hidden()
