"""Unexpected errors in event handlers: reported (app.logs), logged with their traceback, shown as a Spanish toast.

``rx.App(backend_exception_handler=on_backend_exception)`` replaces Reflex's
English "An error occurred." toast. Expected failures never get here: services
raise typed errors that the handlers turn into messages themselves.
"""

from __future__ import annotations

import logging

from reflex_base.event import EventSpec

from app import logs
from app.db import is_database_outage
from app.states.notify import notify_error

log = logging.getLogger(__name__)

UNEXPECTED = "Algo salió mal de nuestro lado. Inténtalo de nuevo en unos minutos."
DATABASE_DOWN = "No pudimos conectar con la base de datos. Inténtalo de nuevo en unos segundos."


def on_backend_exception(exception: Exception) -> EventSpec:
    """Report and log the exception, and tell the visitor, in Spanish, whether the database or something else failed."""
    logs.report(exception, where="event")
    if is_database_outage(exception):
        log.error("database unavailable while handling an event", exc_info=exception)
        return notify_error(DATABASE_DOWN)
    log.error("unexpected error while handling an event", exc_info=exception)
    return notify_error(UNEXPECTED)
