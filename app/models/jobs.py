"""The background work's own tables (app.tasks).

- trabajo_periodico: when each periodic task last succeeded and last failed. Written by the task itself,
  read by the staff's queue health page and by the alert that a periodic job has not succeeded for three
  of its periods (issue 36). Procrastinate keeps no trace of a succeeded job: the worker deletes it.
- correo_saliente: each e-mail waiting to be delivered, written in the transaction that justifies it.
  Its ``mail.send`` job carries only its uid, so no address, one-time link or text ever reaches the
  queue's tables or its log lines; the row is deleted once the message was handed to the mail server.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from app.core.text import EMAIL_MAX
from app.models.base import new_uid, utc_now

# The longest task name (app.task_queue, app.tasks).
TASK_NAME_MAX = 80


class PeriodicRun(SQLModel, table=True):
    """trabajo_periodico: one periodic task's last outcomes."""

    __tablename__ = "trabajo_periodico"

    name: str = Field(primary_key=True, max_length=TASK_NAME_MAX)
    last_success_at: datetime | None = None
    last_failure_at: datetime | None = None


# The longest subject line a message may have.
SUBJECT_MAX = 300


class OutgoingMail(SQLModel, table=True):
    """correo_saliente: one e-mail waiting for its ``mail.send`` job."""

    __tablename__ = "correo_saliente"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    to: str = Field(max_length=EMAIL_MAX)
    subject: str = Field(max_length=SUBJECT_MAX)
    body: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utc_now, index=True)
