"""The guarded areas' entry checks: /admin (administrador), /bbitamia (secretaria), /my (profesor).

Each area page loads with ``close`` then its own guarded loader, which calls
``_accept``; the page shows its content only once the server has accepted the
caller. The guard
only decides what is shown: every handler that touches area data carries its
own ``@requires`` check.
"""

from __future__ import annotations

import reflex as rx
from reflex_base.event import EventSpec

from app.states.auth import AuthState, current_actor, public


class AreaState(rx.State):
    """Whether the current area page may be shown, and to whom."""

    ready: bool = False
    greeting: str = ""

    @public
    def close(self) -> None:
        """Hide area content until the next check passes."""
        self.ready = False
        self.greeting = ""

    async def _accept(self) -> list[EventSpec]:
        """Show the area; the guard already put the caller in the header. Any notice left for this load."""
        self.ready = True
        self.greeting = f"Hola, {current_actor().display_name}"
        auth = await self.get_state(AuthState)
        return auth._take_flash()


async def enter_area(state: rx.State) -> list[EventSpec]:
    """Show the area of ``state``'s page (the caller was just accepted by ``@requires``); its pending notices."""
    area = await state.get_state(AreaState)
    return await area._accept()
