"""The privacy jobs (issue 20 §2), run as tasks (app.tasks).

On request (and every 5 minutes besides): build the data exports people asked for (one at a time, each in its own
transaction; PostgreSQL workers skip an export another one is building). Every hour: delete
expired exports, warn the owners of drafts about to be deleted, delete the drafts whose time ran out, and
take the reporter's contact off old closed reports. Each step is idempotent.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import NamedTuple

from app.db import session_scope
from app.models import utc_now
from app.services import privacy
from app.storage.factory import get_private_storage, get_storage

log = logging.getLogger(__name__)

# At most this many exports per run, so the retention steps are never starved.
EXPORTS_PER_RUN = 20


def build_exports(now: datetime | None = None) -> int:
    """Build the pending exports (up to EXPORTS_PER_RUN); return how many."""
    built = 0
    storage, private = get_storage(), get_private_storage()
    while built < EXPORTS_PER_RUN:
        with session_scope() as session:
            if not privacy.build_next_export(session=session, storage=storage, private_storage=private, now=now):
                break
        built += 1
    return built


class RetentionRun(NamedTuple):
    """What one run of the retention steps changed."""

    exports_purged: int
    drafts_warned: int
    drafts_deleted: int
    reports_scrubbed: int


def run_retention(now: datetime | None = None) -> RetentionRun:
    """One run of the retention steps, each in its own transaction on the app's database."""
    now = now or utc_now()
    storage, private = get_storage(), get_private_storage()
    with session_scope() as session:
        purged = privacy.purge_expired_exports(session=session, private_storage=private, now=now)
    with session_scope() as session:
        warned = privacy.warn_stale_drafts(session=session, now=now)
    with session_scope() as session:
        deleted = privacy.purge_stale_drafts(session=session, storage=storage, private_storage=private, now=now)
    with session_scope() as session:
        scrubbed = privacy.scrub_closed_reports(session=session, now=now)
    return RetentionRun(purged, warned, deleted, scrubbed)
