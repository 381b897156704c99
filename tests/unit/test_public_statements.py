"""The public pages' card and detail statements are compiled once: nothing in them is rendered into the SQL
at each execution (SQLAlchemy's literal_execute and expanding parameters re-render the whole statement), and a
city page's statements are built once for each tab, order and shape of filters, every value a bound parameter."""

from __future__ import annotations

import pytest
from sqlalchemy import column
from sqlalchemy.dialects import postgresql, sqlite

from app.models.filter_tabs import FILTER_TABS
from app.models.listing_filters import ListingFilters, ServiceOption
from app.models.listings import service_pattern
from app.services import listings

EVERY_FILTER = ListingFilters(
    price_min=40_000,
    price_max=90_000,
    age_min=20,
    age_max=40,
    services=(ServiceOption("viajes", "uid-1", "Viajes"), ServiceOption("cena", "uid-2", "Cena")),
)


@pytest.mark.parametrize("dialect", [postgresql.psycopg.dialect(), sqlite.dialect()], ids=["postgresql", "sqlite"])
@pytest.mark.parametrize("tab", FILTER_TABS, ids=[tab.slug for tab in FILTER_TABS])
def test_the_card_and_detail_statements_render_nothing_per_execution(dialect, tab):
    city = listings._city_statements(tab, True, EVERY_FILTER.shape)
    for statement in (city.page, city.count, listings._PUBLIC_DETAIL):
        compiled = statement.compile(dialect=dialect)
        assert not compiled.literal_execute_params
        assert not compiled.post_compile_params
        if statement is not city.count:
            assert "\x1f" in str(compiled)  # the photos' separator, as SQL text
    # What a call gives is a parameter the call names, never a value bound into the statement (the constants of
    # the definition of a public listing are).
    called = {"section", "city_slug", "count_limit", *EVERY_FILTER.params()}
    for statement, names in ((city.page, {*called, "offset", "page_size"}), (city.count, called)):
        params = statement.compile(dialect=dialect).params
        assert {name: params.get(name, "missing") for name in names} == dict.fromkeys(names)


def test_a_city_page_statement_serves_every_filters_of_its_shape():
    cheap = listings._city_statements(FILTER_TABS[1], True, ListingFilters(price_max=50_000).shape)
    assert listings._city_statements(FILTER_TABS[1], True, ListingFilters(price_max=90_000).shape) is cheap
    assert listings._city_statements(FILTER_TABS[1], False, ListingFilters(price_max=90_000).shape) is not cheap
    assert listings._city_statements(FILTER_TABS[1], True, ListingFilters(price_min=50_000).shape) is not cheap
    assert listings._city_statements(FILTER_TABS[2], True, ListingFilters(price_max=50_000).shape) is not cheap


@pytest.mark.parametrize("uid", ["0f6c2a", "a_b", "50%", "x/y", "/%_"])
def test_a_services_pattern_escapes_as_sqlalchemys_autoescape(uid):
    theirs = column("service_uids").contains(f" {uid} ", autoescape=True).compile(dialect=postgresql.dialect())
    (value,) = theirs.params.values()
    assert f"%{value}%" == service_pattern(uid)
    assert "ESCAPE '/'" in str(theirs)
