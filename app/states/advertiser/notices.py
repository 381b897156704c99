"""/my/cuenta/avisos: which optional e-mail notices the advertiser gets (app.services.notices).

Both handlers are for advertisers only and act on the caller's own account: no id comes from the browser.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from app.core.errors import ServiceError
from app.models import ProfileId
from app.services import notices
from app.services.notices import NoticeChoice
from app.states.areas import enter_area
from app.states.auth import current_actor, requires
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import run_service


class NoticePreferencesState(rx.State):
    """The optional notices, each with whether the caller gets it."""

    loaded: bool = False
    choices: list[NoticeChoice] = []

    @requires(ProfileId.PROFESOR)
    async def open_page(self) -> Events:
        """Enter the page: show the area, then the caller's choices."""
        events = await enter_area(self)
        self.choices = await run_service(notices.notice_choices, user_uid=current_actor().uid)
        self.loaded = True
        return events

    @requires(ProfileId.PROFESOR)
    async def save(self, form_data: dict[str, Any]) -> Events:
        """Keep on the notices whose box is ticked (the form sends only those), turn the others off."""
        data = form_data if isinstance(form_data, dict) else {}
        try:
            self.choices = await run_service(
                notices.set_notice_choices, user_uid=current_actor().uid, enabled=[str(kind)[:40] for kind in data]
            )
        except ServiceError as exc:
            return notify_error(exc.message)
        return notify_success("Guardamos tus preferencias de avisos.")
