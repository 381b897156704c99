"""The guarded areas' entry checks: /admin (administrador), /bbitamia (secretaria), /my (profesor).

Each area page loads with ``close`` then its own guarded loader, which calls
``_accept``; the page shows its content only once the server has accepted the
caller. The guard
only decides what is shown: every handler that touches area data carries its
own ``@requires`` check.
"""

from __future__ import annotations

import reflex as rx

from app.states.auth import AuthState, current_actor, public


class AreaState(rx.State):
    """Whether the current area page may be shown, and to whom."""

    ready: bool = False
    greeting: str = ""
    # The page (path and query) last accepted in this tab: app.components.layout.guarded_content
    # keeps its content in place, hidden, while a reconnect or reload checks the caller again.
    shown_url: str = ""

    @public
    def close(self):
        """Hide area content until the next check passes."""
        self.ready = False
        self.greeting = ""

    async def _accept(self) -> list:
        """Show the area; the guard already put the caller in the header. Any notice left for this load."""
        self.ready = True
        self.greeting = f"Hola, {current_actor().display_name}"
        self._mark_shown()
        auth = await self.get_state(AuthState)
        return auth._take_flash()

    def _mark_shown(self) -> None:
        url = self.router.url
        self.shown_url = f"{url.path}?{url.query}"


async def mark_shown(state: rx.State) -> None:
    """Keep the page of ``state`` in place while a reconnect checks the caller again (a page shown
    without ``enter_area``, whose loader just accepted the caller)."""
    area = await state.get_state(AreaState)
    area._mark_shown()


async def enter_area(state: rx.State) -> list:
    """Show the area of ``state``'s page (the caller was just accepted by ``@requires``); its pending notices."""
    area = await state.get_state(AreaState)
    return await area._accept()
