"""/admin/reportes (Denuncias): reports from the public form on the staff table; their state and staff notes.

Everything comes from the spec (``app.states.staff.table``): the table's edit dialog is the
desk's form (state and a new note), saved through one audited service call. Administrators only,
in the handlers and in the service.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from app.core.actor import Actor
from app.services.staff import reports as staff_reports
from app.services.staff.shared import TableQuery
from app.states.auth import requires
from app.states.staff.table import ADMIN, Column, Filter, FormField, StaffTableState, TableSpec

STATUS_FILTER = staff_reports.STATUS_FILTER
URGENT_LABEL = "Urgente"

REPORTS_SPEC = TableSpec(
    entity="denuncia",
    title="Denuncias",
    columns=(
        Column("received", "Recibida", sortable=True),
        Column("priority", "Prioridad"),
        Column("kind_label", "Tipo"),
        Column("status_label", "Estado"),
        Column("listing_name", "Publicación"),
        Column("message", "Mensaje"),
        Column("contact", "Contacto"),
        Column("staff_notes", "Notas del equipo"),
    ),
    default_sort="received",
    default_desc=True,
    filters=(
        Filter(
            STATUS_FILTER, "Estado", tuple((value, label) for value, (label, _) in staff_reports.STATUS_FILTERS.items())
        ),
    ),
    form_fields=(
        FormField("message", "Mensaje", kind="display"),
        FormField("contact", "Contacto", kind="display"),
        FormField("staff_notes", "Notas del equipo", kind="display"),
        FormField(
            "status",
            "Estado",
            kind="select",
            options=tuple(staff_reports.REPORT_STATUS_LABELS.items()),
            required=True,
        ),
        FormField("note", "Nota nueva (queda firmada y con fecha)", kind="textarea", max_length=staff_reports.NOTE_MAX),
    ),
    search_label="Buscar en mensajes, contactos y notas",
    profiles=(ADMIN,),
    actions=frozenset({"edit"}),
    admin_only_actions=frozenset(),
    row_label_key="kind_label",
)


class StaffReportsState(StaffTableState, rx.State):
    """The administrator's reports desk: trafficking and minor-safety reports first, then the newest."""

    _spec: ClassVar[TableSpec] = REPORTS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_reports.list_reports(session=session, actor_uid=actor.uid, query=query)
        rows = []
        for row in found.rows:
            values = {key: str(value) for key, value in row.model_dump(exclude={"urgent"}).items()}
            values["priority"] = URGENT_LABEL if row.urgent else ""
            rows.append(values)
        return rows, found.total

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return staff_reports.report_for_desk(session=session, actor_uid=actor.uid, report_uid=uid) | {"note": ""}

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_reports.update_report(
            session=session,
            actor_uid=actor.uid,
            report_uid=uid,
            status=values.get("status"),
            note=values.get("note") or "",
        )

    @requires(ADMIN)
    async def open_admin(self):
        """Enter the page (the area guard): the open reports, urgent ones first."""
        events = await self._load()
        if self.loaded:
            self.filters = {STATUS_FILTER: staff_reports.OPEN_FILTER}
            await self._refresh()
        return events
