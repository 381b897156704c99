"""/admin/escorts: the administrator's overview (app.services.staff.overview), loaded when the page opens.

One guarded loader, for administrators only, opens the area and reads the
figures; the service checks the profile again. Only counts and the recent
reports' labels reach the browser.
"""

from __future__ import annotations

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ServiceError
from app.models import ProfileId
from app.services.staff.overview import StaffOverview, staff_overview
from app.states.areas import AreaState
from app.states.auth import current_actor, requires
from app.states.notify import notify_error
from app.states.offload import run_service


class StaffOverviewState(rx.State):
    """The figures of the overview, read when the page opens."""

    loaded: bool = False
    overview: StaffOverview = StaffOverview()

    @requires(ProfileId.ADMINISTRADOR)
    async def open_page(self) -> list[EventSpec]:
        """Enter /admin/escorts: show the area, then read the figures."""
        area = await self.get_state(AreaState)
        events = await area._accept()
        self.loaded = False
        try:
            self.overview = await run_service(staff_overview, actor=current_actor())
        except ServiceError as exc:
            return [*events, notify_error(exc.message)]
        self.loaded = True
        return events
