"""The directory's pages load in the navigation's own event (app.web.page_loads), through Reflex's real event
processor on memory state, as a tab's websocket sends a navigation: ``update_vars_internal`` then
``on_load_internal``. What the server would send the page is recorded by a stand-in for the websocket
namespace (its ``emit_update``); everything else is the app's and Reflex's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from reflex_base.constants import CompileVars
from reflex_base.event import Event
from reflex_base.event.processor.base_state_processor import BaseStateEventProcessor

from app.app import app as reflex_app
from app.routes import LOGIN
from app.states import public
from app.states.failures import UNEXPECTED
from app.states.public import DirectoryState
from tests.factories import make_listing, make_owner
from tests.metrics_scrape import value

pytestmark = pytest.mark.integration

ROOT = "reflex___state____state"
UPDATE_VARS = f"{ROOT}.{CompileVars.UPDATE_VARS_INTERNAL}"
ON_LOAD = f"{ROOT}.{CompileVars.ON_LOAD_INTERNAL}"
HYDRATE = f"{ROOT}.{CompileVars.HYDRATE}"
DIRECTORY = DirectoryState.get_full_name()
SET_HYDRATED = "OnLoadInternalState.set_is_hydrated"
HYDRATED_VAR = f"{CompileVars.IS_HYDRATED}_rx_state_"
WAIT_S = 20


class Page:
    """What one tab was sent: each update's delta (state name -> vars) and frontend events, in order."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def emit_update(self, update: Any, token: str) -> None:
        self.updates.append(update)

    def deltas(self) -> list[dict[str, dict[str, Any]]]:
        return [dict(update.delta) for update in self.updates if update.delta]

    def events(self) -> list[str]:
        return [event.name for update in self.updates for event in update.events]


def hydrated(page: Page) -> bool:
    """The page was told it is hydrated: its loaders have run."""
    return any(delta.get(ROOT, {}).get(HYDRATED_VAR) is True for delta in page.deltas())


def navigate(path: str, *, until: Callable[[Page], bool] = hydrated) -> Page:
    """A new tab hydrated on the home page (its loader not run), then a client-side navigation to ``path``; what
    the navigation sent once ``until`` holds for it (the events it chained run on after their parent's end)."""
    page = Page()

    async def scenario() -> None:
        processor = BaseStateEventProcessor(backend_exception_handler=reflex_app.backend_exception_handler)
        processor.configure(event_namespace=page)  # type: ignore[arg-type]  # only emit_update is called
        async with processor:
            for name, route in ((HYDRATE, "/"), (UPDATE_VARS, path), (ON_LOAD, path)):
                if route == path and name == UPDATE_VARS:
                    page.updates.clear()  # what the navigation sent, not the tab's hydrate
                payload = {"vars": {}} if name == UPDATE_VARS else {}
                router = {"pathname": path.split("?")[0], "asPath": path} if route == path else {"pathname": "/"}
                future = await processor.enqueue("pestana", Event(name=name, payload=payload, router_data=router))
                with contextlib.suppress(Exception):  # a handler's failure: Reflex's handler answers it
                    await future
            async with asyncio.timeout(WAIT_S):
                while not until(page):
                    await asyncio.sleep(0.01)

    context = contextvars.copy_context()  # the handlers app.app registered live in a context variable
    with ThreadPoolExecutor(max_workers=1) as worker:
        worker.submit(context.run, asyncio.run, scenario()).result()
    return page


def counted(handler: str, outcome: str = "ok") -> float:
    return value("escorts_ws_events_total", handler=handler, outcome=outcome)


def test_a_city_page_loads_in_the_navigations_own_event_with_its_cards_and_hydrated(app_database, db, caplog):
    listing = make_listing(db, make_owner(db, "carga@correo.cl"), name="Carla", city="temuco")
    loads, hydrates = counted("DirectoryState.load"), counted(SET_HYDRATED)
    with caplog.at_level(logging.INFO, logger="app.events"):
        page = navigate("/escorts/temuco")
    # One delta for the URL's vars, one for the page: its cards, the path shown and is_hydrated together.
    [_, loaded] = page.deltas()
    assert loaded[DIRECTORY]["shown_path_rx_state_"] == "/escorts/temuco"
    assert loaded[DIRECTORY]["view_rx_state_"] == "city"
    shown = [card for group in loaded[DIRECTORY]["groups_rx_state_"] for card in group.cards]
    assert [card.uid for card in shown] == [listing.uid]
    assert loaded[ROOT][HYDRATED_VAR] is True
    # The loader ran once, inside on_load_internal; no set_is_hydrated event followed.
    assert counted("DirectoryState.load") == loads + 1
    assert counted(SET_HYDRATED) == hydrates
    records = [r.event for r in caplog.records if r.name == "app.events"]  # type: ignore[attr-defined]
    assert [record["handler"] for record in records] == ["State.hydrate", "DirectoryState.load"]


def test_a_stale_detail_path_redirects_after_the_navigations_delta(app_database, db):
    listing = make_listing(db, make_owner(db, "vieja@correo.cl"), name="Dana", city="temuco")
    page = navigate(f"/escorts/temuco/otro-nombre/{listing.uid}", until=lambda page: bool(page.events()))
    assert page.events() == ["_redirect"]
    assert hydrated(page)


def test_a_page_with_other_loaders_keeps_reflexs_own_chain(app_database):
    hydrates = counted(SET_HYDRATED)
    navigate(LOGIN)
    assert counted(SET_HYDRATED) == hydrates + 1


def test_a_failed_load_still_hydrates_the_page_and_is_counted_as_the_loaders_error(app_database, monkeypatch):
    async def broken(**_: object) -> None:
        raise RuntimeError("la base no responde")

    monkeypatch.setattr(public, "build_public_view", broken)
    failed = counted("DirectoryState.load", "error")
    page = navigate("/escorts/temuco", until=lambda page: bool(page.events()))
    assert hydrated(page)
    assert counted("DirectoryState.load", "error") == failed + 1
    # The page's state and is_hydrated came first, then the app's notice for the failure.
    assert page.updates[-1].events and not page.updates[-1].delta
    assert json.dumps(UNEXPECTED)[1:-1] in page.updates[-1].events[0].payload["function"]  # the toast's script
