"""/admin/trabajos: the background work's health (app.services.staff.task_health), read when the page opens."""

from __future__ import annotations

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ServiceError
from app.models import ProfileId
from app.services.staff.task_health import TaskHealthView, task_health
from app.states.areas import AreaState
from app.states.auth import current_actor, requires
from app.states.notify import notify_error
from app.states.offload import run_service


class TaskHealthState(rx.State):
    """The figures of the page, read when it opens and on "Actualizar"."""

    loaded: bool = False
    health: TaskHealthView = TaskHealthView()

    @requires(ProfileId.ADMINISTRADOR)
    async def open_page(self) -> list[EventSpec]:
        """Enter /admin/trabajos: show the area, then read the figures."""
        area = await self.get_state(AreaState)
        events = await area._accept()
        error = await self._read()
        return [*events, error] if error else events

    @requires(ProfileId.ADMINISTRADOR)
    async def refresh(self) -> EventSpec | None:
        """Read the figures again."""
        return await self._read()

    async def _read(self) -> EventSpec | None:
        self.loaded = False
        try:
            self.health = await run_service(task_health, actor=current_actor())
        except ServiceError as exc:
            return notify_error(exc.message)
        self.loaded = True
        return None
