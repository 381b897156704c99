"""State of the public report form (/disclaimer/report).

The form is open to anyone; the service validates, throttles per client and
applies the anti-spam rules. On an error the visitor's text stays in the
form (nothing they wrote is lost) and a Spanish message explains why, under
the field it is about.
"""

from __future__ import annotations

import time
from typing import Any

import reflex as rx

from app.models import REPORT_KIND_LABELS
from app.services.abuse import client_key
from app.services.reports import MESSAGE_MAX, create_report
from app.settings import get_settings
from app.states.auth import public
from app.states.forms import ClearingFormState
from app.states.notify import Events, notify_success
from app.states.offload import run_service

KIND_OPTIONS: list[list[str]] = [[kind.value, label] for kind, label in REPORT_KIND_LABELS.items()]
# The fields the form shows: a refusal naming one of them is shown under it.
REPORT_FIELDS = ("kind", "listing_uid", "message", "contact")
FORM_UNREADABLE = "No pudimos leer el formulario. Inténtalo de nuevo."


class ReportState(ClearingFormState, rx.State):
    """The report form: prefilled listing, sent flag, and the server-side timer."""

    listing_uid: str = ""
    sent: bool = False
    _shown_at: float = 0.0

    @public
    def load(self) -> None:
        """Start the form timer and take the listing from ?publicacion=."""
        self._shown_at = time.monotonic()
        self.sent = False
        self.busy = False
        self._clear_errors()
        uid = self.router.url.query_parameters.get("publicacion", "")
        self.listing_uid = uid if isinstance(uid, str) and uid.isalnum() and len(uid) <= 40 else ""

    @public
    def write_again(self) -> None:
        """Show an empty form after a report was sent."""
        self._shown_at = time.monotonic()
        self.sent = False
        self._clear_errors()

    @public
    async def submit(self, form_data: dict[str, Any]) -> Events:
        """Validate and store the report, then thank the sender."""
        if self.busy:
            return None
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        fields = {key: str(form_data.get(key, ""))[: MESSAGE_MAX + 10] for key in REPORT_FIELDS}
        honeypot = str(form_data.get("website", ""))
        seconds = time.monotonic() - self._shown_at if self._shown_at else 0.0
        key = client_key(self.router.session.client_ip or "", get_settings().secret_key)
        outcome = await self._submit(
            run_service(create_report, data=fields, client_key=key, honeypot=honeypot, seconds_on_form=seconds),
            fields=REPORT_FIELDS,
        )
        if not outcome.ok:
            return None
        self.sent = True
        return notify_success("Gracias. Tu reporte fue recibido y será revisado por nuestro equipo.")
