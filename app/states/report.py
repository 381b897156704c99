"""State of the public report form (/disclaimer/report).

The form is open to anyone; the service validates, throttles per client and
applies the anti-spam rules. On an error the visitor's text stays in the
form (nothing they wrote is lost) and a Spanish message explains why.
"""

from __future__ import annotations

import asyncio
import time

import reflex as rx

from app.db import session_scope
from app.models import REPORT_KIND_LABELS
from app.services.abuse import client_key
from app.services.errors import ServiceError
from app.services.reports import MESSAGE_MAX, create_report
from app.settings import get_settings
from app.states.auth import public
from app.states.notify import notify_error, notify_success

KIND_OPTIONS: list[list[str]] = [[kind.value, label] for kind, label in REPORT_KIND_LABELS.items()]


class ReportState(rx.State):
    """The report form: prefilled listing, sent flag, and the server-side timer."""

    listing_uid: str = ""
    sent: bool = False
    sending: bool = False
    _shown_at: float = 0.0

    @public
    def load(self):
        """Start the form timer and take the listing from ?publicacion=."""
        self._shown_at = time.monotonic()
        self.sent = False
        self.sending = False
        uid = self.router.url.query_parameters.get("publicacion", "")
        self.listing_uid = uid if isinstance(uid, str) and uid.isalnum() and len(uid) <= 40 else ""

    @public
    def write_again(self):
        """Show an empty form after a report was sent."""
        self._shown_at = time.monotonic()
        self.sent = False

    @public
    async def submit(self, form_data: dict):
        """Validate and store the report, then thank the sender."""
        if self.sending:
            return None
        if not isinstance(form_data, dict):
            return notify_error("No pudimos leer el formulario. Inténtelo de nuevo.")
        fields = {
            key: str(form_data.get(key, ""))[: MESSAGE_MAX + 10]
            for key in ("kind", "message", "contact", "listing_uid")
        }
        honeypot = str(form_data.get("website", ""))
        seconds = time.monotonic() - self._shown_at if self._shown_at else 0.0
        key = client_key(self.router.session.client_ip or "", get_settings().secret_key)
        self.sending = True
        try:
            await asyncio.to_thread(_store, fields, key, honeypot, seconds)
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            self.sending = False
        self.sent = True
        return notify_success("Gracias. Su reporte fue recibido y será revisado por nuestro equipo.")


def _store(fields: dict, key: str, honeypot: str, seconds: float) -> None:
    with session_scope() as session:
        create_report(session=session, data=fields, client_key=key, honeypot=honeypot, seconds_on_form=seconds)
