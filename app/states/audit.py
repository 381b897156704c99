"""/admin/auditoria: the audit log of staff writes on the staff table, for administrators only.

Filtered by person (the search box takes their e-mail), entity and Chilean calendar days;
newest first. Each row shows what changed (the fields whose values differ), not whole records.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session, select

from app.core.actor import Actor
from app.models import AuditEntry, ProfileId
from app.services import audit, users
from app.services.errors import ForbiddenError
from app.services.staff import ensure_staff
from app.states.staff_table import ADMIN, Column, Filter, StaffTableState, TableSpec

ADMIN_ONLY_MESSAGE = "Solo un administrador puede leer la auditoría."
CHANGE_LIMIT = 400
VALUE_LIMIT = 60

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
        Filter("entidad", "Entidad", from_data=True),
        Filter("desde", "Desde", kind="date"),
        Filter("hasta", "Hasta", kind="date"),
    ),
    search_label="Correo de la persona",
    profiles=(ADMIN,),
    actions=frozenset({"export"}),
    admin_only_actions=frozenset({"export"}),
    csv_name="auditoria",
)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def _loaded(text: str) -> dict:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def changes(before_json: str, after_json: str) -> str:
    """The fields whose values differ, as "campo: antes → después" (created and deleted records said so)."""
    before, after = _loaded(before_json), _loaded(after_json)
    if not before_json and after_json:
        return "Creado"
    if before_json and not after_json:
        return "Eliminado"
    parts = [
        f"{key}: {_short(before.get(key))} → {_short(after.get(key))}"
        for key in sorted(before.keys() | after.keys())
        if key != "updated_at" and before.get(key) != after.get(key)
    ]
    text = "; ".join(parts) or "Sin cambios"
    return text if len(text) <= CHANGE_LIMIT else text[: CHANGE_LIMIT - 1] + "…"


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _ensure_admin(session: Session, actor: Actor) -> None:
    staff = ensure_staff(session, actor.uid, ADMIN_ONLY_MESSAGE)
    if staff.profile_uid != ProfileId.ADMINISTRADOR:
        raise ForbiddenError(ADMIN_ONLY_MESSAGE)


class AuditTableState(StaffTableState, rx.State):
    """The audit log on the staff table."""

    _spec: ClassVar[TableSpec] = AUDIT_SPEC
    _export_chunk: ClassVar[int] = audit.PAGE_SIZE

    @staticmethod
    def _filter_options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        _ensure_admin(session, actor)
        entities = session.exec(select(AuditEntry.entity).distinct().order_by(AuditEntry.entity)).all()
        return {"entidad": [[entity, entity] for entity in entities]}

    @staticmethod
    def _query(
        session: Session,
        *,
        actor: Actor,
        search: str,
        sort_key: str,
        desc: bool,
        filters: dict[str, str],
        page: int,
        page_size: int,
    ) -> tuple[list[dict[str, str]], int]:
        _ensure_admin(session, actor)
        person = None
        if search:
            person = users.find_user_by_email(session=session, email=search)
            if person is None:
                return [], 0
        found = audit.list_entries(
            session=session,
            actor_uid=person.uid if person else None,
            entity=filters.get("entidad") or None,
            day_from=_day(filters.get("desde", "")),
            day_to=_day(filters.get("hasta", "")),
            page=page,
            page_size=page_size,
        )
        rows = [
            {
                "uid": row.uid,
                "fecha": row.when,
                "persona": row.actor,
                "accion": row.action,
                "entidad": row.entity,
                "registro": row.entity_uid,
                "cambios": changes(row.before, row.after),
            }
            for row in found.rows
        ]
        return rows, found.total
