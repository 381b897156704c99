"""Reflex's hydrate of a new tab, without building the defaults of the states the tab never used.

A tab's first connection hydrates it: Reflex takes a snapshot of every state of the app (38 classes, 460 vars),
creating each var's default on its state on the way (a field gets its value on first access), serializes
every var once more to compare it with the defaults compiled into the page, and walks every var again to
reset the ones the browser keeps. A visitor's tab uses a handful of those states; the staff tables, the
wizard and the account forms stay as they were created. Under the visitors' mix (150 tabs, memory state)
that hydrate was 14 % of the worker's time, more than any part of the directory (docs/performance.md,
2026-11-29 16:00).

Installed here (``install``, by the composition root), each giving what Reflex 0.10.1's own gives:

- ``BaseState.dict``: a state whose class has no computed var and none of whose vars was ever read, set or
  marked dirty holds its class's defaults. Its entry is a copy of the class's default entry, built once, with
  a new list or dict where the state would get one, and nothing is created on the state. Any other state, or
  any call with other arguments, is Reflex's own.
- ``reflex.state._serialize_var``, which the hydrate's comparison calls for each var: an empty list, dict, set
  or tuple is always the same JSON, and an immutable default's is kept from when its class's entry was built.
- ``BaseState._reset_client_storage``: a class without a var kept in the browser has nothing to reset and
  goes straight to its substates.

A class whose defaults differ between two reads (a default factory of the time, say) keeps Reflex's way.
``tests/unit/test_untouched_states.py`` compares each with Reflex's own on the app's states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import reflex.state as reflex_state
from reflex.state import BaseState
from reflex_base.constants.state import FIELD_MARKER

_reflex_dict = BaseState.dict
_reflex_reset_client_storage = BaseState._reset_client_storage
_reflex_serialize_var = reflex_state._serialize_var


@dataclass(frozen=True)
class _ClassDefaults:
    """What a state class starts with: its vars' names; if its snapshot entry can be shared, the entry and,
    for the vars whose default is made new for each state (lists, dicts), how to make it; and whether any of
    its vars is kept in the browser."""

    names: frozenset[str]
    entry: dict[str, Any] | None
    made: tuple[tuple[str, Callable[[], Any]], ...]
    keeps_client_storage: bool


_DEFAULTS: dict[type[BaseState], _ClassDefaults] = {}
_IMMUTABLE = (str, int, float, bool, type(None))
# id of an immutable default -> (the value, its JSON): the value is held, so its id is never reused.
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
    names = sorted(cls.base_vars)
    keeps_client_storage = any(cls._is_client_storage(fields[name]) for name in names)
    entry, made = None, []
    if not cls.computed_vars:
        values = {name: fields[name].default_value() for name in names}
        if all(
            _reflex_serialize_var(fields[name].default_value()) == _reflex_serialize_var(values[name]) for name in names
        ):
            entry = {name + FIELD_MARKER: value for name, value in values.items()}
            for name, value in values.items():
                field = fields[name]
                if field.default_factory is not None:
                    # Each snapshot gets its own, as each state does: an empty one made by its type.
                    empty = type(value) in _EMPTY_JSON and not value
                    made.append((name + FIELD_MARKER, type(value) if empty else field.default_factory))
                elif type(value) in _IMMUTABLE:
                    _SERIALIZED[id(value)] = (value, _reflex_serialize_var(value))
    return _ClassDefaults(frozenset(names), entry, tuple(made), keeps_client_storage)


def _dict(self: BaseState, include_computed: bool = True, initial: bool = False, **kwargs: Any) -> dict[str, Any]:
    """Reflex's ``BaseState.dict``, with an untouched state's entry made from its class's."""
    defaults = _class_defaults(type(self))
    if defaults.entry is None or kwargs or self.dirty_vars or not self.__dict__.keys().isdisjoint(defaults.names):
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
    if not value and type(value) in _EMPTY_JSON:
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
