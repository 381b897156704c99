"""The one route table: every page of the site declared once (issue 8, convention 10).

Each :class:`~app.routes.PageRoute` carries the path, the page component, the
title, the profiles allowed in (empty = public) and the on_load handlers.
``app.app`` registers every entry in one loop. The guarded entries are built
from ``app.routes.AREAS``, the same data ``app.identity.guards`` derives the
area guards and landing pages from; ``tests/unit/test_route_table.py`` checks
that they agree. A staff page is framed here with its area's menu (:func:`staff_nav`): the area's
entries of this table in order, each under its title, so a page added here is in the menu.

This module imports the pages and states, so only ``app.app`` and the tests
import it; anything that needs a path imports the constants of ``app.routes``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from app.components.staff_layout import Nav, staff_frame
from app.content.legal import LEGAL_PAGES
from app.models import ProfileId
from app.pages.account import account_action_page, login_page, signup_successful_page
from app.pages.audit import audit_page
from app.pages.favourites import FAVOURITES_TITLE, favourites_page
from app.pages.legal import legal_page_component
from app.pages.my_account import HEADING as MY_ACCOUNT_HEADING
from app.pages.my_account import my_account_page
from app.pages.my_listings import my_listings_page
from app.pages.notice_preferences import notice_preferences_page
from app.pages.public import directory_page
from app.pages.review_queue import TITLE as REVIEW_QUEUE_TITLE
from app.pages.review_queue import review_queue_page
from app.pages.second_factor import second_factor_page
from app.pages.staff_catalogues import CATALOGUE_PAGES
from app.pages.staff_directory import advertisers_page, agencies_page
from app.pages.staff_listings import staff_listings_page
from app.pages.staff_overview import TITLE as OVERVIEW_TITLE
from app.pages.staff_overview import staff_overview_page
from app.pages.staff_reports import staff_reports_page
from app.pages.staff_settings import TITLE as SETTINGS_TITLE
from app.pages.staff_settings import staff_settings_page
from app.pages.staff_tasks import TITLE as TASKS_TITLE
from app.pages.staff_tasks import staff_tasks_page
from app.pages.staff_upgrades import staff_upgrades_page
from app.pages.staff_users import admin_users_page, secretary_users_page
from app.pages.wizard import wizard_page
from app.routes import (
    ACCOUNT_ACTION,
    ADMIN_ADVERTISERS,
    ADMIN_AGENCIES,
    ADMIN_AUDIT,
    ADMIN_HOME,
    ADMIN_LISTINGS,
    ADMIN_REPORTS,
    ADMIN_REVIEW_QUEUE,
    ADMIN_SETTINGS,
    ADMIN_TASKS,
    ADMIN_UPGRADES,
    ADMIN_USERS,
    ADVERTISER_HOME,
    ADVERTISER_NEW_LISTING,
    ADVERTISER_NOTICES,
    FAVOURITES,
    LOGIN,
    MY_ACCOUNT,
    NOT_FOUND,
    PUBLIC_ROUTES,
    REPORT_SLUG,
    SECOND_FACTOR,
    SECRETARY_ADVERTISERS,
    SECRETARY_LISTINGS,
    SECRETARY_REVIEW_QUEUE,
    SECRETARY_USERS,
    SIGNUP_SUCCESSFUL,
    PageRoute,
    admin_catalogue_path,
    legal_path,
)
from app.seo import LOGIN_DESCRIPTION, LOGIN_TITLE
from app.settings import get_settings
from app.states.account import AccountActionState, LoginState
from app.states.advertiser.my_listings import MyListingsState
from app.states.advertiser.notices import NoticePreferencesState
from app.states.advertiser.wizard import WizardState
from app.states.areas import AreaState
from app.states.auth import AuthState
from app.states.privacy import PrivacyState
from app.states.public import DirectoryState
from app.states.report import ReportState
from app.states.second_factor import SecondFactorState
from app.states.staff.audit import AuditTableState
from app.states.staff.catalogues import CATALOGUE_STATES
from app.states.staff.directory import AdvertisersTableState, AgenciesTableState
from app.states.staff.listings import StaffListingsState
from app.states.staff.overview import StaffOverviewState
from app.states.staff.reports import StaffReportsState
from app.states.staff.review_queue import ReviewQueueState
from app.states.staff.site_settings import SiteSettingsState
from app.states.staff.table import StaffTableState
from app.states.staff.task_health import TaskHealthState
from app.states.staff.upgrades import StaffUpgradesState
from app.states.staff.users import UsersTableState

# Every guarded page loads with AreaState.close, then one guarded loader of its own that opens
# the area: one check per load, so a refused caller gets one notice.

# The directory's loader checks the session itself (one event per load of the busiest pages), and runs inside the
# navigation's own event (app.web.page_loads, installed by the composition root with these loaders).
DIRECTORY_LOAD = (DirectoryState.load,)


def _titled(title: str) -> str:
    return f"{title} | {get_settings().site_name}"


def _advertiser_route(path: str, page: Callable[[], rx.Component], title: str, opener: Callable[..., Any]) -> PageRoute:
    """A page of the advertiser area: ``opener`` is its guarded loader, which also opens the area.

    One guarded handler per load, so a refused caller gets one notice, not one per handler.
    """
    return PageRoute(
        path=path,
        page=page,
        title=_titled(title),
        profiles=frozenset({ProfileId.PROFESOR.value}),
        on_load=(AreaState.close, opener),
    )


def _framed(content: Callable[[], rx.Component], area: ProfileId) -> Callable[[], rx.Component]:
    """``content`` in the staff frame of ``area``, with the area's menu as this table lists it."""

    def page() -> rx.Component:
        return staff_frame(content(), area, staff_nav(area))

    return page


def _staff_route(
    path: str, content: Callable[[], rx.Component], title: str, opener: Callable[..., Any], area: ProfileId
) -> PageRoute:
    """A page of a staff area, in its frame and menu under ``title``; ``opener`` is its guarded loader."""
    return PageRoute(
        path=path,
        page=_framed(content, area),
        title=_titled(title),
        profiles=frozenset({area.value}),
        on_load=(AreaState.close, opener),
        label=title,
    )


def _staff_table_route(
    path: str, content: Callable[[], rx.Component], state: type[StaffTableState], area: ProfileId
) -> PageRoute:
    """A staff table's page: titled as its spec heads the table, opened by its state's opener for ``area``."""
    opener = state.open_admin if area == ProfileId.ADMINISTRADOR else state.open_secretary
    return _staff_route(path, content, state._spec.title, opener, area)


PAGE_ROUTES: tuple[PageRoute, ...] = (
    # The public directory: one page for every shape; DirectoryState.load resolves the path.
    # No description here: each document carries its own (app.web.seo_api), and a second, generic
    # one from the app would stand beside it once the page runs.
    *(PageRoute(path, directory_page, DirectoryState.page_title, on_load=DIRECTORY_LOAD) for path in PUBLIC_ROUTES),
    *(
        PageRoute(
            legal_path(legal.slug),
            legal_page_component(legal),
            _titled(legal.title),
            on_load=(AuthState.check_session, ReportState.load)
            if legal.slug == REPORT_SLUG
            else (AuthState.check_session,),
            description=legal.description,
        )
        for legal in LEGAL_PAGES
    ),
    PageRoute(
        LOGIN,
        login_page,
        _titled(LOGIN_TITLE),
        on_load=(AuthState.check_session, LoginState.load),
        description=LOGIN_DESCRIPTION,
    ),
    # The visitor's saved listings: drawn in the browser (assets/favourites.js), nothing of them in the state.
    PageRoute(FAVOURITES, favourites_page, _titled(FAVOURITES_TITLE), on_load=(AuthState.check_session,)),
    # Every profile's account page: its guarded loader refuses anyone not signed in (issue 20 §2).
    PageRoute(
        MY_ACCOUNT,
        my_account_page,
        _titled(MY_ACCOUNT_HEADING),
        on_load=(AuthState.check_session, PrivacyState.open_page),
    ),
    PageRoute(
        SIGNUP_SUCCESSFUL, signup_successful_page, _titled("Confirma tu correo"), on_load=(AuthState.check_session,)
    ),
    PageRoute(
        ACCOUNT_ACTION,
        account_action_page,
        _titled("Tu cuenta"),
        on_load=(AuthState.check_session, AccountActionState.load),
    ),
    # The second step of a staff sign-in: its loader admits only a staff member's session (app.states.auth).
    PageRoute(
        SECOND_FACTOR,
        second_factor_page,
        _titled("Segundo factor"),
        on_load=(AuthState.check_session, SecondFactorState.load),
    ),
    # Guarded areas: the server accepts or refuses the caller before anything shows.
    _advertiser_route(ADVERTISER_HOME, my_listings_page, "Mis publicaciones", MyListingsState.open_page),
    _advertiser_route(ADVERTISER_NEW_LISTING, wizard_page, "Nueva publicación", WizardState.open_page),
    _advertiser_route(
        ADVERTISER_NOTICES, notice_preferences_page, "Avisos por correo", NoticePreferencesState.open_page
    ),
    # The staff areas, each page in its area's menu in this order (staff_nav).
    _staff_route(
        ADMIN_HOME, staff_overview_page, OVERVIEW_TITLE, StaffOverviewState.open_page, ProfileId.ADMINISTRADOR
    ),
    _staff_table_route(ADMIN_USERS, admin_users_page, UsersTableState, ProfileId.ADMINISTRADOR),
    _staff_table_route(ADMIN_ADVERTISERS, advertisers_page, AdvertisersTableState, ProfileId.ADMINISTRADOR),
    _staff_table_route(ADMIN_AGENCIES, agencies_page, AgenciesTableState, ProfileId.ADMINISTRADOR),
    *(
        _staff_table_route(admin_catalogue_path(key), CATALOGUE_PAGES[key], state, ProfileId.ADMINISTRADOR)
        for key, state in CATALOGUE_STATES.items()
    ),
    _staff_table_route(ADMIN_LISTINGS, staff_listings_page, StaffListingsState, ProfileId.ADMINISTRADOR),
    # The review queue: both staff areas, each page opened by its own profile's guarded loader.
    _staff_route(
        ADMIN_REVIEW_QUEUE, review_queue_page, REVIEW_QUEUE_TITLE, ReviewQueueState.open_admin, ProfileId.ADMINISTRADOR
    ),
    _staff_table_route(ADMIN_UPGRADES, staff_upgrades_page, StaffUpgradesState, ProfileId.ADMINISTRADOR),
    _staff_table_route(ADMIN_REPORTS, staff_reports_page, StaffReportsState, ProfileId.ADMINISTRADOR),
    _staff_table_route(ADMIN_AUDIT, audit_page, AuditTableState, ProfileId.ADMINISTRADOR),
    _staff_route(
        ADMIN_SETTINGS, staff_settings_page, SETTINGS_TITLE, SiteSettingsState.open_page, ProfileId.ADMINISTRADOR
    ),
    _staff_route(ADMIN_TASKS, staff_tasks_page, TASKS_TITLE, TaskHealthState.open_page, ProfileId.ADMINISTRADOR),
    _staff_table_route(SECRETARY_USERS, secretary_users_page, UsersTableState, ProfileId.SECRETARIA),
    _staff_table_route(SECRETARY_ADVERTISERS, advertisers_page, AdvertisersTableState, ProfileId.SECRETARIA),
    _staff_table_route(SECRETARY_LISTINGS, staff_listings_page, StaffListingsState, ProfileId.SECRETARIA),
    _staff_route(
        SECRETARY_REVIEW_QUEUE,
        review_queue_page,
        REVIEW_QUEUE_TITLE,
        ReviewQueueState.open_secretary,
        ProfileId.SECRETARIA,
    ),
    # Any path no page matches goes to the public home (SPEC §2).
    PageRoute(NOT_FOUND, directory_page, get_settings().site_name, on_load=DIRECTORY_LOAD),
)


def staff_nav(area: ProfileId) -> Nav:
    """The menu of a staff area: its pages in this table's order, each (path, title)."""
    return tuple((route.path, route.label) for route in PAGE_ROUTES if route.label and route.profiles == {area.value})
