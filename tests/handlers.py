"""Call a state's event handler in-process, as the Reflex backend would for one client.

A fresh state tree per call, the caller's session token put where the browser
would put it, and the handler run on an event loop of its own (Playwright's
sync API may already own this thread's loop).
"""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor

from reflex.state import State

import app.app  # noqa: F401  (registers every page and state)
from app.states.auth import AuthState


def client_states(state_cls: type, token: str = "") -> tuple:
    """(the state of ``state_cls``, the AuthState) of a new client holding ``token``."""
    root = State(_reflex_internal_init=True)
    auth = root.get_substate(AuthState.get_full_name().split("."))
    auth.session_token = token
    return root.get_substate(state_cls.get_full_name().split(".")), auth


def _events(result) -> list:
    if result is None:
        return []
    return list(result) if isinstance(result, list | tuple) else [result]


async def _call(state, fn, kwargs: dict) -> list:
    result = fn(state, **kwargs)
    if inspect.isasyncgen(result):
        return [event async for item in result for event in _events(item)]
    if inspect.isawaitable(result):
        result = await result
    return _events(result)


def invoke(state, name: str, **kwargs) -> list:
    """Run the event handler ``name`` of ``state`` with ``kwargs``; return the events it asked for."""
    fn = type(state).event_handlers[name].fn
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, _call(state, fn, kwargs)).result()
