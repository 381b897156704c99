"""Periodic clean-up of the sign-in tables, run every hour by the ``identity.purge`` task (app.tasks).

Each run deletes sessions, tickets and one-time codes that can no longer be
used (``sessions.purge_ended``); the deletes are idempotent, so several
workers running it side by side do no harm.
"""

from __future__ import annotations

import logging

from app.db import session_scope
from app.identity.sessions import purge_ended
from app.settings import get_settings

log = logging.getLogger(__name__)


def purge_once() -> int:
    """One clean-up run; return how many rows it deleted."""
    with session_scope() as session:
        return purge_ended(session=session, idle_days=get_settings().session_idle_days)
