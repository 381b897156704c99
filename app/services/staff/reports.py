"""The administrator's reports desk (/admin/reportes): reports from the public form, their state and staff notes.

Trafficking (trata) and minor-safety (menor) reports come first, then the newest. Administrators
only: every function checks the caller. A change of state or a note is one audited write; the audit
entry holds the state and the notes only, never the reporter's message or contact.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import ColumnElement, case
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.errors import InvalidInputError, NotFoundError
from app.core.geo import city_by_slug
from app.db import commit
from app.models import REPORT_KIND_LABELS, Listing, Report, ReportStatus, User, utc_now
from app.services import reports
from app.services.listings import listing_path
from app.services.staff import audit
from app.services.staff.shared import StaffPage, TableQuery, ensure_admin, fetch_page, search_condition
from app.services.staff.table_spec import ADMIN, Column, Filter, FormField, TableSpec
from app.settings import get_settings

NOTE_MAX = 2000
ADMIN_ONLY = "Solo un administrador puede revisar los reportes."
AUDIT_ENTITY = "reporte"
URGENT_KINDS = reports.URGENT_KINDS
REPORT_STATUS_LABELS: dict[str, str] = {
    ReportStatus.NUEVO.value: "Nueva",
    ReportStatus.EN_REVISION.value: "En curso",
    ReportStatus.CERRADO.value: "Cerrada",
}
STATUS_FILTER, OPEN_FILTER = "estado", "abiertos"
# The filter as data: value, label, the states it shows (no filter: every state).
STATUS_FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    OPEN_FILTER: ("Abiertas (nuevas y en curso)", (ReportStatus.NUEVO.value, ReportStatus.EN_REVISION.value)),
    **{value: (label, (value,)) for value, label in REPORT_STATUS_LABELS.items()},
}
_UNKNOWN = "No encontramos ese reporte."
_STAMP = "%Y/%m/%d %H:%M"
PREVIEW_CHARS = 200
"""Characters of a message or of the notes a table row shows; the desk's form shows them whole."""
_SEARCHED = (Report.message, Report.contact, Report.staff_notes)

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
    filters=(Filter(STATUS_FILTER, "Estado", tuple((value, label) for value, (label, _) in STATUS_FILTERS.items())),),
    form_fields=(
        FormField("message", "Mensaje", kind="display"),
        FormField("contact", "Contacto", kind="display"),
        FormField("staff_notes", "Notas del equipo", kind="display"),
        FormField(
            "status",
            "Estado",
            kind="select",
            options=tuple(REPORT_STATUS_LABELS.items()),
            required=True,
        ),
        FormField("note", "Nota nueva (queda firmada y con fecha)", kind="textarea", max_length=NOTE_MAX),
    ),
    search_label="Buscar en mensajes, contactos y notas",
    profiles=(ADMIN,),
    actions=frozenset({"edit"}),
    admin_only_actions=frozenset(),
    row_label_key="kind_label",
)


class StaffReportRow(BaseModel):
    """One report as the desk shows it to an administrator."""

    uid: str
    kind_label: str
    urgent: bool
    status: str
    status_label: str
    received: str
    listing_name: str
    listing_url: str
    message: str
    contact: str
    staff_notes: str


def ensure_report_reviewer(session: Session, user_uid: object) -> User:
    """The active administrator ``user_uid``; ForbiddenError for anyone else (a secretary included)."""
    return ensure_admin(session, user_uid, ADMIN_ONLY)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(ZoneInfo(get_settings().timezone)).strftime(_STAMP)


def _preview(text: str, *, newest_last: bool = False) -> str:
    """At most PREVIEW_CHARS of ``text`` for a table cell (the end of it when the newest part is last)."""
    if len(text) <= PREVIEW_CHARS:
        return text
    return "…" + text[-(PREVIEW_CHARS - 1) :] if newest_last else text[: PREVIEW_CHARS - 1] + "…"


def _row(report: Report, listing: Listing | None) -> StaffReportRow:
    if listing is not None:
        city = city_by_slug(listing.city_slug)
        name = " · ".join(part for part in (listing.display_name, city.name if city else listing.city_slug) if part)
        url = listing_path(
            section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
        )
    else:
        name, url = "", ""
    return StaffReportRow(
        uid=report.uid,
        kind_label=REPORT_KIND_LABELS.get(report.kind, report.kind),  # type: ignore[call-overload]  # a StrEnum key: its str finds it
        urgent=report.kind in URGENT_KINDS,
        status=report.status,
        status_label=REPORT_STATUS_LABELS.get(report.status, report.status),
        received=_stamp(report.created_at),
        listing_name=name,
        listing_url=url,
        message=_preview(report.message),
        contact=report.contact,
        staff_notes=_preview(report.staff_notes, newest_last=True),
    )


def list_reports(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of reports (rows: StaffReportRow) in the ``estado`` filter (STATUS_FILTERS; none: every state).

    Trafficking and minor-safety reports first, then newest first (not descending: oldest).
    The search looks in the message, the contact and the staff notes.
    """
    ensure_report_reviewer(session, actor.uid)
    conditions: list[ColumnElement[bool]] = []
    if query.filter(STATUS_FILTER) in STATUS_FILTERS:
        conditions.append(col(Report.status).in_(STATUS_FILTERS[query.filter(STATUS_FILTER)][1]))
    found = search_condition(_SEARCHED, query)
    if found is not None:
        conditions.append(found)
    urgency = case((col(Report.kind).in_(URGENT_KINDS), 0), else_=1)
    received = (
        (col(Report.created_at).desc(), col(Report.uid).desc())
        if query.descending
        else (col(Report.created_at), col(Report.uid))
    )
    statement = (
        select(Report, Listing).outerjoin(Listing, col(Listing.uid) == col(Report.listing_uid)).where(*conditions)
    )
    rows, total = fetch_page(session, statement, query, (urgency, *received))
    return StaffPage([_row(*row) for row in rows], total, query.page, query.page_size)


def report_for_desk(*, session: Session, actor: Actor, report_uid: object) -> dict[str, str]:
    """One report whole, for the desk's form: its state, message, contact and notes (the table shows
    previews); NotFoundError if there is none."""
    ensure_report_reviewer(session, actor.uid)
    report = session.get(Report, report_uid) if isinstance(report_uid, str) else None
    if report is None:
        raise NotFoundError(_UNKNOWN)
    return {
        "status": report.status,
        "message": report.message,
        "contact": report.contact,
        "staff_notes": report.staff_notes,
    }


def _audited(report: Report) -> dict[str, str]:
    """What the audit log keeps of a report: its state and notes (never the reporter's words or contact)."""
    return {"status": report.status, "staff_notes": report.staff_notes}


def update_report(
    *,
    session: Session,
    actor: Actor,
    report_uid: str,
    status: object,
    note: object = "",
    now: datetime | None = None,
) -> StaffReportRow:
    """Set a report's state and add a staff note (signed and dated) in one audited write; the updated row."""
    reviewer = ensure_report_reviewer(session, actor.uid)
    if status not in REPORT_STATUS_LABELS:
        raise InvalidInputError("Elige el estado del reporte.", field="status")
    note = note.strip() if isinstance(note, str) else ""
    if len(note) > NOTE_MAX:
        raise InvalidInputError(f"La nota puede tener hasta {NOTE_MAX} caracteres.", field="note")
    report = session.get(Report, report_uid, with_for_update=True) if isinstance(report_uid, str) else None
    if report is None:
        raise NotFoundError(_UNKNOWN)
    if status == report.status and not note:
        raise InvalidInputError("Cambia el estado o escribe una nota.", field="note")
    now = now or utc_now()
    before = _audited(report)
    report.status = status
    if note:
        entry = f"[{_stamp(now)} · {reviewer.display_name or reviewer.email}] {note}"
        report.staff_notes = f"{report.staff_notes}\n{entry}" if report.staff_notes else entry
    report.updated_at = now
    session.add(report)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="actualizar",
        entity=AUDIT_ENTITY,
        entity_uid=report.uid,
        before=before,
        after=_audited(report),
        now=now,
    )
    commit(session)
    listing = session.get(Listing, report.listing_uid) if report.listing_uid else None
    return _row(report, listing)
