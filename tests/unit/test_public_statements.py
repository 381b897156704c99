"""The public pages' card and detail statements are compiled once: nothing in them is rendered into the SQL
at each execution (SQLAlchemy's literal_execute and expanding parameters re-render the whole statement)."""

from __future__ import annotations

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from app.models.filter_tabs import DEFAULT_TAB
from app.models.listing_filters import ListingFilters
from app.services import listings


@pytest.mark.parametrize("dialect", [postgresql.psycopg.dialect(), sqlite.dialect()], ids=["postgresql", "sqlite"])
def test_the_card_and_detail_statements_render_nothing_per_execution(dialect):
    conditions = listings._city_conditions(
        "mujeres", "santiago-de-chile", DEFAULT_TAB, ListingFilters(price_max=90_000), listings.clock()
    )
    cards = listings._card_select(listings._capped_count(conditions, 201).scalar_subquery().label("total"))
    for statement in (cards.where(*conditions).limit(24), listings._PUBLIC_DETAIL):
        compiled = statement.compile(dialect=dialect)
        assert not compiled.literal_execute_params
        assert not compiled.post_compile_params
        assert "\x1f" in str(compiled)  # the photos' separator, as SQL text
