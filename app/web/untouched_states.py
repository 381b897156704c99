"""Reflex's hydrate of a new tab, without building the defaults of the states the tab never used.

A tab's first connection hydrates it: Reflex takes a snapshot of every state of the app (38 classes, 460 vars),
creating each var's default on its state on the way (a field gets its value on first access), serializes
every var once more to compare it with the defaults compiled into the page, and walks every var again to
reset the ones the browser keeps. A visitor's tab uses a handful of those states; the staff tables, the
wizard and the account forms stay as they were created. Under the visitors' mix (150 tabs, memory state)
that hydrate was 14 % of the worker's time, more than any part of the directory (docs/performance.md,
2026-11-29 16:00).

Installed here (``install``, by the composition root), each giving what Reflex 0.10.1's own gives:

- ``BaseState.dict``: a state none of whose own vars was ever read, set or marked dirty holds what a new
  state of its class holds. When its computed vars read nothing but its own vars (Reflex recomputes them
  only when one of those changes), its entry is a copy of its class's, taken once from new states with
  Reflex's own ``dict``, with a new list, dict or set where a state would get one; nothing is created on the
  state. Any other state (one that was used, a computed var reading the router or another state, a value
  that could change in place), the compiled defaults, and any call with other arguments are Reflex's own.
- ``reflex.state._serialize_var``, which the hydrate's comparison calls for each var: an empty list, dict, set
  or tuple is always the same JSON, and an immutable value of a class's entry is serialized once.
- ``BaseState._reset_client_storage``: a class without a var kept in the browser has nothing to reset and
  goes straight to its substates.

A class whose two new states differ (a default taken from the clock, say) keeps Reflex's way.
``tests/unit/test_untouched_states.py`` compares each with Reflex's own on the app's states.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import reflex.state as reflex_state
from reflex.state import BaseState

_reflex_dict = BaseState.dict
_reflex_reset_client_storage = BaseState._reset_client_storage
_reflex_serialize_var = reflex_state._serialize_var


@dataclass(frozen=True)
class _ClassDefaults:
    """What a state class starts with: the names of its own vars (a state holding none of them is untouched);
    if its snapshot entry can be shared, the entry and, for its lists, dicts and sets (made new for each state),
    how to make each; and whether any of its vars is kept in the browser."""

    names: frozenset[str]
    entry: dict[str, Any] | None
    made: tuple[tuple[str, Callable[[], Any]], ...]
    keeps_client_storage: bool


_DEFAULTS: dict[type[BaseState], _ClassDefaults] = {}
_IMMUTABLE = (str, int, float, bool, type(None))
_CONTAINERS = (list, dict, set)
# id of an immutable value of an entry -> (the value, its JSON): the value is held, so its id is never reused.
_SERIALIZED: dict[int, tuple[Any, str]] = {}
# An empty container's JSON, by its type.
_EMPTY_JSON = {kind: _reflex_serialize_var(kind()) for kind in (list, dict, set, tuple)}


def _class_defaults(cls: type[BaseState]) -> _ClassDefaults:
    found = _DEFAULTS.get(cls)
    if found is None:
        found = _DEFAULTS[cls] = _read_defaults(cls)
    return found


def _read_defaults(cls: type[BaseState]) -> _ClassDefaults:
    fields = cls.get_fields()
    names = frozenset(cls.base_vars) | {name for name, field in fields.items() if field._owner is cls}
    keeps_client_storage = any(cls._is_client_storage(fields[name]) for name in cls.base_vars)
    entry, made = _shared_entry(cls) if _computed_from_own_vars(cls, names) else (None, ())
    return _ClassDefaults(names, entry, made, keeps_client_storage)


def _computed_from_own_vars(cls: type[BaseState], names: frozenset[str]) -> bool:
    """Whether each computed var of ``cls`` is one Reflex recomputes only when one of the class's own ``names``
    changes: cached, with no interval, reading nothing of another state or of the router."""
    own = cls.get_full_name()
    for var in cls.computed_vars.values():
        if not var._cache or var._update_interval is not None:
            return False
        for state_name, read in var._deps(objclass=cls).items():
            if state_name != own or not set(read) <= names:
                return False
    return True


def _shared_entry(cls: type[BaseState]) -> tuple[dict[str, Any] | None, tuple[Any, ...]]:
    """A new state's entry in Reflex's snapshot, computed vars included, taken from two new states of ``cls``
    (None if they differ, or if a value could be changed in place and is no list, dict or set); and how to make
    its lists, dicts and sets for each snapshot."""
    first, second = (_reflex_dict(cls(_reflex_internal_init=True))[cls.get_full_name()] for _ in range(2))
    if {key: _reflex_serialize_var(value) for key, value in first.items()} != {
        key: _reflex_serialize_var(value) for key, value in second.items()
    }:
        return None, ()
    made: list[tuple[str, Callable[[], Any]]] = []
    for key, value in first.items():
        kind = type(value)
        if kind in _CONTAINERS:
            made.append((key, kind if not value else functools.partial(copy.deepcopy, value)))
        elif kind in _IMMUTABLE:
            _SERIALIZED[id(value)] = (value, _reflex_serialize_var(value))
        elif not isinstance(value, tuple | frozenset) and not _frozen_dataclass(value):
            return None, ()
    return first, tuple(made)


def _frozen_dataclass(value: Any) -> bool:
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and bool(params.frozen)


def _dict(self: BaseState, include_computed: bool = True, initial: bool = False, **kwargs: Any) -> dict[str, Any]:
    """Reflex's ``BaseState.dict``, with an untouched state's entry made from its class's."""
    defaults = _class_defaults(type(self))
    if (
        defaults.entry is None
        or kwargs
        or (initial and self.computed_vars)  # the compiled defaults: Reflex's own initial values
        or self.dirty_vars
        or not self.__dict__.keys().isdisjoint(defaults.names)
    ):
        return _reflex_dict(self, include_computed=include_computed, initial=initial, **kwargs)
    entry = dict(defaults.entry)
    for key, make in defaults.made:
        entry[key] = make()
    snapshot = {self.get_full_name(): entry}
    for substate in self.substates.values():
        snapshot.update(substate.dict(include_computed=include_computed, initial=initial))
    return snapshot


def _serialize_var(value: Any) -> str:
    """Reflex's ``_serialize_var``, without serializing an empty container or an immutable default again."""
    if type(value) in _EMPTY_JSON and not value:
        return _EMPTY_JSON[type(value)]
    known = _SERIALIZED.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    return _reflex_serialize_var(value)


def _reset_client_storage(self: BaseState) -> None:
    """Reflex's ``_reset_client_storage``, skipping the vars of a class that keeps none in the browser."""
    if _class_defaults(type(self)).keeps_client_storage:
        _reflex_reset_client_storage(self)  # type: ignore[no-untyped-call]  # Reflex's own, untyped
        return
    for substate in self.substates.values():
        substate._reset_client_storage()  # type: ignore[no-untyped-call]  # as above


def install() -> None:
    """Put the three in place of Reflex's (idempotent)."""
    BaseState.dict = _dict  # type: ignore[method-assign]  # the patch is the point
    BaseState._reset_client_storage = _reset_client_storage  # type: ignore[method-assign]  # the patch is the point
    reflex_state._serialize_var = _serialize_var
