"""The city page's heading, tabs and tier groups (app.services.directory_view), shared by the app and its preview."""

from __future__ import annotations

from app.models import ListingCard
from app.models.filter_tabs import DEFAULT_TAB, FILTER_TABS, TABS_BY_SLUG
from app.services.directory_view import city_heading, tab_links, tier_groups
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
