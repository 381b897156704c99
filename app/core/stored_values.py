"""Frozen values a Reflex state holds and, with Redis, stores pickled: a directory page's cards, details, tabs.

Reflex checks a stored state against its class by the names and types of the state's vars, not by the shape of
the values inside them. A card pickled before one of its fields was added, renamed or removed (or while it was a
pydantic model, before 2026-11-29) would load without that field and fail later, on some visitor's event.
:class:`StoredValue` refuses to load such a value, so the stored state does not load at all, and Reflex gives
that tab a new state, as it does when a state's own vars change.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

# Each class's field names, read once.
_FIELD_NAMES: dict[type, frozenset[str]] = {}


def _field_names(cls: type) -> frozenset[str]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(field.name for field in fields(cls))
    return names


class StoredValue:
    """Base of a frozen dataclass kept in a state: it loads from a pickle only with exactly its own fields."""

    __slots__ = ()

    def __setstate__(self, state: Any) -> None:
        """Load a pickled value (pickle calls this); TypeError for a value of another shape."""
        if not isinstance(state, dict) or state.keys() != _field_names(type(self)):
            raise TypeError(f"a stored {type(self).__name__} of another shape")
        self.__dict__.update(state)
