"""The public site in a real browser: routes, redirects, the 18+ notice,
filter tabs, cards, detail, the report form and the no-JavaScript SSG pages."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session, select

from app.db import make_engine
from app.models import Report
from app.services.reports import MIN_FILL_SECONDS
from app.states.public import AGE_COOKIE
from tests.e2e.conftest import AREA_CITY, AREA_CITY_LISTINGS, CITY, PAGED_CITY, accept_age

pytestmark = pytest.mark.e2e


def _card_names(page: Page) -> set[str]:
    cards = page.get_by_test_id("listing-card")
    return {name.strip() for name in cards.locator("h3").all_inner_texts()}


def _city(page: Page, path: str = f"/escorts/{CITY}") -> None:
    page.goto(path)
    accept_age(page)
    expect(page.get_by_test_id("total")).to_be_visible()


def test_html_lang_and_home_lists_the_cities_by_region(page: Page, site):
    page.goto("/escorts")
    assert page.locator("html").get_attribute("lang") == "es-CL"
    expect(page.get_by_role("heading", name="Escorts en Chile", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="Metropolitana de Santiago")).to_be_visible()
    cities = page.get_by_role("navigation", name="Ciudades").get_by_role("link")
    expect(cities).to_have_count(25)
    expect(page.get_by_role("link", name="Puerto Montt")).to_have_attribute("href", "/escorts/puerto-montt")
    expect(page.get_by_text("Elige tu ciudad para ver los avisos publicados.")).to_be_visible()  # the site says tú


def test_age_notice_hides_listings_until_accepted_and_is_remembered(page: Page, site):
    page.goto(f"/escorts/{CITY}")
    expect(page.get_by_role("dialog")).to_contain_text("confirma que tienes 18 años o más")
    expect(page.get_by_test_id("listing-card")).to_have_count(0)
    accept_age(page)
    expect(page.get_by_test_id("listing-card").first).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("listing-card").first).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_home_shows_featured_listings_after_the_notice(page: Page, site):
    page.goto("/escorts")
    accept_age(page)
    expect(page.get_by_role("heading", name="Destacadas")).to_be_visible()
    names = _card_names(page)
    assert site.names["diamante"] in names
    assert site.names["trans"] not in names and "Oculta" not in names and "Vetada" not in names


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/", "/escorts"),
        ("/santiago", "/escorts/santiago-de-chile"),
        ("/temuco", "/escorts/temuco"),
        ("/ciudad-inventada", "/escorts"),
        ("/escorts/santiago", "/escorts/santiago-de-chile"),
        ("/escorts/ciudad-inventada", "/escorts"),
        ("/escorts/trans/ciudad-inventada", "/escorts/trans"),
        ("/escorts/trans/santiago", "/escorts/trans/santiago-de-chile"),
        ("/una/ruta/que/no/existe", "/escorts"),
    ],
)
def test_redirects(page: Page, site, path, target):
    page.goto(path)
    page.wait_for_url(f"{site.url}{target}")


def test_city_page_groups_by_tier_and_hides_unpublished(page: Page, site):
    _city(page)
    headings = page.locator(".tier-heading").all_inner_texts()
    assert headings == ["Diamante", "Ruby", "Chicas del día"]
    names = _card_names(page)
    expected = {site.names[k] for k in site.names if k not in {"trans", "hidden", "vetada"}}
    assert names == expected


EXPECTED_TABS = {
    "Lo Nuevo": {"nueva"},
    "VIP": {"diamante", "ruby"},
    "Estrellas XXX": {"xxx"},
    "De pasada": {"pasada"},
    "Disponible AHORA": {"ahora"},
    "Verificadas": {"verificada"},
    "Culonas": {"curvy"},
    "Maduras": {"madura"},
    "Video": {"video"},
}


def test_filter_tabs_change_what_is_shown(page: Page, site):
    _city(page)
    tabs = page.get_by_role("navigation", name="Filtros")
    for label, keys in EXPECTED_TABS.items():
        tabs.get_by_role("link", name=label, exact=True).click()
        expect(tabs.get_by_role("link", name=label, exact=True)).to_have_attribute("aria-current", "page")
        expected = {site.names[k] for k in keys}
        expect(page.get_by_test_id("listing-card")).to_have_count(len(expected))
        assert _card_names(page) == expected, label
    tabs.get_by_role("link", name="Todas", exact=True).click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}")
    expect(page.get_by_test_id("listing-card")).to_have_count(11)


def test_all_page_and_trans_section(page: Page, site):
    _city(page, f"/escorts/{CITY}/all")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Todas")
    expect(page.get_by_test_id("listing-card")).to_have_count(11)
    page.goto(f"/escorts/trans/{CITY}")
    expect(page.get_by_test_id("total")).to_be_visible()  # the app's own page, not the document's preview
    expect(page.get_by_test_id("listing-card")).to_have_count(1)
    assert _card_names(page) == {site.names["trans"]}
    page.goto(f"/escorts/trans/{CITY}/all")
    expect(page.get_by_test_id("listing-card")).to_have_count(1)
    page.goto("/escorts/trans")
    expect(page.get_by_role("heading", name="Escorts trans en Chile", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Temuco")).to_have_attribute("href", "/escorts/trans/temuco")


def test_card_opens_its_detail_with_carousel_contact_and_report_link(page: Page, site):
    _city(page)
    page.mouse.wheel(0, 600)
    name = site.names["diamante"]
    page.get_by_role("link", name=re.compile(rf"^{name} \d+ años")).click()
    page.wait_for_url(re.compile(rf"/escorts/{CITY}/catalina/{site.uids['diamante']}$"))
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
    assert page.evaluate("[window.scrollX, window.scrollY]") == [0, 0]
    expect(page.get_by_role("link", name="WhatsApp")).to_have_attribute(
        "href", re.compile(r"^https://wa\.me/56987654321")
    )
    expect(page.get_by_role("link", name=re.compile("^Llamar"))).to_have_attribute("href", "tel:+56912345678")
    expect(page.get_by_text("Descripción de prueba <b>sin HTML</b>.")).to_be_visible()
    expect(page.get_by_role("link", name="Reportar esta publicación")).to_have_attribute(
        "href", f"/disclaimer/report?publicacion={site.uids['diamante']}"
    )
    slides = page.locator("[data-carousel] img")
    expect(slides).to_have_count(3)
    track = page.locator("[data-carousel]")
    expect(track).to_have_attribute("data-index", "0")
    # Autoplay advances after 5000 ms without interaction.
    page.mouse.move(0, 0)
    expect(track).to_have_attribute("data-index", "1", timeout=9000)
    page.get_by_role("button", name="Foto siguiente").click()
    expect(track).to_have_attribute("data-index", "2")


@pytest.mark.parametrize(
    "path_template",
    [
        "/escort/{uid}",
        "/escorts/inicio/generated/temuco/{uid}",
        "/escorts/temuco/nombre-cualquiera/{uid}",
    ],
)
def test_every_detail_url_shape_shows_the_listing(page: Page, site, path_template):
    page.goto(path_template.format(uid=site.uids["ruby"]))
    accept_age(page)
    expect(page.get_by_role("heading", name=site.names["ruby"], level=1)).to_be_visible()


def test_trans_detail_url_shapes(page: Page, site):
    uid = site.uids["trans"]
    page.goto(f"/escorts/trans/{CITY}/maite-{uid}")
    accept_age(page)
    expect(page.get_by_role("heading", name="Maite", level=1)).to_be_visible()
    page.goto(f"/escorts/trans/inicio/generated/{CITY}/{uid}")
    expect(page.get_by_role("heading", name="Maite", level=1)).to_be_visible()


def test_unpublished_listing_is_not_shown(page: Page, site):
    page.goto(f"/escort/{site.uids['hidden']}")
    expect(page.get_by_role("heading", name="Publicación no disponible")).to_be_visible()
    expect(page.get_by_text("Oculta")).to_have_count(0)


def test_section_page(page: Page, site):
    _city(page, f"/escorts/{CITY}/vip")
    assert _card_names(page) == {site.names["diamante"], site.names["ruby"]}


def test_pager_shows_one_page_of_cards_at_a_time(page: Page, site):
    _city(page, f"/escorts/{PAGED_CITY}")
    expect(page.get_by_test_id("total")).to_have_text("26 avisos")
    expect(page.get_by_test_id("listing-card")).to_have_count(24)
    pager = page.get_by_role("navigation", name="Páginas")
    expect(pager.get_by_text("Página 1 de 2")).to_be_visible()
    expect(pager.get_by_role("button", name="Anterior")).to_be_disabled()
    first_page = _card_names(page)
    pager.get_by_role("button", name="Siguiente").click()
    expect(pager.get_by_text("Página 2 de 2")).to_be_visible()
    expect(page.get_by_test_id("listing-card")).to_have_count(2)
    assert _card_names(page) == {"Osornina 24", "Osornina 25"}
    assert not first_page & _card_names(page)
    pager.get_by_role("button", name="Anterior").click()
    expect(pager.get_by_text("Página 1 de 2")).to_be_visible()
    assert _card_names(page) == first_page


def test_legal_pages_have_real_text(page: Page, site):
    from app.content.legal import LEGAL_PAGES

    for legal in LEGAL_PAGES:
        page.goto(f"/disclaimer/{legal.slug}")
        expect(page.get_by_role("heading", name=legal.title, level=1)).to_be_visible()
        expect(page.get_by_role("heading", name=legal.sections[0].heading)).to_be_visible()
        assert page.title().startswith(legal.title)


def _reports(site) -> list[Report]:
    engine = make_engine(site.database_url)
    with Session(engine) as session:
        rows = list(session.exec(select(Report)).all())
    engine.dispose()
    return rows


def _send_report(page: Page, kind: str, message: str, path: str = "/disclaimer/report", honeypot: str = ""):
    """Open the report form, fill it (and the hidden trap field, as a bot
    would, when ``honeypot`` is given), wait past the anti-spam minimum fill
    time and send it; return the form."""
    page.goto(path)
    form = page.get_by_role("form", name="Formulario de reporte")
    form.get_by_label("Tipo de problema").select_option(kind)
    form.get_by_label("¿Qué está pasando?").fill(message)
    if honeypot:
        page.locator("#report-website").fill(honeypot)
    page.wait_for_timeout(MIN_FILL_SECONDS * 1000 + 200)
    form.get_by_role("button", name="Enviar reporte").click()
    return form


def test_report_form_refuses_bad_input_then_stores_a_report(page: Page, site):
    before = len(_reports(site))
    form = _send_report(page, "trata", "corto", path=f"/disclaimer/report?publicacion={site.uids['base']}")
    expect(form.get_by_label("Publicación (opcional)")).to_have_value(site.uids["base"])
    # The refusal is shown under the field it is about, and the field says so to screen readers.
    message_field = form.get_by_label("¿Qué está pasando?")
    expect(message_field).to_have_accessible_description("Describe la situación con al menos 20 caracteres.")
    expect(message_field).to_have_attribute("aria-invalid", "true")
    expect(message_field).to_have_value("corto")  # nothing the visitor wrote is lost
    assert len(_reports(site)) == before
    message = "La persona del aviso parece estar siendo controlada por otra persona que responde los mensajes."
    form.get_by_label("¿Qué está pasando?").fill(message)
    form.get_by_role("button", name="Enviar reporte").click()
    expect(page.get_by_role("status").get_by_role("heading", name="Reporte enviado")).to_be_visible()
    reports = _reports(site)
    assert len(reports) == before + 1
    stored = next(r for r in reports if r.message == message)
    assert (stored.kind, stored.listing_uid) == ("trata", site.uids["base"])


def test_report_form_refuses_a_bot_that_fills_the_honeypot(page: Page, site):
    before = len(_reports(site))
    message = "Mensaje automático de un robot que llena todos los campos del formulario."
    _send_report(page, "otro", message, honeypot="http://spam.example")
    expect(page.get_by_role("alert")).to_contain_text("No pudimos aceptar el reporte.")
    assert len(_reports(site)) == before


def test_ssg_pages_are_plain_html_with_the_cards(site):
    response = httpx.get(f"{site.url}/escorts-ssg/{CITY}")
    assert response.status_code == 200
    html = response.text
    assert "<title>Escorts en Temuco | Escorts Chile</title>" in html
    assert '<meta name="description"' in html
    assert f'<link rel="canonical" href="{site.url}/escorts-ssg/{CITY}">' in html
    for key in ("diamante", "ruby", "base"):
        assert site.names[key] in html
    assert f'href="/escorts/{CITY}/catalina/{site.uids["diamante"]}"' in html
    assert "Oculta" not in html and "Vetada" not in html
    assert 'lang="es-CL"' in html
    assert "Contenido para personas adultas" in html  # the notice, without the cookie
    with_cookie = httpx.get(f"{site.url}/escorts-ssg/{CITY}", cookies={"mayor_de_edad": "1"}).text
    assert "Contenido para personas adultas" not in with_cookie
    home = httpx.get(f"{site.url}/escorts-ssg").text
    assert site.names["diamante"] in home and "/escorts-ssg/puerto-montt" in home


def test_ssg_redirects(site):
    santiago = httpx.get(f"{site.url}/escorts-ssg/santiago", follow_redirects=False)
    assert (santiago.status_code, santiago.headers["location"]) == (301, "/escorts-ssg/santiago-de-chile")
    unknown = httpx.get(f"{site.url}/escorts-ssg/ciudad-inventada", follow_redirects=False)
    assert (unknown.status_code, unknown.headers["location"]) == (301, "/escorts-ssg")


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Browser, site) -> Iterator[BrowserContext]:
    """An adult's browser on a phone, 390 px wide."""
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True)
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    yield context
    context.close()


def test_a_city_offers_the_communes_of_its_area_and_the_static_page_shows_them_first_on_a_phone(
    phone: BrowserContext, site
):
    """Viña del Mar's listings name Concón, Valparaíso, Viña del Mar and Isla de Pascua (of its region, not of its
    area): the last one still shows in the city, but no commune page, link, sitemap entry or option is made for it."""
    page = phone.new_page()
    page.goto(f"/escorts-ssg/{AREA_CITY}")
    assert {name.strip() for name in page.locator("h3").all_inner_texts()} == set(AREA_CITY_LISTINGS)
    communes = page.get_by_role("navigation", name="Comunas")
    expect(communes.get_by_role("link")).to_have_text(["Concón", "Valparaíso", "Viña del Mar"])
    # Before the first card, in the phone's first screen (not under every card of the city).
    links = communes.bounding_box()
    first_card = page.get_by_test_id("listing-card").first.bounding_box()
    assert links is not None and first_card is not None
    assert links["y"] + links["height"] <= min(first_card["y"], PHONE["height"]), (links, first_card)

    # A commune's page, and the way back to its city.
    communes.get_by_role("link", name="Concón").tap()
    page.wait_for_url(f"{site.url}/escorts-ssg/{AREA_CITY}/concon")
    expect(page.get_by_role("heading", level=1)).to_have_text("Escorts en Concón, Viña del Mar")
    page.get_by_role("navigation", name="Ruta de navegación").get_by_role("link", name="Escorts en Viña del Mar").tap()
    page.wait_for_url(f"{site.url}/escorts-ssg/{AREA_CITY}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Escorts en Viña del Mar")

    # No page nor sitemap entry for the commune outside the city's area.
    outside = httpx.get(f"{site.url}/escorts-ssg/{AREA_CITY}/isla-de-pascua", cookies={AGE_COOKIE: "1"})
    assert outside.status_code == 404 and "Isla de Pascua" not in outside.text
    sitemap = httpx.get(f"{site.url}/sitemaps/mujeres/{AREA_CITY}.xml").text
    assert f"/escorts/{AREA_CITY}?comuna=concon</loc>" in sitemap and "isla-de-pascua" not in sitemap

    # The app's filters offer the same communes.
    page.goto(f"/escorts/{AREA_CITY}")
    page.locator("#vista-previa").wait_for(state="detached")
    expect(page.get_by_test_id("total")).to_have_text(f"{len(AREA_CITY_LISTINGS)} avisos")
    page.locator("summary", has_text="Filtros").tap()
    expect(page.get_by_label("Comuna").locator("option")).to_have_text(
        ["Todas las comunas", "Concón", "Valparaíso", "Viña del Mar"]
    )


def test_ssg_age_confirmation_works_without_javascript(browser, site):
    context = browser.new_context(base_url=site.url, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"/escorts-ssg/{CITY}")
    page.get_by_role("button", name="Tengo 18 años o más, entrar").click()
    page.wait_for_url(f"{site.url}/escorts-ssg/{CITY}")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_text(site.names["diamante"]).first).to_be_visible()
    context.close()


@pytest.mark.parametrize(("width", "columns"), [(375, 2), (800, 3), (1280, 4), (1600, 5), (1920, 6)])
def test_card_grid_follows_the_breakpoints(browser, site, width, columns):
    context = browser.new_context(base_url=site.url, viewport={"width": width, "height": 900})
    page = context.new_page()
    _city(page, f"/escorts/{CITY}/all")
    template = page.locator(".grid").first.evaluate("el => getComputedStyle(el).gridTemplateColumns")
    assert len(template.split()) == columns
    context.close()


def test_scroll_resets_on_navigation(page: Page, site):
    page.set_viewport_size({"width": 375, "height": 600})
    _city(page)
    page.mouse.wheel(0, 2000)
    page.wait_for_function("window.scrollY > 0")
    page.get_by_role("navigation", name="Filtros").get_by_role("link", name="Video", exact=True).click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}/video")
    page.wait_for_function("window.scrollX === 0 && window.scrollY === 0")


def test_stale_name_in_a_detail_url_moves_to_the_canonical_url(page: Page, site):
    uid = site.uids["ruby"]
    page.goto(f"/escorts/santiago-de-chile/otro-nombre/{uid}")
    page.wait_for_url(f"{site.url}/escorts/{CITY}/daniela/{uid}")
