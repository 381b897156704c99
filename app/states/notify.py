"""Toasts shown the same way everywhere: at the bottom, for 5000 ms (SPEC §9).

A toast's id is its message, so the same notice sent twice (two refused handlers of one
navigation, say) shows once instead of stacking.
"""

from __future__ import annotations

import reflex as rx
from reflex_base.event import EventSpec

# What an event handler hands back to Reflex: nothing, one event, or several. Reflex reads a handler's
# annotations at run time, so this name must be importable wherever a handler uses it.
Events = EventSpec | list[EventSpec] | None

TOAST_MS = 5000
TOAST_POSITION = "bottom-center"


def notify_success(message: str) -> EventSpec:
    """A success notification."""
    toast: EventSpec = rx.toast.success(message, id=message, duration=TOAST_MS, position=TOAST_POSITION)
    return toast


def notify_error(message: str) -> EventSpec:
    """An error notification."""
    toast: EventSpec = rx.toast.error(message, id=message, duration=TOAST_MS, position=TOAST_POSITION)
    return toast
