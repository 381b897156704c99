"""Database work of the directory and the plain HTTP routes runs off the event loop.

The query functions are replaced by slow stand-ins (that block like a stalled
database would): what is tested is where they run, not what they return. While
one of them blocks, the event loop must keep serving other work; a ticker
coroutine on the same loop counts how often it got to run.
"""

from __future__ import annotations

import asyncio
import time

import httpx
from reflex.state import State
from reflex_base.constants import RouteVar

from app.app import app as reflex_app  # registers every state too
from app.services import city_filters, listings
from app.states.public import DirectoryState
from app.web.api import build_api
from tests.handlers import run_async

BLOCK_SECONDS = 0.4
TICK_SECONDS = 0.01
MIN_TICKS = 10  # a loop blocked for the whole query gets one or two at most


def _slow_featured(**_kwargs):
    time.sleep(BLOCK_SECONDS)
    return []


def _slow_city_cards(**_kwargs):
    time.sleep(BLOCK_SECONDS)
    return listings.CardPage(cards=[], total=0, page=1, page_size=24)


def _slow_options(**_kwargs):
    time.sleep(BLOCK_SECONDS)
    return []


def _stand_ins(monkeypatch) -> None:
    """Every query of the directory and the SSG pages replaced by a slow stand-in."""
    monkeypatch.setattr(listings, "featured_cards", _slow_featured)
    monkeypatch.setattr(listings, "city_cards", _slow_city_cards)
    monkeypatch.setattr(city_filters, "service_options", _slow_options)
    monkeypatch.setattr(city_filters, "commune_counts", _slow_options)


async def _ticks_while(work) -> int:
    """Run ``work`` and count how many times a ticker on the same loop ran meanwhile."""
    task = asyncio.ensure_future(work)
    ticks = 0
    while not task.done():
        await asyncio.sleep(TICK_SECONDS)
        ticks += 1
    await task
    return ticks


def _directory_at(path: str) -> DirectoryState:
    root = State(_reflex_internal_init=True)
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path, RouteVar.QUERY: {}}, {})
    return root.get_substate(DirectoryState.get_full_name().split("."))


def test_directory_handlers_query_off_the_loop_with_a_slow_database_stand_in(monkeypatch):
    _stand_ins(monkeypatch)
    for path in ("/escorts", "/escorts/temuco"):
        state = _directory_at(path)
        ticks = run_async(_ticks_while(DirectoryState.event_handlers["load"].fn(state)))
        assert ticks >= MIN_TICKS, f"{path}: the event loop was blocked ({ticks} ticks)"


def test_ssg_routes_query_off_the_loop_with_a_slow_database_stand_in(monkeypatch):
    _stand_ins(monkeypatch)

    async def fetch(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=build_api(reflex_app))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.get(path)

    for path in ("/escorts-ssg", "/escorts-ssg/temuco"):
        ticks = run_async(_ticks_while(fetch(path)))
        assert ticks >= MIN_TICKS, f"{path}: the event loop was blocked ({ticks} ticks)"
