"""The wizard's watch over work in the task queue (a clip, a photo): a few-second poll that asks for a reading.

A background event cannot read on the caller's behalf without checking the session again, so the watch only
yields the state's guarded ``refresh`` handler for the browser to call. It stops once nothing is processing, when
the tab has left the wizard, when a newer watch of the same state replaced it, or after its rounds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any
from uuid import uuid4

from app.routes import ADVERTISER_NEW_LISTING


async def watch_on_wizard(
    state: Any, *, busy: Callable[[], bool], refresh: Any, seconds: float, rounds: int
) -> AsyncIterator[Any]:
    """Every ``seconds``, while ``busy()``, the tab shows the wizard and no newer watch of ``state`` started,
    yield ``refresh``; at most ``rounds`` times. ``state`` is a background event's state, whose ``_watch_id`` names
    the one watch that may run."""
    watch_id = uuid4().hex
    async with state:
        state._watch_id = watch_id
    for _ in range(rounds):
        await asyncio.sleep(seconds)
        async with state:
            on_wizard = state.router.url.path.rstrip("/") == ADVERTISER_NEW_LISTING
            if state._watch_id != watch_id or not on_wizard or not busy():
                return
        yield refresh
