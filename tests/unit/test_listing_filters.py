"""The city page's filters read from the query string: valid values kept, bad ones ignored, never an error."""

from __future__ import annotations

import pytest

from app.core.geo import city_communes
from app.models.filter_tabs import DEFAULT_TAB, TABS_BY_SLUG
from app.models.listing_filters import (
    AGE_MESSAGE,
    NO_FILTERS,
    PRICE_MESSAGE,
    PRICE_TOO_HIGH_MESSAGE,
    RANGE_MESSAGE,
    ListingFilters,
    ServiceOption,
    TypedFilters,
    parse_filters,
    read_typed_filters,
)
from app.services import directory_view

MASAJES = ServiceOption(slug="masajes-relajantes", uid="s1", name="Masajes relajantes")
VIAJES = ServiceOption(slug="viajes", uid="s2", name="Viajes")
CATALOGUE = [MASAJES, VIAJES]
PROVIDENCIA = next(commune for commune in city_communes("santiago-de-chile") if commune.id == "providencia")


def parse(query: str) -> ListingFilters:
    return parse_filters(query, city_slug="santiago-de-chile", catalogue=CATALOGUE)


def test_every_valid_filter_is_read():
    filters = parse("comuna=providencia&precio_min=50000&precio_max=90000&edad_min=20&edad_max=30&servicio=viajes")
    assert filters == ListingFilters(
        commune=PROVIDENCIA, price_min=50000, price_max=90000, age_min=20, age_max=30, services=(VIAJES,)
    )


def test_no_query_means_no_filters():
    assert parse("") == NO_FILTERS
    assert not parse("").active


@pytest.mark.parametrize(
    "query",
    [
        "precio_min=50a00",
        "precio_min=abc",
        "precio_min=-5",
        "precio_min=5.5",
        "precio_min=1_000",
        "precio_min=%D9%A3",  # an Arabic-Indic digit
        "precio_min=999999999999",
        "precio_min=",
        "precio_min=1&precio_min=2",
        "edad_min=17",
        "edad_max=100",
        "edad_min=veinte",
        "comuna=vina-del-mar",  # a commune of another region
        "comuna=atlantis",
        "comuna=PROVIDENCIA",
        "comuna=providencia';DROP TABLE publicacion;--",
        "comuna=providencia&comuna=nunoa",
        "servicio=no-existe",
        "servicio=<script>",
        "otro=1",
    ],
)
def test_bad_values_are_ignored(query):
    assert parse(query) == NO_FILTERS


@pytest.mark.parametrize(
    "query, price",
    [
        ("precio_max=60000", 60000),
        ("precio_max=60.000", 60000),
        ("precio_max=%2460.000", 60000),
        ("precio_max=60+mil", 60000),
        ("precio_max=%2060000", 60000),
    ],
)
def test_a_rate_in_the_url_is_read_as_people_type_it(query, price):
    filters = parse(query)
    assert filters == ListingFilters(price_max=price)
    assert filters.query_string() == f"precio_max={price}"


def test_the_form_reads_rates_and_ages_as_typed():
    typed = read_typed_filters(
        {"precio_min": "$55 mil", "precio_max": "130.000", "edad_min": "25 años", "edad_max": " 30 ", "comuna": "x"}
    )
    assert typed == TypedFilters(
        values={"precio_min": 55000, "precio_max": 130000, "edad_min": 25, "edad_max": 30}, errors={}
    )
    assert read_typed_filters({"precio_min": "", "edad_max": "  "}) == TypedFilters(values={}, errors={})


def test_the_form_says_what_it_cannot_read_beside_its_field_and_keeps_the_rest():
    typed = read_typed_filters(
        {"precio_min": "sesenta", "precio_max": "60.000", "edad_min": "17", "edad_max": "treinta"}
    )
    assert typed.values == {"precio_max": 60000}
    assert typed.errors == {"precio_min": PRICE_MESSAGE, "edad_min": AGE_MESSAGE, "edad_max": AGE_MESSAGE}
    assert read_typed_filters({"precio_max": "999.999.999"}).errors == {"precio_max": PRICE_TOO_HIGH_MESSAGE}
    assert PRICE_TOO_HIGH_MESSAGE == "La tarifa puede ser de hasta $99.999.999."


def test_the_form_refuses_a_hasta_below_its_desde():
    typed = read_typed_filters({"precio_min": "90.000", "precio_max": "60.000", "edad_min": "20", "edad_max": "30"})
    assert typed.values == {"precio_min": 90000, "edad_min": 20, "edad_max": 30}
    assert typed.errors == {"precio_max": RANGE_MESSAGE}


def test_a_minimum_above_its_maximum_drops_that_range_only():
    filters = parse("precio_min=90000&precio_max=50000&edad_min=20&edad_max=30")
    assert (filters.price_min, filters.price_max) == (None, None)
    assert (filters.age_min, filters.age_max) == (20, 30)


def test_a_bad_value_leaves_the_others_applied():
    filters = parse("comuna=atlantis&precio_max=80000&servicio=no-existe&servicio=viajes")
    assert filters == ListingFilters(price_max=80000, services=(VIAJES,))


def test_services_are_unique_and_in_a_fixed_order():
    filters = parse("servicio=viajes&servicio=masajes-relajantes&servicio=viajes")
    assert filters.services == (MASAJES, VIAJES)


def test_the_canonical_query_string_has_a_fixed_order_and_only_valid_values():
    filters = parse("servicio=viajes&edad_max=30&comuna=providencia&precio_min=abc&precio_max=70000")
    assert filters.query_string() == "comuna=providencia&precio_max=70000&edad_max=30&servicio=viajes"
    assert parse(filters.query_string()) == filters
    assert filters.url("/escorts/santiago-de-chile") == f"/escorts/santiago-de-chile?{filters.query_string()}"
    assert NO_FILTERS.url("/escorts/talca") == "/escorts/talca"


def test_only_a_lone_commune_makes_a_commune_page():
    assert parse("comuna=providencia").commune_only
    assert not parse("comuna=providencia&edad_min=20").commune_only
    assert not parse("edad_min=20").commune_only


def test_filters_are_usable_as_cache_keys():
    assert hash(parse("comuna=providencia&servicio=viajes")) == hash(parse("servicio=viajes&comuna=providencia"))
    assert parse("precio_min=1000") != parse("precio_max=1000")


def test_the_tabs_keep_the_filters():
    filters = parse("comuna=providencia&edad_min=25")
    links = directory_view.tab_links(
        section="mujeres", city_slug="santiago-de-chile", active_slug=DEFAULT_TAB.slug, filters=filters
    )
    by_slug = {link.slug: link.url for link in links}
    assert by_slug["todas"] == "/escorts/santiago-de-chile?comuna=providencia&edad_min=25"
    assert by_slug["vip"] == "/escorts/santiago-de-chile/vip?comuna=providencia&edad_min=25"


def test_the_heading_names_the_commune():
    heading = directory_view.city_heading(
        section="mujeres",
        city_name="Santiago de Chile",
        kind="city",
        tab=TABS_BY_SLUG["verificadas"],
        filters=parse("comuna=providencia"),
    )
    assert heading == "Escorts en Providencia, Santiago de Chile: Verificadas"


def test_each_filter_shows_as_a_chip_that_links_to_the_page_without_it():
    filters = parse("comuna=providencia&precio_min=55000&precio_max=130000&edad_max=30&servicio=viajes")
    chips = directory_view.filter_chips(filters, "/escorts/santiago-de-chile/vip")
    assert [(chip.label, chip.url) for chip in chips] == [
        (
            "Comuna: Providencia",
            "/escorts/santiago-de-chile/vip?precio_min=55000&precio_max=130000&edad_max=30&servicio=viajes",
        ),
        (
            "Tarifa desde $55.000",
            "/escorts/santiago-de-chile/vip?comuna=providencia&precio_max=130000&edad_max=30&servicio=viajes",
        ),
        (
            "Tarifa hasta $130.000",
            "/escorts/santiago-de-chile/vip?comuna=providencia&precio_min=55000&edad_max=30&servicio=viajes",
        ),
        (
            "Edad hasta 30 años",
            "/escorts/santiago-de-chile/vip?comuna=providencia&precio_min=55000&precio_max=130000&servicio=viajes",
        ),
        (
            "Servicio: Viajes",
            "/escorts/santiago-de-chile/vip?comuna=providencia&precio_min=55000&precio_max=130000&edad_max=30",
        ),
    ]
    assert directory_view.filter_chips(parse("edad_min=20"), "/escorts/talca") == [
        directory_view.FilterChip(label="Edad desde 20 años", url="/escorts/talca")
    ]
    assert directory_view.filter_chips(NO_FILTERS, "/escorts/talca") == []
