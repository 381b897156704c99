"""/admin/trabajos: the background work's health for administrators (issue 35 §2).

Per task: jobs waiting, running, failed in the last 24 hours (a failed e-mail stays failed here after its
last attempt) and how long the oldest has waited; per periodic task: when it last succeeded and failed.
Read from the task queue (app.task_queue.queue_health) and ``trabajo_periodico``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from babel.dates import format_timedelta
from pydantic import BaseModel
from sqlmodel import Session, select

from app.core.actor import Actor
from app.models import PeriodicRun, utc_now
from app.services.staff.overview import number, time_ago
from app.services.staff.shared import ensure_admin
from app.task_queue import PERIODIC_TASKS, TASK_LABELS, queue_health

ADMIN_ONLY_MESSAGE = "Solo un administrador puede ver los trabajos en segundo plano."
NEVER = "nunca"
# A periodic task that has not succeeded for this many of its periods is shown as failing.
PERIODS_LATE = 3


class TaskRow(BaseModel):
    """One task's jobs, as shown."""

    label: str
    waiting: str
    running: str
    failed: str
    oldest: str
    alert: bool


class PeriodicRow(BaseModel):
    """One periodic task's last outcomes, as shown."""

    label: str
    every: str
    last_success: str
    last_failure: str
    alert: bool


class TaskHealthView(BaseModel):
    """The whole page."""

    tasks: list[TaskRow] = []
    periodic: list[PeriodicRow] = []


def _when(moment: datetime | None, now: datetime) -> str:
    return time_ago(moment, now) if moment else NEVER


def _late(success: datetime | None, failure: datetime | None, allowed: timedelta, now: datetime) -> bool:
    """Failing: its last run failed, or it has not succeeded for ``allowed`` (once it has ever run)."""
    if failure is not None and (success is None or failure > success):
        return True
    return success is not None and now - success > allowed


def task_health(*, session: Session, actor: Actor, now: datetime | None = None) -> TaskHealthView:
    """The background work's figures; ForbiddenError for anyone but an administrator."""
    ensure_admin(session, actor.uid, ADMIN_ONLY_MESSAGE)
    now = now or utc_now()
    tasks = [
        TaskRow(
            label=TASK_LABELS.get(row.task, row.task),
            waiting=number(row.waiting),
            running=number(row.running),
            failed=number(row.failed_last_day),
            oldest=time_ago(row.oldest_waiting_since, now) if row.oldest_waiting_since else "—",
            alert=row.failed_last_day > 0,
        )
        for row in queue_health(session)
    ]
    runs = {run.name: run for run in session.exec(select(PeriodicRun)).all()}
    periodic = []
    for task in PERIODIC_TASKS:
        run = runs.get(task.name)
        success = run.last_success_at if run else None
        failure = run.last_failure_at if run else None
        periodic.append(
            PeriodicRow(
                label=task.label,
                every=format_timedelta(task.period, locale="es_CL"),
                last_success=_when(success, now),
                last_failure=_when(failure, now),
                alert=_late(success, failure, task.period * PERIODS_LATE, now),
            )
        )
    return TaskHealthView(tasks=tasks, periodic=periodic)
