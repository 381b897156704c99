"""Toasts shown the same way everywhere: at the bottom, for 5000 ms (SPEC §9)."""

from __future__ import annotations

import reflex as rx

TOAST_MS = 5000
TOAST_POSITION = "bottom-center"


def notify_success(message: str) -> rx.event.EventSpec:
    """A success notification."""
    return rx.toast.success(message, duration=TOAST_MS, position=TOAST_POSITION)


def notify_error(message: str) -> rx.event.EventSpec:
    """An error notification."""
    return rx.toast.error(message, duration=TOAST_MS, position=TOAST_POSITION)
