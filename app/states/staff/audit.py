"""/admin/auditoria: the audit log of staff writes on the staff table, for administrators only.

Filtered by person (the search box takes their e-mail), entity and Chilean calendar days;
newest first. Each row shows what changed (the fields whose values differ), not whole records.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.services.staff import audit
from app.services.staff.audit import AUDIT_SPEC
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import TableSpec
from app.states.staff.table import StaffTableState

CHANGE_LIMIT = 400
VALUE_LIMIT = 60


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"


def _loaded(text: str) -> dict[str, Any]:
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


class AuditTableState(StaffTableState, rx.State):
    """The audit log on the staff table."""

    _spec: ClassVar[TableSpec] = AUDIT_SPEC

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        return {"entidad": [[entity, entity] for entity in audit.entity_options(session=session, actor=actor)]}

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = audit.list_entries(session=session, actor=actor, query=query)
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

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()
