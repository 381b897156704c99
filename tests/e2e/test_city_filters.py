"""The city page's filters in a real browser (issue 19 §1): comuna and rate into the URL, reload and back,
the phone's filter button with its match count and one-tap clear, the empty result, the commune page in
the sitemap and indexable while filtered variants are not, and axe over the open filters.

Issue 33: a rate typed the Chilean way ("60.000", "55 mil") counts, one it cannot read gets a message
beside its field; the filters on show as chips, each removed with one tap; the open form and the tab row
fit a phone and a desktop."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session, select

from app.models import AdvertiserService
from app.services import listing_revisions
from app.states.public import AGE_COOKIE
from tests.e2e.axe import serious_violations
from tests.e2e.conftest import Site, accept_age
from tests.e2e.nu import nu_errors
from tests.factories import make_listing, make_owner

pytestmark = pytest.mark.e2e

CITY = "concepcion"  # no other test file has listings there
SERVICE = "Masaje filtro e2e"
# name: (commune, hourly rate, age, offers SERVICE)
LISTINGS = {
    "Filtro Ana": ("Talcahuano", 50000, 24, True),
    "Filtro Bea": ("Talcahuano", 90000, 31, False),
    "Filtro Cata": ("Penco", 60000, 28, True),
    "Filtro Dani": ("Concepción", 70000, 40, False),
}
PHONE = {"width": 390, "height": 844}
PRICE_MESSAGE = "Escribe la tarifa en pesos, por ejemplo 130.000 o 130 mil."


@pytest.fixture
def listings(db: Session) -> None:
    """The four listings of Concepción (made once for the whole file)."""
    if db.exec(select(AdvertiserService).where(AdvertiserService.name == SERVICE)).first() is not None:
        return
    service = AdvertiserService(name=SERVICE)
    db.add(service)
    db.commit()
    owner = make_owner(db, "filtros@correo.cl")
    for name, (commune, rate, age, offers) in LISTINGS.items():
        listing = make_listing(db, owner, name=name, city=CITY, commune=commune, price_hour_clp=rate, age=age)
        if offers:
            listing_revisions.set_services(db, listing, [service.uid])
    db.commit()


def _names(page: Page) -> set[str]:
    return {name.strip() for name in page.get_by_test_id("listing-card").locator("h3").all_inner_texts()}


def _expect_names(page: Page, names: set[str]) -> None:
    expect(page.get_by_test_id("total")).to_have_text("1 aviso" if len(names) == 1 else f"{len(names)} avisos")
    expect(page.get_by_test_id("listing-card")).to_have_count(len(names))
    assert _names(page) == names


def _chips(page: Page):
    return page.get_by_role("link", name=re.compile(r"^Quitar filtro: "))


def _chip(page: Page, label: str):
    return page.get_by_role("link", name=f"Quitar filtro: {label}", exact=True)


def _open_filters(page: Page) -> None:
    page.locator("summary", has_text="Filtros").click()
    expect(page.get_by_label("Comuna")).to_be_visible()


def test_filter_by_comuna_and_rate_lives_in_the_url_through_reload_and_back(page: Page, site: Site, listings):
    page.goto(f"/escorts/{CITY}")
    accept_age(page)
    _expect_names(page, set(LISTINGS))
    _open_filters(page)
    page.get_by_label("Comuna").select_option(label="Talcahuano")
    apply = page.get_by_role("button", name=re.compile(r"^Ver \d+ avisos?$"))
    expect(apply).to_have_text("Ver 2 avisos")
    rates = page.get_by_role("group", name="Tarifa por hora (CLP)")
    rates.get_by_label("Hasta").fill("60.000")  # the Chilean way, as people type it
    rates.get_by_label("Hasta").blur()
    expect(apply).to_have_text("Ver 1 aviso")
    _expect_names(page, set(LISTINGS))  # counted, not applied yet
    apply.click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}?comuna=talcahuano&precio_max=60000")
    _expect_names(page, {"Filtro Ana"})
    expect(page.get_by_role("heading", level=1)).to_have_text("Escorts en Talcahuano, Concepción")
    # The filters on show, each with its own button to take it away, without opening the form.
    expect(_chips(page)).to_have_count(2)
    expect(_chip(page, "Comuna: Talcahuano")).to_be_visible()
    expect(_chip(page, "Tarifa hasta $60.000")).to_be_visible()
    page.reload()
    page.locator("#vista-previa").wait_for(state="detached")
    _expect_names(page, {"Filtro Ana"})
    expect(page.locator("summary", has_text="Filtros activos")).to_be_visible()
    page.locator("summary").click()
    expect(page.get_by_label("Comuna")).to_have_value("talcahuano")
    # A tab keeps the filters.
    page.get_by_role("link", name="Maduras").click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}/maduras?comuna=talcahuano&precio_max=60000")
    expect(page.get_by_text("No hay avisos que coincidan con estos filtros.")).to_be_visible()
    page.go_back()
    page.wait_for_url(f"{site.url}/escorts/{CITY}?comuna=talcahuano&precio_max=60000")
    _expect_names(page, {"Filtro Ana"})
    page.go_back()
    page.wait_for_url(f"{site.url}/escorts/{CITY}")
    _expect_names(page, set(LISTINGS))


def test_a_rate_it_cannot_read_gets_a_message_and_one_tap_removes_one_filter(page: Page, site: Site, listings):
    page.goto(f"/escorts/{CITY}?servicio=masaje-filtro-e2e")
    accept_age(page)
    _expect_names(page, {"Filtro Ana", "Filtro Cata"})
    expect(_chip(page, f"Servicio: {SERVICE}")).to_be_visible()
    _open_filters(page)
    apply = page.get_by_role("button", name=re.compile(r"^Ver \d+ avisos?$"))
    rates = page.get_by_role("group", name="Tarifa por hora (CLP)")
    rates.get_by_label("Desde").fill("55 mil")
    rates.get_by_label("Desde").blur()
    expect(apply).to_have_text("Ver 1 aviso")
    # What it cannot read is said beside the field, and the button does not go on without it.
    rates.get_by_label("Hasta").fill("sesenta")
    rates.get_by_label("Hasta").blur()
    expect(rates.get_by_label("Hasta")).to_have_accessible_description(PRICE_MESSAGE)
    expect(rates.get_by_text(PRICE_MESSAGE)).to_be_visible()
    apply.click()
    expect(rates.get_by_label("Hasta")).to_be_focused()
    assert page.url == f"{site.url}/escorts/{CITY}?servicio=masaje-filtro-e2e"
    rates.get_by_label("Hasta").fill("$ 60.000")
    rates.get_by_label("Hasta").blur()
    expect(rates.get_by_text(PRICE_MESSAGE)).to_have_count(0)
    expect(apply).to_have_text("Ver 1 aviso")
    apply.click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}?precio_min=55000&precio_max=60000&servicio=masaje-filtro-e2e")
    _expect_names(page, {"Filtro Cata"})
    expect(_chips(page)).to_have_count(3)
    # One tap takes one filter away and keeps the others.
    _chip(page, f"Servicio: {SERVICE}").click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}?precio_min=55000&precio_max=60000")
    _expect_names(page, {"Filtro Cata"})
    _chip(page, "Tarifa hasta $60.000").click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}?precio_min=55000")
    _expect_names(page, {"Filtro Bea", "Filtro Cata", "Filtro Dani"})
    expect(_chips(page)).to_have_count(1)
    expect(_chip(page, "Tarifa desde $55.000")).to_be_visible()


# Whatever of the open form does not fit the window, overlaps another control or is too small to tap
# (WCAG 2.2's 24 px target size), and the page's own width.
LAYOUT_PROBLEMS = """() => {
  const width = window.innerWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) {
    problems.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${width} px window`);
  }
  const controls = [...document.querySelectorAll('.filter-panel :is(input, select, button, a)')];
  const boxes = controls.map((control) => [control.id || control.name || control.textContent, control.getBoundingClientRect()]);
  for (const [name, box] of boxes) {
    if (box.left < 0 || box.right > width) problems.push(`${name} runs from ${box.left} to ${box.right}`);
  }
  boxes.forEach(([name, box], index) => {
    for (const [other, next] of boxes.slice(index + 1)) {
      if (box.left < next.right && next.left < box.right && box.top < next.bottom && next.top < box.bottom) {
        problems.push(`${name} overlaps ${other}`);
      }
    }
  });
  for (const box of document.querySelectorAll('.filter-panel input[type=checkbox]')) {
    const size = box.getBoundingClientRect();
    if (size.width < 24 || size.height < 24) problems.push(`${box.value} is ${size.width}x${size.height} px`);
  }
  return problems;
}"""


# The tabs of the row that are cut off, by the window or by the row itself (scrolled out of sight).
TABS_CUT_OFF = """() => {
  const row = document.querySelector('nav.tabs').getBoundingClientRect();
  const left = Math.max(0, row.left), right = Math.min(window.innerWidth, row.right);
  return [...document.querySelectorAll('nav.tabs a')]
    .filter((tab) => { const box = tab.getBoundingClientRect(); return box.left < left || box.right > right; })
    .map((tab) => `the tab ${tab.textContent} is cut off`);
}"""


def test_the_open_filters_and_the_tabs_fit_a_phone_and_a_desktop(phone: BrowserContext, site: Site, listings):
    page = phone.new_page()
    page.goto(f"/escorts/{CITY}?comuna=talcahuano&precio_max=60000&servicio=masaje-filtro-e2e")
    page.locator("#vista-previa").wait_for(state="detached")
    _expect_names(page, {"Filtro Ana"})
    expect(page.get_by_role("navigation", name="Filtros").get_by_role("link")).to_have_count(11)
    for chip in _chips(page).all():
        expect(chip).to_be_in_viewport(ratio=1)
    page.locator("summary", has_text="Filtros").tap()
    expect(page.get_by_label("Comuna")).to_be_visible()
    # On a phone every tab is in sight (none cut off at the edge), and the open form fits, as on a desktop.
    on_a_phone = page.evaluate(TABS_CUT_OFF) + page.evaluate(LAYOUT_PROBLEMS)
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.get_by_label("Comuna")).to_be_visible()
    assert (on_a_phone, page.evaluate(LAYOUT_PROBLEMS)) == ([], [])
    # Typing does not move the page.
    panel = page.locator(".filter-panel")
    before = panel.bounding_box()
    page.get_by_role("group", name="Edad").get_by_label("Desde").fill("25")
    page.get_by_role("group", name="Tarifa por hora (CLP)").get_by_label("Hasta").press_sequentially("70.000")
    assert page.evaluate("window.scrollX") == 0
    assert panel.bounding_box() == before
    assert page.evaluate(LAYOUT_PROBLEMS) == []


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True)
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    yield context
    context.close()


def test_on_a_phone_one_button_opens_the_filters_counts_matches_and_clears_them(
    phone: BrowserContext, site: Site, listings
):
    page = phone.new_page()
    page.goto(f"/escorts/{CITY}")
    page.locator("#vista-previa").wait_for(state="detached")
    _expect_names(page, set(LISTINGS))
    expect(page.get_by_label("Comuna")).to_be_hidden()
    page.locator("summary", has_text="Filtros").tap()
    expect(page.get_by_label("Comuna")).to_be_visible()
    page.get_by_label(SERVICE).check()
    apply = page.get_by_role("button", name=re.compile(r"^Ver \d+ avisos?$"))
    expect(apply).to_have_text("Ver 2 avisos")
    ages = page.get_by_role("group", name="Edad")
    ages.get_by_label("Desde").fill("25")
    ages.get_by_label("Desde").blur()
    expect(apply).to_have_text("Ver 1 aviso")
    box = apply.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    apply.tap()
    page.wait_for_url(re.compile(rf"/escorts/{CITY}\?edad_min=25&servicio=masaje-filtro-e2e$"))
    _expect_names(page, {"Filtro Cata"})
    page.locator("summary", has_text="Filtros activos").tap()
    page.get_by_role("link", name="Limpiar filtros").tap()
    page.wait_for_url(f"{site.url}/escorts/{CITY}")
    _expect_names(page, set(LISTINGS))
    expect(page.locator("summary", has_text="Filtros activos")).to_have_count(0)


def test_an_empty_result_says_so_and_offers_to_clear_the_filters(page: Page, site: Site, listings):
    page.goto(f"/escorts/{CITY}?precio_min=500000&comuna=atlantida&edad_min=veinte")
    accept_age(page)
    expect(page.get_by_test_id("total")).to_have_text("0 avisos")
    expect(page.get_by_text("No hay avisos que coincidan con estos filtros.")).to_be_visible()
    page.get_by_role("link", name="Limpiar filtros").click()
    page.wait_for_url(f"{site.url}/escorts/{CITY}")
    _expect_names(page, set(LISTINGS))


def test_the_commune_page_is_in_the_sitemap_and_indexable_and_filtered_variants_are_not(
    page: Page, site: Site, listings
):
    sitemap = httpx.get(f"{site.url}/sitemaps/mujeres/{CITY}.xml").text
    for commune in ("talcahuano", "penco", "concepcion"):
        assert f"/escorts/{CITY}?comuna={commune}</loc>" in sitemap
    assert "comuna=lota" not in sitemap
    # What crawlers read: the served documents (once the app runs, the head's tags are not in the live DOM).
    adult = {AGE_COOKIE: "1"}
    commune = httpx.get(f"{site.url}/escorts/{CITY}?comuna=talcahuano", cookies=adult)
    assert commune.status_code == 200 and "x-robots-tag" not in commune.headers
    assert 'name="robots"' not in commune.text
    assert re.search(rf'<link rel="canonical" href="http[^"]*/escorts/{CITY}\?comuna=talcahuano">', commune.text)
    assert "Filtro Ana" in commune.text and "Filtro Cata" not in commune.text  # the first screen, filtered
    variant = httpx.get(f"{site.url}/escorts/{CITY}?comuna=talcahuano&precio_max=60000", cookies=adult)
    assert variant.status_code == 200 and variant.headers["x-robots-tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in variant.text
    page.context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    ssg = page.goto(f"/escorts-ssg/{CITY}/talcahuano")
    assert ssg is not None and ssg.status == 200
    expect(page.get_by_role("heading", level=1)).to_have_text("Escorts en Talcahuano, Concepción")
    assert {"Filtro Ana", "Filtro Bea"} == {name.strip() for name in page.locator("h3").all_inner_texts()}


def test_the_open_filters_pass_axe_and_the_nu_checker(browser: Browser, site: Site, listings, tmp_path):
    # axe-core is injected as a script: the site's CSP would refuse it.
    audited = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, has_touch=True, bypass_csp=True)
    audited.set_default_timeout(20_000)
    audited.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    try:
        found, form = _violations_with_the_filters_open(audited.new_page())
    finally:
        audited.close()
    assert not found, "\n".join(found)
    # The app's page itself carries a second <title> once it runs (tests/e2e/test_html_validity.py): what
    # is checked is its content, the open form with a message and the chips, in a document of its own.
    document = f'<!DOCTYPE html><html lang="es-CL"><head><title>Filtros</title></head><body>{form}</body></html>'
    errors = nu_errors({"filtros-abiertos": document}, tmp_path)
    assert not errors, "\n".join(errors)


def _violations_with_the_filters_open(page: Page) -> tuple[list[str], str]:
    """axe's findings with the filters open (a field with its message, the chips), and the page's content then."""
    page.goto(f"/escorts/{CITY}?comuna=talcahuano&precio_max=60000")
    page.locator("#vista-previa").wait_for(state="detached")
    page.locator("summary", has_text="Filtros").tap()
    expect(page.get_by_label("Comuna")).to_be_visible()
    found = serious_violations(page, "filtros abiertos")
    ages = page.get_by_role("group", name="Edad")
    ages.get_by_label("Hasta").fill("treinta")
    ages.get_by_label("Hasta").blur()
    expect(ages.get_by_label("Hasta")).to_have_attribute("aria-invalid", "true")
    found += serious_violations(page, "filtros con un error")
    form = page.locator("main").inner_html()
    page.goto(f"/escorts-ssg/{CITY}")
    found += serious_violations(page, "ssg con comunas")
    return found, form
