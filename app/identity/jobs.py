"""Periodic clean-up of the sign-in tables, run by every app process while it lives.

Each run deletes sessions, tickets and one-time codes that can no longer be
used (``sessions.purge_ended``); the deletes are idempotent, so several
workers running it side by side do no harm.
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.exc import SQLAlchemyError

from app.core.errors import StorageError
from app.db import session_scope
from app.identity.sessions import purge_ended
from app.settings import get_settings

log = logging.getLogger(__name__)

PURGE_EVERY_SECONDS = 3600


def purge_once() -> int:
    """One clean-up run; return how many rows it deleted."""
    with session_scope() as session:
        return purge_ended(session=session, idle_days=get_settings().session_idle_days)


async def purge_sign_in_tables() -> None:
    """Lifespan task: purge now and then every hour; a failed run is logged and retried next time."""
    while True:
        try:
            deleted = await asyncio.to_thread(purge_once)
            log.info("purged %d ended sessions, tickets and codes", deleted)
        except (SQLAlchemyError, StorageError):  # the database failed, or refused the commit
            log.exception("purging ended sessions failed; retrying in %d s", PURGE_EVERY_SECONDS)
        await asyncio.sleep(PURGE_EVERY_SECONDS)
