"""The city page's filters on PostgreSQL: each filter and their mix with the tabs, the page cache keyed by
filters, the filter form's handlers, the documents (head tags, first screen), the sitemap and the SSG
page of a commune."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from reflex_base.constants import RouteVar
from sqlmodel import Session
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import get_engine
from app.models import AdvertiserService, Section, utc_now
from app.models.filter_tabs import DEFAULT_TAB, TABS_BY_SLUG
from app.models.listing_filters import NO_FILTERS, PRICE_MESSAGE, ListingFilters, parse_filters
from app.services import city_filters, directory_cards, listing_revisions, listings, page_cache
from app.settings import get_settings
from app.states.public import DirectoryState
from app.web.api import build_api
from tests.factories import make_listing, make_owner
from tests.handlers import client_states, invoke, run_async

pytestmark = pytest.mark.integration

CITY = "santiago-de-chile"
MUJERES = Section.MUJERES.value


@pytest.fixture
def site(app_database, monkeypatch):
    """This test's database without Redis, an empty cache, and six listings in Santiago:

    name        commune      rate     age  tier      verified  services
    Amalia      Providencia  50000    22   diamante  yes       masajes
    Berta       Providencia  90000    30   platino   no        masajes, viajes
    Carla       Ñuñoa        70000    41   ruby      yes       viajes
    Dora        Ñuñoa        120000   25   platino   no        -
    Elena       Providencia  60000    28   platino   no        - (trans)
    Fabiola     Vitacura     80000    33   platino   no        - (paused: not public)
    """
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()
    monkeypatch.setattr(page_cache, "pages", page_cache.PageCache())
    now = utc_now()
    with Session(get_engine(), expire_on_commit=False) as session:
        owner = make_owner(session, "duena@example.cl")
        masajes = AdvertiserService(name="Masajes relajantes")
        viajes = AdvertiserService(name="Viajes")
        session.add_all([masajes, viajes])
        session.commit()
        rows = (
            ("Amalia", "Providencia", 50000, 22, "diamante", True, [masajes], MUJERES, "publicada"),
            ("Berta", "Providencia", 90000, 30, "platino", False, [masajes, viajes], MUJERES, "publicada"),
            ("Carla", "Ñuñoa", 70000, 41, "ruby", True, [viajes], MUJERES, "publicada"),
            ("Dora", "Ñuñoa", 120000, 25, "platino", False, [], MUJERES, "publicada"),
            ("Elena", "Providencia", 60000, 28, "platino", False, [], Section.TRANS.value, "publicada"),
            ("Fabiola", "Vitacura", 80000, 33, "platino", False, [], MUJERES, "pausada"),
        )
        for days, (name, commune, rate, age, tier, verified, services, section, status) in enumerate(rows):
            listing = make_listing(
                session,
                owner,
                name=name,
                city=CITY,
                commune=commune,
                price_hour_clp=rate,
                age=age,
                tier=tier,
                verified=verified,
                section=section,
                status=status,
                published_at=now - timedelta(days=days + 1),
            )
            listing_revisions.set_services(session, listing, [s.uid for s in services])
        session.commit()
    yield


def _filters(query: str) -> ListingFilters:
    with Session(get_engine()) as session:
        catalogue = city_filters.service_options(session=session)
    return parse_filters(query, city_slug=CITY, catalogue=catalogue)


def _names(query: str, tab: str = "todas", section: str = MUJERES, grouped: bool = True) -> list[str]:
    with Session(get_engine()) as session:
        page = listings.city_cards(
            session=session,
            section=section,
            city_slug=CITY,
            tab=TABS_BY_SLUG[tab],
            filters=_filters(query),
            group_by_tier=grouped,
        )
    assert page.total == len(page.cards)
    return [card.display_name for card in page.cards]


def test_each_filter_selects_exactly_its_rule_in_tier_order(site):
    assert _names("") == ["Amalia", "Carla", "Berta", "Dora"]  # diamante, ruby, platino newest first
    assert _names("comuna=providencia") == ["Amalia", "Berta"]
    assert _names("comuna=nunoa") == ["Carla", "Dora"]
    assert _names("precio_min=60000&precio_max=90000") == ["Carla", "Berta"]
    assert _names("precio_max=50000") == ["Amalia"]
    assert _names("edad_min=25&edad_max=30") == ["Berta", "Dora"]
    assert _names("servicio=masajes-relajantes") == ["Amalia", "Berta"]
    assert _names("servicio=masajes-relajantes&servicio=viajes") == ["Berta"]  # every service asked for
    assert _names("comuna=providencia&precio_min=60000") == ["Berta"]


def test_filters_combine_with_the_tabs_the_all_page_and_the_section(site):
    assert _names("comuna=providencia", tab="verificadas") == ["Amalia"]
    assert _names("edad_min=35", tab="maduras") == ["Carla"]
    assert _names("precio_min=60000", grouped=False) == ["Berta", "Carla", "Dora"]  # newest first
    assert _names("comuna=providencia", section=Section.TRANS.value) == ["Elena"]


def test_bad_values_change_nothing_and_match_nothing_hidden(site):
    everything = _names("")
    for query in ("precio_min=5o000", "precio_min=90000&precio_max=1", "comuna=vitacura%27%20OR%201=1", "servicio=x"):
        assert _names(query) == everything
    assert _names("comuna=vitacura") == []  # a real commune whose only listing is paused


def test_the_filter_values_are_bound_parameters(site):
    filters = ListingFilters(price_min=1, age_max=40, services=_filters("servicio=viajes").services)
    from sqlalchemy import select

    from app.models import Listing

    statement = select(Listing.display_name).where(*filters.conditions())
    compiled = statement.compile(get_engine())
    values = filters.params()
    assert set(values.values()) == {1, 40, f"% {filters.services[0].uid} %"}  # LIKE :p ESCAPE '/'
    assert {name: compiled.params[name] for name in values} == dict.fromkeys(values)  # named, given at execution
    assert filters.services[0].uid not in str(compiled)
    with Session(get_engine()) as session:
        found = session.scalars(statement, params=values).all()
    assert found == ["Berta"]  # offers viajes, 40 or younger (Carla is 41)


def test_the_communes_offered_are_those_the_public_listings_name(site):
    with Session(get_engine()) as session:
        found = city_filters.commune_counts(session=session, section=MUJERES, city_slug=CITY)
    assert [(each.commune.name, each.count) for each in found] == [("Ñuñoa", 2), ("Providencia", 2)]


def test_the_page_cache_never_serves_one_filters_page_for_another(site):
    def cached(query: str) -> list[str]:
        filters = run_async(directory_cards.filters_from_query(CITY, query))
        result = run_async(directory_cards.city_page(MUJERES, CITY, DEFAULT_TAB, 1, True, filters))
        return [card.display_name for card in result.cards]

    assert cached("") == ["Amalia", "Carla", "Berta", "Dora"]
    assert cached("comuna=providencia") == ["Amalia", "Berta"]
    assert cached("comuna=nunoa") == ["Carla", "Dora"]
    assert cached("servicio=viajes") == ["Carla", "Berta"]
    assert cached("servicio=masajes-relajantes") == ["Amalia", "Berta"]
    assert cached("precio_max=60000") == ["Amalia"]
    assert cached("precio_min=60000") == ["Carla", "Berta", "Dora"]
    assert cached("comuna=providencia") == ["Amalia", "Berta"]  # from the cache, still its own
    assert cached("") == ["Amalia", "Carla", "Berta", "Dora"]


@pytest.mark.parametrize("capped_too", [False, True], ids=["bajo-el-tope", "pasado-el-tope"])
def test_the_forms_count_alone_says_what_the_first_page_says(site, monkeypatch, capped_too):
    if capped_too:
        monkeypatch.setattr(listings, "COUNT_CAP", 2)
        monkeypatch.setattr(listings, "FILTERED_COUNT_CAP", 1)
        monkeypatch.setenv("PAGE_SIZE", "1")
        get_settings.cache_clear()
    queries = ("", "comuna=providencia", "precio_min=60000", "servicio=viajes", "edad_max=30&comuna=nunoa")
    try:
        with Session(get_engine()) as session:
            for query in queries:
                for tab in ("todas", "verificadas", "vip"):
                    filters, on = _filters(query), TABS_BY_SLUG[tab]
                    arguments = {"section": MUJERES, "city_slug": CITY, "tab": on, "filters": filters}
                    page = listings.city_cards(session=session, **arguments)
                    alone = listings.city_total(session=session, **arguments)
                    assert alone == dataclasses.replace(page, cards=[]), (query, tab)
        # Cached apart: a count never stands in for its page of cards, nor a page for a count.
        filters = _filters("comuna=providencia")
        counted = run_async(directory_cards.city_count(MUJERES, CITY, DEFAULT_TAB, filters))
        shown = run_async(directory_cards.city_page(MUJERES, CITY, DEFAULT_TAB, 1, True, filters))
        assert (counted.cards, counted.total) == ([], shown.total)
        assert [card.display_name for card in shown.cards] == (["Amalia"] if capped_too else ["Amalia", "Berta"])
    finally:
        get_settings.cache_clear()


def _visitor(url: str) -> DirectoryState:
    state, _ = client_states(DirectoryState)
    root = state._get_root_state()
    path = url.split("?", 1)[0]
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: url, RouteVar.QUERY: {}}, {})
    return state


def test_the_page_loads_its_filters_from_the_url(site):
    state = _visitor(f"/escorts/{CITY}?comuna=providencia&precio_min=60000&edad_max=abc")
    invoke(state, "load")
    assert [card.display_name for group in state.groups for card in group.cards] == ["Berta"]
    assert state.filtered
    assert state.heading == "Escorts en Providencia, Santiago de Chile"
    assert (state.draft_commune, state.draft_price_min, state.draft_age_max) == ("providencia", "60.000", "")
    assert [chip.label for chip in state.chips] == ["Comuna: Providencia", "Tarifa desde $60.000"]
    assert state.commune_options == [["nunoa", "Ñuñoa"], ["providencia", "Providencia"]]
    assert [choice.value for choice in state.services] == ["masajes-relajantes", "viajes"]
    assert state.unfiltered_url == f"/escorts/{CITY}"
    assert state.tabs[2].url == f"/escorts/{CITY}/vip?comuna=providencia&precio_min=60000"


def test_the_form_counts_its_matches_before_they_are_applied_and_applies_them_by_url(site):
    state = _visitor(f"/escorts/{CITY}")
    invoke(state, "load")
    assert state.draft_total == 4
    invoke(state, "set_filter", field="comuna", value="nunoa")
    assert (state.draft_total, state.total) == (2, 4)  # counted, not applied
    invoke(state, "set_filter", field="precio_max", value="$80.000")
    assert state.draft_total == 1
    invoke(state, "toggle_service", slug="viajes", checked=True)
    assert state.draft_total == 1
    invoke(state, "toggle_service", slug="viajes", checked=False)
    assert state.draft_services == []
    (redirect,) = invoke(state, "apply_filters")
    path = {str(k): str(v) for k, v in redirect.args}["path"]
    assert path.strip('"') == f"/escorts/{CITY}?comuna=nunoa&precio_max=80000"


def test_a_rate_the_form_cannot_read_has_its_message_and_is_not_applied(site):
    state = _visitor(f"/escorts/{CITY}")
    invoke(state, "load")
    invoke(state, "set_filter", field="comuna", value="nunoa")
    invoke(state, "set_filter", field="precio_max", value="ochenta")
    assert state.filter_errors == {"precio_max": PRICE_MESSAGE}
    assert state.draft_total == 2  # the others still counted
    (focus,) = invoke(state, "apply_filters")
    assert {str(k): str(v) for k, v in focus.args}["ref"].strip('"') == "ref_filtros_precio_max"
    invoke(state, "set_filter", field="precio_max", value="80 mil")
    assert (state.filter_errors, state.draft_total) == ({}, 1)
    (redirect,) = invoke(state, "apply_filters")
    assert {str(k): str(v) for k, v in redirect.args}["path"].strip(
        '"'
    ) == f"/escorts/{CITY}?comuna=nunoa&precio_max=80000"


def test_the_form_refuses_what_is_not_one_of_its_fields(site):
    state = _visitor(f"/escorts/{CITY}")
    invoke(state, "load")
    before = (state.draft_commune, state.draft_services, state.draft_total, state.total)
    invoke(state, "set_filter", field="heading", value="hola")
    invoke(state, "set_filter", field="comuna", value=["providencia"])
    invoke(state, "toggle_service", slug="no-existe", checked=True)
    invoke(state, "toggle_service", slug="viajes", checked="yes")
    assert (state.draft_commune, state.draft_services, state.draft_total, state.total) == before
    assert state.heading == "Escorts en Santiago de Chile"
    detail = _visitor("/escorts")
    invoke(detail, "load")
    invoke(detail, "set_filter", field="comuna", value="providencia")
    assert detail.draft_commune == ""
    assert invoke(detail, "apply_filters") == []


@pytest.fixture
def client(site) -> TestClient:
    with TestClient(build_api(reflex_app), base_url="http://localhost") as test_client:
        yield test_client


def test_the_commune_page_is_indexable_and_filtered_variants_are_not(client):
    client.cookies.set("mayor_de_edad", "1")
    commune = client.get(f"/escorts/{CITY}?comuna=providencia")
    assert commune.status_code == 200
    assert "noindex" not in commune.text and "x-robots-tag" not in commune.headers
    assert f'<link rel="canonical" href="{get_settings().site_url}/escorts/{CITY}?comuna=providencia">' in commune.text
    assert "<h1>Escorts en Providencia, Santiago de Chile</h1>" in commune.text
    assert "Amalia" in commune.text and "Dora" not in commune.text
    variant = client.get(f"/escorts/{CITY}?precio_min=abc&comuna=providencia&edad_min=29")
    assert variant.status_code == 200
    assert variant.headers["x-robots-tag"] == "noindex"
    assert '<meta name="robots" content="noindex">' in variant.text
    assert f'href="{get_settings().site_url}/escorts/{CITY}?comuna=providencia&amp;edad_min=29"' in variant.text
    assert "Berta" in variant.text and "Amalia" not in variant.text
    empty = client.get(f"/escorts/{CITY}?precio_min=500000")
    assert "No hay avisos que coincidan con estos filtros." in empty.text
    assert f'<a href="/escorts/{CITY}" class="btn btn-primary">Limpiar filtros</a>' in empty.text
    assert "noindex" not in client.get(f"/escorts/{CITY}").text


def test_the_sitemap_lists_each_commune_page_with_listings(client):
    text = client.get(f"/sitemaps/mujeres/{CITY}.xml").text
    site = get_settings().site_url
    assert f"<loc>{site}/escorts/{CITY}?comuna=providencia</loc>" in text
    assert f"<loc>{site}/escorts/{CITY}?comuna=nunoa</loc>" in text
    assert "comuna=vitacura" not in text  # its only listing is paused


def test_each_commune_with_listings_has_its_ssg_page(client):
    client.cookies.set("mayor_de_edad", "1")
    city = client.get(f"/escorts-ssg/{CITY}")
    assert f'<a href="/escorts-ssg/{CITY}/providencia">Providencia</a>' in city.text
    commune = client.get(f"/escorts-ssg/{CITY}/providencia")
    assert commune.status_code == 200
    assert "<title>Escorts en Providencia, Santiago de Chile | Escorts Chile</title>" in commune.text
    assert f'<link rel="canonical" href="{get_settings().site_url}/escorts-ssg/{CITY}/providencia">' in commune.text
    assert "Amalia" in commune.text and "Carla" not in commune.text
    for missing in ("vitacura", "atlantis", "Providencia"):
        response = client.get(f"/escorts-ssg/{CITY}/{missing}", follow_redirects=False)
        assert response.status_code == 404, missing
        assert response.headers["x-robots-tag"] == "noindex"
    moved = client.get("/escorts-ssg/santiago/providencia", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (301, f"/escorts-ssg/{CITY}/providencia")


def test_no_filters_is_the_plain_city_page(site):
    assert run_async(directory_cards.filters_from_query(CITY, "")) == NO_FILTERS


def test_the_first_visit_notice_brings_the_visitor_back_to_the_filtered_page(client):
    url = f"/escorts/{CITY}?comuna=providencia&precio_min=60000"
    document = client.get(url).text
    assert (
        '<input type="hidden" name="next" value="/escorts/santiago-de-chile?comuna=providencia&amp;precio_min=60000">'
        in document
    )
    assert "Berta" not in document  # no listing before the notice is accepted
    response = client.post("/escorts-ssg/confirmar-edad", data={"next": url}, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, url)
    assert "Berta" in client.get(url).text


@pytest.fixture
def capped(site, monkeypatch):
    """A count cap of 2 and pages of 1 card: the site's 4 public listings of the section go past the cap."""
    monkeypatch.setattr(listings, "COUNT_CAP", 2)
    monkeypatch.setenv("PAGE_SIZE", "1")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _page(number: int, query: str = "") -> listings.CardPage:
    with Session(get_engine()) as session:
        return listings.city_cards(
            session=session, section=MUJERES, city_slug=CITY, tab=DEFAULT_TAB, page=number, filters=_filters(query)
        )


def test_the_pager_count_stops_past_the_cap_and_then_knows_no_last_page(capped):
    first = _page(1)
    assert (first.total, first.exact, first.has_next, [card.display_name for card in first.cards]) == (
        3,
        False,
        True,
        ["Amalia"],
    )
    third = _page(3)  # counted past its own page: a next one exists, the last is still unknown
    assert (third.exact, third.has_next, [card.display_name for card in third.cards]) == (False, True, ["Berta"])
    last = _page(4)
    assert (last.total, last.exact, last.page_count, last.has_next) == (4, True, 4, False)
    assert [card.display_name for card in last.cards] == ["Dora"]
    past = _page(5)
    assert (past.cards, past.page_count, past.exact) == ([], 4, True)
    two = _page(1, "servicio=masajes-relajantes")  # under the cap: exact
    assert (two.total, two.exact, two.page_count) == (2, True, 2)


def test_a_filtered_count_stops_at_its_own_lower_cap(site, monkeypatch):
    monkeypatch.setattr(listings, "FILTERED_COUNT_CAP", 2)
    monkeypatch.setenv("PAGE_SIZE", "1")
    get_settings.cache_clear()
    try:
        every_rate = _page(1, "precio_min=0")  # a filter all 4 of the section's public listings pass
        assert (every_rate.total, every_rate.exact, every_rate.cap, len(every_rate.cards)) == (3, False, 2, 1)
        unfiltered = _page(1)  # the tabs keep the higher cap
        assert (unfiltered.total, unfiltered.exact, unfiltered.cap) == (4, True, listings.COUNT_CAP)
        state = _visitor(f"/escorts/{CITY}")
        invoke(state, "load")
        invoke(state, "set_filter", field="precio_min", value="0")
        assert (state.draft_label, state.total_label) == ("Ver más de 2 avisos", "4 avisos")
    finally:
        get_settings.cache_clear()


def test_the_page_and_the_form_say_more_than_the_cap_in_spanish(capped):
    state = _visitor(f"/escorts/{CITY}")
    invoke(state, "load")
    assert (state.total_label, state.page_label, state.draft_label) == (
        "Más de 2 avisos",
        "Página 1",
        "Ver más de 2 avisos",
    )
    assert state.page_count == 3 and state.total == 3
    invoke(state, "next_page")
    invoke(state, "next_page")
    invoke(state, "next_page")
    assert (state.page, state.total_label, state.page_label) == (4, "4 avisos", "Página 4 de 4")
    invoke(state, "set_filter", field="comuna", value="nunoa")
    assert state.draft_label == "Ver 2 avisos"
    invoke(state, "set_filter", field="precio_max", value="80000")
    assert state.draft_label == "Ver 1 aviso"


def test_the_documents_say_more_than_the_cap_and_link_the_next_page(capped, client):
    client.cookies.set("mayor_de_edad", "1")
    preview = client.get(f"/escorts/{CITY}").text
    assert '<p class="muted">Más de 2 avisos</p>' in preview
    ssg_page = client.get(f"/escorts-ssg/{CITY}").text
    assert "<p>Más de 2 avisos · página 1</p>" in ssg_page
    assert "Más de 2 avisos publicados." in ssg_page
    assert f'<a rel="next" href="/escorts-ssg/{CITY}?pagina=2">Siguiente</a>' in ssg_page
    last = client.get(f"/escorts-ssg/{CITY}?pagina=4").text
    assert "<p>4 avisos · página 4 de 4</p>" in last and 'rel="next"' not in last
    assert client.get(f"/escorts-ssg/{CITY}?pagina=5", follow_redirects=False).status_code == 404
