"""Call a state's event handler in-process, as the Reflex backend would for one client.

A fresh state tree per client; each call runs inside an event context whose
routing data carries the headers the connection's handshake would have had
after ``app.web.cookies.handshake_middleware`` (the session cookie, if
any, replaced by its digest), on an event loop of its own (Playwright's sync
API may already own this thread's loop).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from reflex.state import State
from reflex_base.constants import RouteVar
from reflex_base.event.context import EventContext

import app.app  # noqa: F401  (registers every page and state)
from app.identity.sessions import SESSION_COOKIE
from app.states.auth import AuthState
from app.web.cookies import handshake_middleware

T = TypeVar("T")


def run_async(awaitable: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on an event loop of its own, in a worker thread.

    Once the end-to-end tests ran, Playwright's sync API holds a running loop
    in the main thread for the rest of the session, so asyncio.run there fails.
    """
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, awaitable).result()


# id(root state) -> the handshake headers of that client's connection
_CONNECTIONS: dict[int, dict[str, str]] = {}


def handshake_headers(cookie_header: str = "", extra: list[tuple[bytes, bytes]] | None = None) -> dict[str, str]:
    """The headers Reflex would see for a websocket opened with this Cookie header (through the middleware)."""
    seen: dict = {}

    async def capture(scope, receive, send):
        seen.update({name.decode(): value.decode() for name, value in scope["headers"]})

    raw = [(b"host", b"localhost")] + ([(b"cookie", cookie_header.encode())] if cookie_header else []) + (extra or [])
    scope = {"type": "websocket", "path": "/_event/", "headers": raw}
    run_async(handshake_middleware(capture)(scope, None, None))
    return seen


def client_states(state_cls: type, token: str = "") -> tuple:
    """(the state of ``state_cls``, the AuthState) of a new client whose browser holds session ``token``."""
    root = State(_reflex_internal_init=True)
    _CONNECTIONS[id(root)] = handshake_headers(f"{SESSION_COOKIE}={token}" if token else "")
    auth = root.get_substate(AuthState.get_full_name().split("."))
    return root.get_substate(state_cls.get_full_name().split(".")), auth


def _events(result) -> list:
    if result is None:
        return []
    return list(result) if isinstance(result, list | tuple) else [result]


async def _noop(*_args, **_kwargs) -> None:
    return None


async def _call(state, fn, kwargs: dict, headers: dict[str, str]) -> list:
    context = EventContext(
        token="test-client", state_manager=None, enqueue_impl=_noop, router_data={RouteVar.HEADERS: headers}
    )
    with context:
        result = fn(state, **kwargs)
        if inspect.isasyncgen(result):
            return [event async for item in result for event in _events(item)]
        if inspect.isawaitable(result):
            result = await result
        return _events(result)


def invoke(state, name: str, **kwargs) -> list:
    """Run the event handler ``name`` of ``state`` with ``kwargs``; return the events it asked for."""
    fn = type(state).event_handlers[name].fn
    headers = _CONNECTIONS.get(id(state._get_root_state()), {})
    return run_async(_call(state, fn, kwargs, headers))


def script_of(events: list) -> str:
    """The JavaScript of the call_script events among ``events``, joined."""
    scripts = []
    for event in events:
        args = {str(k): v for k, v in getattr(event, "args", ())}
        code = args.get("javascript_code")
        if code is not None:
            scripts.append(str(getattr(code, "_var_value", code)))
    return "\n".join(scripts)


def ticket_in(events: list) -> str:
    """The sign-in ticket a handler asked the browser to exchange for the session cookie."""
    found = re.search(r"'X-Ticket': (\"[^\"]*\")", script_of(events))
    assert found, f"no ticket exchange among {events}"
    return json.loads(found.group(1))
