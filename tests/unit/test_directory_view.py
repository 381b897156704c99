"""The city page's heading, tabs and tier groups (app.services.directory_view), shared by the app and its preview."""

from __future__ import annotations

from app.core.geo import Commune, place_name
from app.models import ListingCard
from app.models.filter_tabs import DEFAULT_TAB, FILTER_TABS, TABS_BY_SLUG
from app.models.listing_filters import ListingFilters
from app.routes import section_home
from app.seo import home_heading, place_heading
from app.services.directory_view import (
    apply_label,
    city_heading,
    count_label,
    page_label,
    published_label,
    tab_links,
    tier_groups,
)
from app.services.listings import COUNT_CAP, FILTERED_COUNT_CAP, CardPage
from tests.factories import card_view


def _card(name: str, tier: str) -> ListingCard:
    return card_view(uid=name, display_name=name, tier_name=tier.title(), tier_slug=tier)


def test_headings_name_section_city_and_tab():
    verified = TABS_BY_SLUG["verificadas"]
    assert city_heading(section="mujeres", city_name="Talca", kind="city", tab=DEFAULT_TAB) == "Escorts en Talca"
    assert city_heading(section="mujeres", city_name="Talca", kind="city", tab=verified) == (
        "Escorts en Talca: Verificadas"
    )
    assert city_heading(section="trans", city_name="Talca", kind="all", tab=DEFAULT_TAB) == (
        "Todas las escorts trans en Talca"
    )


def test_tab_links_mark_the_active_tab_only():
    links = tab_links(section="trans", city_slug="talca", active_slug="verificadas")
    assert [link.slug for link in links] == [tab.slug for tab in FILTER_TABS]
    assert [link.slug for link in links if link.active] == ["verificadas"]
    assert links[0].url == "/escorts/trans/talca"
    assert {link.slug: link.url for link in links}["verificadas"] == "/escorts/trans/talca/verificadas"


def test_tier_groups_keep_order_and_group_consecutive_tiers():
    cards = [_card("a", "diamante"), _card("b", "diamante"), _card("c", "oro"), _card("d", "oro")]
    groups = tier_groups(cards)
    assert [(g.slug, [c.uid for c in g.cards]) for g in groups] == [("diamante", ["a", "b"]), ("oro", ["c", "d"])]
    assert tier_groups([]) == []


def test_count_and_pager_labels_in_spanish_exact_and_past_the_cap():
    exact = CardPage(cards=[], total=1234, page=2, page_size=24)
    assert (count_label(exact), apply_label(exact), page_label(exact)) == (
        "1.234 avisos",
        "Ver 1.234 avisos",
        "Página 2 de 52",
    )
    one = CardPage(cards=[], total=1, page=1, page_size=24)
    assert (count_label(one), apply_label(one), published_label(one)) == ("1 aviso", "Ver 1 aviso", "1 aviso publicado")
    none = CardPage(cards=[], total=0, page=1, page_size=24)
    assert (count_label(none), page_label(none)) == ("0 avisos", "Página 1 de 1")
    capped = CardPage(cards=[], total=COUNT_CAP + 1, page=3, page_size=24, exact=False)
    assert (count_label(capped), apply_label(capped), page_label(capped), published_label(capped)) == (
        "Más de 1.000 avisos",
        "Ver más de 1.000 avisos",
        "Página 3",
        "Más de 1.000 avisos publicados",
    )
    filtered = CardPage(
        cards=[], total=FILTERED_COUNT_CAP + 1, page=1, page_size=24, exact=False, cap=FILTERED_COUNT_CAP
    )
    assert (count_label(filtered), apply_label(filtered)) == ("Más de 200 avisos", "Ver más de 200 avisos")


def test_a_commune_page_names_the_commune_then_its_city_in_app_head_and_ssg_alike():
    providencia, talca = Commune("providencia", "Providencia"), Commune("talca", "Talca")
    filtered = ListingFilters(commune=providencia)
    assert city_heading(section="mujeres", city_name="Santiago", kind="city", tab=DEFAULT_TAB, filters=filtered) == (
        "Escorts en Providencia, Santiago"
    )
    # One rule for the heading, the head's title and the SSG page's heading: a commune named as its city is the city.
    assert place_name("Santiago", providencia) == "Providencia, Santiago"
    assert place_name("Talca", talca) == place_name("Talca") == "Talca"
    assert place_heading("trans", "Talca") == "Escorts trans en Talca" and home_heading("mujeres") == "Escorts en Chile"
    assert section_home("trans") == "/escorts/trans" and section_home("mujeres") == "/escorts"
