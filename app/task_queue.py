"""Background work on a real task queue: Procrastinate (https://procrastinate.readthedocs.io).

A job is a row in PostgreSQL, written by :func:`defer` in the same transaction as the write that justifies
it: a committed sign-up always has its verification e-mail queued, a rolled-back one never does. Worker
processes (``python -m app.cli worker``, the ``worker`` service of compose.yaml) take jobs with
``SELECT ... FOR UPDATE SKIP LOCKED`` and beat a heartbeat while they run; a job whose worker died
is retried by the ``queue.retry_stalled`` periodic task (app.tasks). Periodic tasks are deferred once
per period across all workers (Procrastinate's ``procrastinate_periodic_defers`` table).

The embedded default (SQLite, no PostgreSQL) has no durable queue: jobs live in the app process's memory
(Procrastinate's in-memory connector), are deferred when the transaction commits, and are run by a
worker inside the app (``TASK_WORKER=in-process``). Jobs still queued when that process ends are lost:
good for one developer's machine, not for a site; docs/deployment.md says so.

Task names and queues are data here (:data:`MAIL`, ...); their functions live in app.tasks, above the
services that defer them, so a service names a task without importing it.
"""

from __future__ import annotations

import functools
import logging
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import procrastinate
from procrastinate.testing import InMemoryConnector
from sqlmodel import Session

from app.db import after_session_commit
from app.settings import get_settings

log = logging.getLogger(__name__)


class TaskName(NamedTuple):
    """A task as a service defers it: its registered name, the queue its jobs wait in, what staff call it."""

    name: str
    queue: str
    label: str


class PeriodicTask(NamedTuple):
    """A task the workers defer by themselves once per period (a cron line, in UTC, every ``period``)."""

    name: str
    cron: str
    period: timedelta
    label: str


MAIL = TaskName("mail.send", "mail", "Correos")
EXPORT = TaskName("privacy.build_exports", "default", "Exportaciones de datos")
VIDEO = TaskName("videos.process", "videos", "Videos por procesar")
PHOTO = TaskName("photos.process", "photos", "Fotos por procesar")
QUEUES = ("mail", "default", "videos", "photos")

MINUTE, HOUR = timedelta(minutes=1), timedelta(hours=1)
LISTINGS_CLOCK = PeriodicTask("listings.clock", "* * * * *", MINUTE, "Vencimientos y mejoras de publicaciones")
RETENTION = PeriodicTask("privacy.retention", "7 * * * *", HOUR, "Retención de datos personales")
EXPORTS_CATCH_UP = PeriodicTask("privacy.exports_catch_up", "*/5 * * * *", 5 * MINUTE, "Exportaciones pendientes")
SIGN_IN_PURGE = PeriodicTask("identity.purge", "17 * * * *", HOUR, "Limpieza de sesiones y códigos")
RETRY_STALLED = PeriodicTask("queue.retry_stalled", "* * * * *", MINUTE, "Reintento de trabajos detenidos")
REMOVE_OLD_JOBS = PeriodicTask("queue.remove_old_jobs", "23 4 * * *", 24 * HOUR, "Limpieza de trabajos antiguos")
PERIODIC_TASKS = (LISTINGS_CLOCK, RETENTION, EXPORTS_CATCH_UP, SIGN_IN_PURGE, RETRY_STALLED, REMOVE_OLD_JOBS)
# What staff read for each task name.
TASK_LABELS = {task.name: task.label for task in (MAIL, EXPORT, VIDEO, PHOTO, *PERIODIC_TASKS)}

# How long a worker may stay silent before its running jobs count as stalled (seconds).
HEARTBEAT_SECONDS = 10
STALLED_AFTER_SECONDS = 60


def not_task_queue(name: str | None, kind: str, _parents: object) -> bool:
    """For Alembic's comparisons (``include_name``): Procrastinate's tables and indexes are its own,
    created by migration 0017 from its schema file, not by our models."""
    return not (name or "").startswith(("procrastinate_", "idx_procrastinate_"))


def _psycopg_conninfo(database_url: str) -> str:
    """SQLAlchemy's ``postgresql+psycopg://`` URL as the libpq URI psycopg takes."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def is_durable(database_url: str | None = None) -> bool:
    """True when jobs are rows of the app's PostgreSQL database (survive restarts and crashes)."""
    return (database_url or get_settings().database_url).startswith("postgresql")


@functools.lru_cache
def connector_for(database_url: str) -> procrastinate.BaseConnector:
    """Where the jobs of ``database_url``'s site live: its PostgreSQL database, or this process's memory."""
    if is_durable(database_url):
        return procrastinate.PsycopgConnector(conninfo=_psycopg_conninfo(database_url), min_size=1, max_size=4)
    return InMemoryConnector()


def get_connector() -> procrastinate.BaseConnector:
    """The connector of the configured database (one per process and database)."""
    return connector_for(get_settings().database_url)


@functools.lru_cache
def _deferring_app(database_url: str | None) -> procrastinate.App:
    """What defers by task name: for a PostgreSQL session (None) Procrastinate's sync connector, used only
    with the transaction's own connection (never opened: it has no pool of its own); else the in-memory
    queue of ``database_url``."""
    if database_url is None:
        return procrastinate.App(connector=procrastinate.SyncPsycopgConnector())
    return procrastinate.App(connector=connector_for(database_url))


def _on_postgresql(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def defer(session: Session, task: TaskName, **kwargs: Any) -> None:
    """Queue one job of ``task`` that the writes of ``session``'s open transaction justify.

    On PostgreSQL the job row is written in that transaction: it exists exactly when the writes commit.
    In the embedded default the job is handed to the in-memory queue once the transaction commits.
    """
    if _on_postgresql(session):  # the session's own database, whatever the settings say
        connection = session.connection().connection.driver_connection
        _deferring_app(None).configure_task(task.name, queue=task.queue, connection=connection).defer(**kwargs)
        return

    deferring = _deferring_app(get_settings().database_url)
    session.connection()  # the transaction begins now, so its rollback forgets the job even if nothing was written

    def hand_over() -> None:
        deferring.configure_task(task.name, queue=task.queue).defer(**kwargs)

    after_session_commit(session, hand_over, undo=lambda: None)


class TaskHealth(NamedTuple):
    """One task's jobs, for the staff's queue health page."""

    task: str
    waiting: int
    running: int
    failed_last_day: int
    oldest_waiting_since: datetime | None


_HEALTH_SQL = """
SELECT j.task_name AS task,
       count(*) FILTER (WHERE j.status = 'todo') AS waiting,
       count(*) FILTER (WHERE j.status = 'doing') AS running,
       count(*) FILTER (WHERE j.status = 'failed' AND e.failed_at > now() - interval '1 day') AS failed_last_day,
       min(e.deferred_at) FILTER (WHERE j.status = 'todo') AS oldest_waiting_since
  FROM procrastinate_jobs j
  LEFT JOIN LATERAL (
       SELECT min(at) FILTER (WHERE type = 'deferred') AS deferred_at,
              max(at) FILTER (WHERE type = 'failed') AS failed_at
         FROM procrastinate_events WHERE job_id = j.id) e ON true
 GROUP BY j.task_name
 ORDER BY j.task_name
"""


def queue_health(session: Session) -> list[TaskHealth]:
    """Per task with jobs: waiting, running, failed in the last 24 h, and since when the oldest has waited.

    Succeeded jobs are deleted by the worker (their arguments may hold an e-mail's one-time link);
    failed ones stay for staff to see until ``queue.remove_old_jobs`` deletes them.
    """
    if _on_postgresql(session):
        rows = session.connection().exec_driver_sql(_HEALTH_SQL).all()
        return [TaskHealth(*row) for row in rows]
    connector = get_connector()
    assert isinstance(connector, InMemoryConnector)
    return _in_memory_health(connector)


def _in_memory_health(connector: InMemoryConnector) -> list[TaskHealth]:
    now = datetime.now(UTC)
    counts: dict[str, dict[str, int]] = {}
    oldest: dict[str, datetime] = {}
    for job_id, job in connector.jobs.items():
        events = {event["type"]: event["at"] for event in connector.events.get(job_id, [])}
        name, status = job["task_name"], job["status"]
        entry = counts.setdefault(name, {"todo": 0, "doing": 0, "failed": 0})
        if status in ("todo", "doing"):
            entry[status] += 1
        if status == "todo" and "deferred" in events:
            oldest[name] = min(oldest.get(name, events["deferred"]), events["deferred"])
        if status == "failed" and "failed" in events and (now - events["failed"]).total_seconds() < 86_400:
            entry["failed"] += 1
    return [
        TaskHealth(name, entry["todo"], entry["doing"], entry["failed"], oldest.get(name))
        for name, entry in sorted(counts.items())
    ]
