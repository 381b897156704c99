"""/admin/ajustes: the administrator's settings (app.services.staff.site_settings): how to pay for an upgrade.

Both handlers are for administrators only; the service checks the profile again and audits each change.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import InvalidInputError, ServiceError
from app.models import ProfileId
from app.services.staff import site_settings
from app.states.areas import enter_area
from app.states.auth import current_actor, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service


class SiteSettingsState(rx.State):
    """The payment instructions as set, and the form's state."""

    loaded: bool = False
    instructions: str = ""
    busy: bool = False
    field_errors: dict[str, str] = {}

    @requires(ProfileId.ADMINISTRADOR)
    async def open_page(self) -> list[EventSpec]:
        """Enter the page: show the area, then the instructions as set."""
        events = await enter_area(self)
        self.field_errors = {}
        try:
            self.instructions = await run_service(site_settings.instructions_for_admin, actor=current_actor())
        except ServiceError as exc:
            return [*events, notify_error(exc.message)]
        self.loaded = True
        return events

    @requires(ProfileId.ADMINISTRADOR)
    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        """Replace the payment instructions with the form's text (audited)."""
        data = form_data if isinstance(form_data, dict) else {}
        text = data.get("instructions")
        self.busy = True
        try:
            self.instructions = await run_service(
                site_settings.set_payment_instructions,
                actor=current_actor(),
                text=text[: site_settings.INSTRUCTIONS_MAX + 1] if isinstance(text, str) else "",
            )
            self.field_errors = {}
        except InvalidInputError as exc:
            self.field_errors = {exc.field or "instructions": exc.message}
            return None
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            self.busy = False
        return notify_success("Guardamos las instrucciones de pago.")
