"""The staff menus are derived from the route table (issue 34, item 2): every staff page is in its area's
menu under the title the route table gives it, and that title is the page's heading and, with the site's
name, its document title."""

from __future__ import annotations

import json

import pytest

from app.models import ProfileId
from app.route_table import PAGE_ROUTES, staff_nav
from app.settings import get_settings

AREAS = (ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
STAFF_ROUTES = [route for route in PAGE_ROUTES if route.profiles & {area.value for area in AREAS}]


def test_there_are_staff_routes_in_both_areas():
    assert {profile for route in STAFF_ROUTES for profile in route.profiles} == {area.value for area in AREAS}


@pytest.mark.parametrize("area", AREAS, ids=str)
def test_an_area_menu_lists_exactly_its_routes_in_the_table_order_with_their_titles(area):
    expected = [(route.path, route.label) for route in STAFF_ROUTES if route.profiles == {area.value}]
    assert list(staff_nav(area)) == expected
    assert all(label for _, label in expected)
    assert len({label for _, label in expected}) == len(expected), "two links of one menu read the same"


@pytest.mark.parametrize("route", STAFF_ROUTES, ids=lambda route: route.path)
def test_a_staff_page_is_titled_headed_and_framed_by_its_route(route):
    assert route.title == f"{route.label} | {get_settings().site_name}"
    rendered = str(route.page())
    assert f'jsx("h1",{{}},{json.dumps(route.label)})' in rendered
    # The frame's menu names the page, with its path: the link that takes there.
    assert json.dumps(route.label) in rendered.split('className:"staff-nav"', 1)[1]
    assert json.dumps(route.path) in rendered


def test_the_app_registers_each_staff_page_under_its_route_title():
    from app.app import app

    registered = {path: page.title for path, page in app._unevaluated_pages.items()}
    assert {route.path.strip("/"): route.title for route in STAFF_ROUTES}.items() <= registered.items()
