"""What the metrics read from the database at scrape time (app.metrics), and the backup's record of success.

The review queue's oldest item (as the queue page counts it), new reports by urgency, each periodic
job's last success (``trabajo_periodico``, written by app.tasks) and the last successful backup, kept
in the same table under :data:`BACKUP` by ``python -m app.cli backup`` (app.services.backup).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.db import commit, session_scope
from app.metrics import NORMAL, URGENT, SiteFigures
from app.models import PeriodicRun, Report, ReportStatus, utc_now
from app.services.reports import URGENT_KINDS
from app.services.staff.review_queue import queue_size
from app.task_queue import PERIODIC_TASKS

# The row of trabajo_periodico that says when a backup last succeeded (not a periodic task: cron runs it).
BACKUP = "backup"


def _timestamp(moment: datetime | None) -> float:
    if moment is None:
        return 0.0
    return (moment if moment.tzinfo else moment.replace(tzinfo=utc_now().tzinfo)).timestamp()


def _age(moment: datetime | None, now: datetime) -> float:
    return max(0.0, now.timestamp() - _timestamp(moment)) if moment is not None else 0.0


def site_figures(session: Session, now: datetime | None = None) -> SiteFigures:
    """The review queue, the reports waiting, the periodic jobs and the last backup, as the metrics show them."""
    now = now or utc_now()
    _, oldest_review = queue_size(session)
    waiting = {URGENT: 0, NORMAL: 0}
    oldest_urgent: datetime | None = None
    rows = session.exec(
        select(Report.kind, func.count(), func.min(Report.created_at))
        .where(Report.status == ReportStatus.NUEVO)
        .group_by(col(Report.kind))
    ).all()
    for kind, count, oldest in rows:
        urgent = kind in URGENT_KINDS
        waiting[URGENT if urgent else NORMAL] += count
        if urgent and (oldest_urgent is None or oldest < oldest_urgent):
            oldest_urgent = oldest
    runs = {run.name: run for run in session.exec(select(PeriodicRun)).all()}
    backup = runs.get(BACKUP)
    return SiteFigures(
        oldest_pending_review_age=_age(oldest_review, now),
        reports_waiting=waiting,
        oldest_urgent_report_age=_age(oldest_urgent, now),
        periodic_last_success={
            task.name: _timestamp(runs[task.name].last_success_at if task.name in runs else None)
            for task in PERIODIC_TASKS
        },
        periodic_period={task.name: task.period.total_seconds() for task in PERIODIC_TASKS},
        backup_last_success=_timestamp(backup.last_success_at if backup else None),
    )


def read_site_figures() -> SiteFigures:
    """:func:`site_figures` on a session of its own (a scrape)."""
    with session_scope() as session:
        return site_figures(session)


def record_backup(session: Session) -> None:
    """Write down that a backup succeeded now (the metrics' escorts_backup_last_success_timestamp_seconds)."""
    run = session.get(PeriodicRun, BACKUP) or PeriodicRun(name=BACKUP)
    run.last_success_at = utc_now()
    session.add(run)
    commit(session)
