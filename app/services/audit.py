"""Recording staff writes in the audit log, and reading it back.

``record`` adds the entry to the caller's session without committing: the
service that makes the change commits both together. Values are stored as
JSON of the row's columns (dates as ISO text); secrets never reach a row, so
none reach the log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, SQLModel, select

from app.models import AuditEntry, User, utc_now
from app.settings import get_settings

PAGE_SIZE = 50


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


def snapshot(row: SQLModel | None) -> dict[str, Any] | None:
    """The columns of a table row as JSON-able values (None stays None)."""
    if row is None:
        return None
    return {column.name: _plain(getattr(row, column.name, None)) for column in row.__table__.columns}


def record(
    session: Session,
    *,
    actor_uid: str,
    action: str,
    entity: str,
    entity_uid: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> AuditEntry:
    """Add one audit entry to ``session`` (committed with the change it describes)."""
    entry = AuditEntry(
        actor_uid=actor_uid,
        action=action,
        entity=entity,
        entity_uid=entity_uid,
        before_json=json.dumps(before, ensure_ascii=False, default=str) if before is not None else "",
        after_json=json.dumps(after, ensure_ascii=False, default=str) if after is not None else "",
        created_at=now or utc_now(),
    )
    session.add(entry)
    return entry


class AuditRow(BaseModel):
    """One entry as the administrator's audit page shows it."""

    uid: str
    when: str
    actor: str
    action: str
    entity: str
    entity_uid: str
    before: str
    after: str


@dataclass(frozen=True)
class AuditPage:
    rows: list[AuditRow]
    total: int
    page: int
    page_size: int


def _day_bounds(day: date) -> datetime:
    return datetime.combine(day, time(), ZoneInfo(get_settings().timezone))


def list_entries(
    *,
    session: Session,
    actor_uid: str | None = None,
    entity: str | None = None,
    day_from: date | None = None,
    day_to: date | None = None,
    page: int = 1,
    page_size: int = PAGE_SIZE,
) -> AuditPage:
    """Newest first, filtered by person, entity and Chilean calendar days (inclusive); one page."""
    page_size = max(1, min(page_size, PAGE_SIZE))
    page = max(1, page)
    conditions = []
    if actor_uid:
        conditions.append(AuditEntry.actor_uid == actor_uid)
    if entity:
        conditions.append(AuditEntry.entity == entity)
    if day_from:
        conditions.append(AuditEntry.created_at >= _day_bounds(day_from))
    if day_to:
        conditions.append(AuditEntry.created_at < _day_bounds(day_to + timedelta(days=1)))
    total = session.exec(select(func.count()).select_from(AuditEntry).where(*conditions)).one()
    rows = session.exec(
        select(AuditEntry, User.email)
        .join(User, User.uid == AuditEntry.actor_uid)
        .where(*conditions)
        .order_by(AuditEntry.created_at.desc(), AuditEntry.uid.desc())
        .offset((page - 1) * page_size)
        .limit(page_size)
    ).all()
    zone = ZoneInfo(get_settings().timezone)
    return AuditPage(
        rows=[
            AuditRow(
                uid=entry.uid,
                when=entry.created_at.astimezone(zone).strftime("%Y/%m/%d %H:%M"),
                actor=email,
                action=entry.action,
                entity=entry.entity,
                entity_uid=entry.entity_uid,
                before=entry.before_json,
                after=entry.after_json,
            )
            for entry, email in rows
        ],
        total=total,
        page=page,
        page_size=page_size,
    )
