"""Recording staff writes in the audit log, and reading it back.

``record`` adds the entry to the caller's session without committing: the
service that makes the change commits both together. Values are stored as
JSON of the row's columns (dates as ISO text); secrets never reach a row, so
none reach the log.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Any, overload
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlmodel import Session, SQLModel, col, select

from app.core.actor import Actor
from app.models import AuditEntry, User, utc_now
from app.services.staff.shared import StaffPage, TableQuery, ensure_admin, fetch_page
from app.services.staff.table_spec import ADMIN, Column, Filter, TableSpec
from app.settings import get_settings


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


@overload
def snapshot(row: SQLModel) -> dict[str, Any]: ...
@overload
def snapshot(row: None) -> None: ...
def snapshot(row: SQLModel | None) -> dict[str, Any] | None:
    """The columns of a table row as JSON-able values (None stays None)."""
    if row is None:
        return None
    return {column.name: _plain(getattr(row, column.name, None)) for column in row.__table__.columns}  # type: ignore[attr-defined]  # a table class has one


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


def created(session: Session, row: SQLModel, *, actor_uid: str, entity: str) -> None:
    """Add a new ``row`` and its audit entry to ``session`` (the caller commits both)."""
    session.add(row)
    session.flush()
    record(session, actor_uid=actor_uid, action="crear", entity=entity, entity_uid=row.uid, after=snapshot(row))  # type: ignore[attr-defined]  # any table row has a uid


def updated(session: Session, row: SQLModel, values: dict[str, Any], *, actor_uid: str, entity: str) -> None:
    """Set ``values`` on ``row``, stamp ``updated_at`` and add the audit entry with the values
    before and after (the caller commits both)."""
    before = snapshot(row)
    for name, value in values.items():
        setattr(row, name, value)
    row.updated_at = utc_now()
    session.add(row)
    session.flush()
    record(
        session,
        actor_uid=actor_uid,
        action="editar",
        entity=entity,
        entity_uid=row.uid,  # type: ignore[attr-defined]  # any table row has a uid
        before=before,
        after=snapshot(row),
    )


def deleted(session: Session, row: SQLModel, *, actor_uid: str, entity: str) -> None:
    """Delete ``row`` and add the audit entry with its last values (the caller commits both)."""
    record(session, actor_uid=actor_uid, action="eliminar", entity=entity, entity_uid=row.uid, before=snapshot(row))  # type: ignore[attr-defined]  # any table row has a uid
    session.delete(row)


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


ADMIN_ONLY_MESSAGE = "Solo un administrador puede leer la auditoría."
ENTITY_FILTER, FROM_FILTER, TO_FILTER = "entidad", "desde", "hasta"

AUDIT_SPEC = TableSpec(
    entity="registro de auditoría",
    title="Auditoría",
    columns=(
        Column("fecha", "Fecha"),
        Column("persona", "Persona"),
        Column("accion", "Acción"),
        Column("entidad", "Entidad"),
        Column("registro", "Registro"),
        Column("cambios", "Cambios"),
    ),
    default_sort="",
    filters=(
        Filter(ENTITY_FILTER, "Entidad", from_data=True),
        Filter(FROM_FILTER, "Desde", kind="date"),
        Filter(TO_FILTER, "Hasta", kind="date"),
    ),
    search_label="Correo de la persona",
    profiles=(ADMIN,),
    actions=frozenset({"export"}),
    admin_only_actions=frozenset({"export"}),
    csv_name="auditoria",
)


def _day_bounds(day: date) -> datetime:
    return datetime.combine(day, time(), ZoneInfo(get_settings().timezone))


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def list_entries(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of entries (rows: AuditRow), newest first (administrators only).

    The search is the person's e-mail (exact); filters ``entidad`` and the Chilean calendar days
    ``desde`` and ``hasta`` (ISO dates, both included).
    """
    ensure_admin(session, actor.uid, ADMIN_ONLY_MESSAGE)
    conditions = []
    if query.search:
        conditions.append(User.email == query.search)
    entity = AUDIT_SPEC.filter_value(ENTITY_FILTER, query.filter(ENTITY_FILTER))
    if entity:
        conditions.append(AuditEntry.entity == entity)
    day_from = _day(AUDIT_SPEC.filter_value(FROM_FILTER, query.filter(FROM_FILTER)))
    day_to = _day(AUDIT_SPEC.filter_value(TO_FILTER, query.filter(TO_FILTER)))
    if day_from:
        conditions.append(AuditEntry.created_at >= _day_bounds(day_from))
    if day_to:
        conditions.append(AuditEntry.created_at < _day_bounds(day_to + timedelta(days=1)))
    statement = (
        select(AuditEntry, col(User.email)).join(User, col(User.uid) == col(AuditEntry.actor_uid)).where(*conditions)
    )
    rows, total = fetch_page(session, statement, query, (col(AuditEntry.created_at).desc(), col(AuditEntry.uid).desc()))
    zone = ZoneInfo(get_settings().timezone)
    entries = [
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
    ]
    return StaffPage(entries, total, query.page, query.page_size)


def entity_options(*, session: Session, actor: Actor) -> list[str]:
    """Every entity the log has entries for, for the entity filter (administrators only)."""
    ensure_admin(session, actor.uid, ADMIN_ONLY_MESSAGE)
    return list(session.exec(select(AuditEntry.entity).distinct().order_by(AuditEntry.entity)))
