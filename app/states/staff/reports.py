"""/admin/reportes (Denuncias): reports from the public form on the staff table; their state and staff notes.

Everything comes from the spec (``REPORTS_SPEC``, beside the desk's service): the table's edit dialog is the
desk's form (state and a new note), saved through one audited service call. Administrators only,
in the handlers and in the service.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.services.staff import reports as staff_reports
from app.services.staff.reports import REPORTS_SPEC
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import ADMIN, TableSpec
from app.states.auth import requires
from app.states.staff.table import StaffTableState

STATUS_FILTER = staff_reports.STATUS_FILTER
URGENT_LABEL = "Urgente"


class StaffReportsState(StaffTableState, rx.State):
    """The administrator's reports desk: trafficking and minor-safety reports first, then the newest."""

    _spec: ClassVar[TableSpec] = REPORTS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_reports.list_reports(session=session, actor=actor, query=query)
        rows = []
        for row in found.rows:
            values = {key: str(value) for key, value in row.model_dump(exclude={"urgent"}).items()}
            values["priority"] = URGENT_LABEL if row.urgent else ""
            rows.append(values)
        return rows, found.total

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return staff_reports.report_for_desk(session=session, actor=actor, report_uid=uid) | {"note": ""}

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_reports.update_report(
            session=session,
            actor=actor,
            report_uid=uid,
            status=values.get("status"),
            note=values.get("note") or "",
        )

    @requires(ADMIN)
    async def open_admin(self) -> list[EventSpec]:
        """Enter the page (the area guard): the open reports, urgent ones first."""
        events = await self._load()
        if self.loaded:
            self.filters = {STATUS_FILTER: staff_reports.OPEN_FILTER}
            await self._refresh()
        return events

    # --- handlers (marked from the spec by StaffTableState) ---

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

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)
