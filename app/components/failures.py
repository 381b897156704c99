"""Spanish replacements for Reflex's English failure notices: lost connection and a page that failed to render.

Passed to ``rx.App(extra_app_wraps=APP_WRAPS)``; the keys replace Reflex's
default "Overlay" (the "Cannot connect to server" toast and its pulsing icon)
and "ErrorBoundary" (the "An error occurred while rendering this page" screen).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import reflex as rx
from reflex_components_core.base.error_boundary import ErrorBoundary
from reflex_components_core.core.banner import has_too_many_connection_errors

CONNECTION_LOST = "Se perdió la conexión con el servidor. Reintentando…"
RENDER_FAILED = "Algo salió mal al mostrar esta página."
RELOAD = "Recargar la página"


def connection_notice() -> rx.Component:
    """A banner at the top while the websocket keeps failing (after two attempts, like Reflex's own toast)."""
    return cast(
        rx.Component,
        rx.cond(
            has_too_many_connection_errors,
            rx.el.div(
                CONNECTION_LOST,
                role="alert",
                position="fixed",
                top="0",
                left="0",
                right="0",
                z_index="9999",
                padding="8px 16px",
                text_align="center",
                background="#7a1030",
                color="#fff",
            ),
        ),
    )


def render_failed_notice() -> rx.Component:
    """What the error boundary shows instead of a page whose rendering failed."""
    return rx.el.div(
        rx.el.h1(RENDER_FAILED),
        rx.el.a(RELOAD, href=""),
        role="alert",
        padding="32px 16px",
        text_align="center",
    )


def _overlay(stateful: bool) -> rx.Component | None:
    return connection_notice() if stateful else None


def _error_boundary(stateful: bool) -> rx.Component:
    # Without state there is no backend to report the error to (as Reflex's default).
    quiet: dict[str, Any] = {} if stateful else {"on_error": rx.noop()}
    return ErrorBoundary.create(fallback_render=render_failed_notice(), **quiet)


APP_WRAPS: dict[tuple[int, str], Callable[[bool], rx.Component | None]] = {
    (5, "Overlay"): _overlay,
    (55, "ErrorBoundary"): _error_boundary,
}
