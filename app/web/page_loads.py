"""The directory's page loads in the navigation's own event, not in two events chained after it.

Reflex 0.10 runs a client-side navigation as four events, each taking the tab's state lock (with Redis: a lock,
a read and a write), computing a delta and sending it: ``update_vars_internal`` (the new URL's vars),
``on_load_internal`` (which marks the page not hydrated and queues the page's loaders and ``set_is_hydrated``),
then each loader, then ``set_is_hydrated``. A first load runs the same steps after its hydrate. For the
directory's pages, the ones people load most, the two chained events are half of a navigation's events, and each
adds a lock, a delta and a message of its own to the loader's work (docs/performance.md, 2026-11-30 07:58).

Installed here (:func:`install`, by the composition root, with the loaders to run inline):
``on_load_internal`` runs the page's loaders itself when every one of them is one of those, then marks the page
hydrated, so the page's new content and ``is_hydrated`` reach the browser in one delta, and the loaders'
returned events (a redirect, a notice) follow it as they would have followed the loader's own. Any other page
(the staff and advertiser areas, whose guarded content waits for ``is_hydrated`` to turn false and true again)
keeps Reflex's own way.

What an operator sees stays the same (app.web.observe): the event is counted, timed and logged under the
loaders' own names (``DirectoryState.load``), not as Reflex's plumbing; when a loader raises, the page still
gets its state and ``is_hydrated`` (as from the ``set_is_hydrated`` that Reflex would have run after the failed
loader), then the error goes to Reflex's handler as the event's.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from reflex.state import BaseState, OnLoadInternalState
from reflex_base.event import EventHandler
from reflex_base.event.processor.base_state_processor import chain_updates
from reflex_base.registry import RegistrationContext

_HANDLER = OnLoadInternalState.event_handlers["on_load_internal"]
_reflex_on_load_internal: Callable[[OnLoadInternalState], Any] = _HANDLER.fn
# The functions of the loaders run inline.
_inline: frozenset[Callable[..., Any]] = frozenset()
# The names of the loaders the current event ran inline ("DirectoryState.load"), for app.web.observe.
_ran: contextvars.ContextVar[str | None] = contextvars.ContextVar("page_loads_ran", default=None)


def loaders_run() -> str | None:
    """In an ``on_load_internal`` event: the loaders it ran inline, as ``State.event`` names; else None."""
    return _ran.get()


def _page_loaders(state: OnLoadInternalState) -> list[tuple[type[BaseState], Callable[..., Any]]] | None:
    """The page's loaders (each its state class and function) when every one runs inline; else None."""
    loaders = RegistrationContext.get().app.get_load_events(state.rx_router_url.path)
    found = [
        (loader.state, loader.fn)
        for loader in loaders
        if isinstance(loader, EventHandler) and loader.state is not None and loader.fn in _inline
    ]
    return found if found and len(found) == len(loaders) else None


async def _on_load_internal(self: OnLoadInternalState) -> Any:
    """Reflex's ``on_load_internal``, with the page's loaders run here when they all run inline."""
    loaders = _page_loaders(self)
    # Set on every call: a task started from this event's context (the token's next event) inherits the variable.
    _ran.set(None if loaders is None else "+".join(f"{cls.__name__}.{fn.__name__}" for cls, fn in loaders))
    if loaders is None:
        return _reflex_on_load_internal(self)
    events: list[Any] = []
    try:
        for cls, fn in loaders:
            result = await fn(await self.get_state(cls))
            events += [] if result is None else result if isinstance(result, list) else [result]
    except Exception:
        self.is_hydrated = True
        await chain_updates(None, handler_name=_reflex_on_load_internal.__qualname__, root_state=self._get_root_state())
        raise
    self.is_hydrated = True
    return events or None


def install(loaders: Iterable[Callable[..., Any]]) -> None:
    """Run ``loaders`` (event handlers, as a page's ``on_load`` names them) inside ``on_load_internal`` on every
    page whose loaders are all among them."""
    global _inline
    handlers = tuple(loaders)
    if not all(isinstance(handler, EventHandler) and inspect.iscoroutinefunction(handler.fn) for handler in handlers):
        raise TypeError("only an event handler of a coroutine (async def, not a generator) can load a page inline")
    _inline = frozenset(handler.fn for handler in handlers if isinstance(handler, EventHandler))
    inline = functools.wraps(_reflex_on_load_internal)(_on_load_internal)
    object.__setattr__(_HANDLER, "fn", inline)  # EventHandler is frozen; every reference shares this one object
    for cached in ("_is_coroutine_function", "is_background", "supersedes"):
        _HANDLER.__dict__.pop(cached, None)
