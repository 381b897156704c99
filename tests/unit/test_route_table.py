"""The one route table: every page declared once, and the area guards and landing pages agree with it."""

from __future__ import annotations

from collections import Counter

import pytest

from app.content.legal import REPORT_PATH as LEGAL_REPORT_PATH
from app.identity.guards import LANDING, area_profile, landing_path
from app.models import ProfileId
from app.route_table import PAGE_ROUTES
from app.routes import (
    ACCOUNT_ACTION,
    ADVERTISER_HOME,
    ADVERTISER_NEW_LISTING,
    AREAS,
    LOGIN,
    NOT_FOUND,
    PUBLIC_HOME,
    REPORT_PATH,
    SIGNUP_SUCCESSFUL,
    TRANS_HOME,
    wizard_path,
)
from app.states.areas import AreaState
from app.states.auth import ACCESS_ATTR, AuthState
from app.states.public import DirectoryState

PATHS = {route.path for route in PAGE_ROUTES}
GUARDED = [route for route in PAGE_ROUTES if route.profiles]


def _fn(handler):
    return getattr(handler, "fn", handler)


def test_no_two_routes_share_a_path():
    shared = [path for path, count in Counter(route.path for route in PAGE_ROUTES).items() if count > 1]
    assert shared == []


def test_every_area_has_a_guarded_page():
    assert {area_profile(route.path) for route in GUARDED} == {area.profile for area in AREAS}


@pytest.mark.parametrize("route", GUARDED, ids=lambda route: route.path)
def test_guarded_page_has_one_profile_and_starts_with_the_area_guard(route):
    (profile,) = route.profiles
    assert area_profile(route.path) == ProfileId(profile)
    close, opener, *_ = route.on_load
    assert _fn(close) is _fn(AreaState.close)
    # The opener is the server-side check of exactly this page's profile.
    assert getattr(_fn(opener), ACCESS_ATTR) == route.profiles


@pytest.mark.parametrize("route", [r for r in PAGE_ROUTES if not r.profiles], ids=lambda route: route.path)
def test_public_pages_lie_outside_every_area_and_check_the_session_first(route):
    assert area_profile(route.path) is None
    # The directory's pages load in one event whose handler checks the session first itself.
    assert _fn(route.on_load[0]) in (_fn(AuthState.check_session), _fn(DirectoryState.load))


@pytest.mark.parametrize("profile", list(ProfileId))
def test_every_landing_path_is_a_registered_route(profile):
    assert landing_path(profile.value) in PATHS
    assert set(LANDING.values()) <= PATHS


def test_the_advertiser_pages_open_the_area_with_one_guarded_loader():
    """One guarded handler per load: a refused caller gets one notice, not one per handler."""
    by_path = {route.path: route for route in PAGE_ROUTES}
    for path in (ADVERTISER_HOME, ADVERTISER_NEW_LISTING):
        route = by_path[path]
        assert route.profiles == {ProfileId.PROFESOR.value}
        guarded = [h for h in route.on_load if getattr(_fn(h), ACCESS_ATTR, None) not in (None, "public")]
        assert len(guarded) == 1


def test_wizard_paths():
    assert wizard_path() == ADVERTISER_NEW_LISTING
    assert wizard_path("abc123") == f"{ADVERTISER_NEW_LISTING}?id=abc123"


def test_secretary_lands_in_their_own_area():
    assert area_profile(landing_path(ProfileId.SECRETARIA.value)) == ProfileId.SECRETARIA


def test_named_paths_are_registered_routes():
    assert {PUBLIC_HOME, TRANS_HOME, LOGIN, SIGNUP_SUCCESSFUL, ACCOUNT_ACTION, REPORT_PATH, NOT_FOUND} <= PATHS
    assert {ADVERTISER_HOME, ADVERTISER_NEW_LISTING} <= PATHS
    assert REPORT_PATH == LEGAL_REPORT_PATH  # the legal texts point people at the same page


def test_the_app_registers_exactly_the_table():
    from app.app import app

    registered = set(app._unevaluated_pages)
    assert registered == {route.path.strip("/") or "index" for route in PAGE_ROUTES}
