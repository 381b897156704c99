"""The administrator's reports desk: trafficking and minor-safety reports first, the state filter, audited
state changes and signed notes, a secretary refused by the service, and the e-mail to the administrators
when an urgent report arrives (through the real SMTP server, without the reporter's contact)."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from email.header import decode_header, make_header

import pytest
from sqlmodel import Session, select

from app.core.errors import ForbiddenError, InvalidInputError, NotFoundError
from app.models import AuditEntry, ProfileId, Report, utc_now
from app.services.reports import create_report
from app.services.staff import reports as staff_reports
from app.services.staff.shared import TableQuery
from app.settings import get_settings
from tests.factories import actor_of, claiming_staff, make_listing, make_owner, make_staff
from tests.waits import wait_until_sent

MESSAGE = "Creo que la persona del aviso no está trabajando por su propia voluntad."


@pytest.fixture
def both(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _report(db, kind: str, minutes_ago: int, status: str = "nuevo", **fields) -> Report:
    report = Report(
        kind=kind,
        message=fields.pop("message", MESSAGE),
        status=status,
        created_at=utc_now() - timedelta(minutes=minutes_ago),
        **fields,
    )
    db.add(report)
    db.commit()
    return report


def _reports(session, admin, status: str):
    query = TableQuery(filters={"estado": status}, descending=True)
    return staff_reports.list_reports(session=session, actor=actor_of(admin), query=query)


def test_trafficking_and_minor_reports_come_first_then_the_newest(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    owner = make_owner(both, "duena@example.cl")
    listing = make_listing(both, owner, name="Denunciada", city="temuco")
    other_new = _report(both, "otro", 1)
    consent = _report(both, "sin_consentimiento", 5)
    trata_old = _report(both, "trata", 60, listing_uid=listing.uid, contact="+56 9 1111 2222")
    menor = _report(both, "menor", 30)
    page = staff_reports.list_reports(session=both, actor=actor_of(admin), query=TableQuery(descending=True))
    assert [row.uid for row in page.rows] == [menor.uid, trata_old.uid, other_new.uid, consent.uid]
    assert page.total == 4
    row = page.rows[1]
    assert row.urgent and row.kind_label == "Posible trata de personas o explotación"
    assert (row.status_label, row.listing_name, row.contact) == ("Nueva", "Denunciada · Temuco", "+56 9 1111 2222")
    assert row.listing_url == f"/escorts/temuco/denunciada/{listing.uid}"
    assert not page.rows[2].urgent


def test_the_filter_shows_open_ones_by_default_each_state_apart_or_all(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    new = _report(both, "otro", 1)
    ongoing = _report(both, "otro", 2, status="en_revision")
    closed = _report(both, "trata", 3, status="cerrado")

    def uids(status: str) -> list[str]:
        return [row.uid for row in _reports(both, admin, status).rows]

    assert uids("abiertos") == [new.uid, ongoing.uid]
    assert uids("nuevo") == [new.uid]
    assert uids("en_revision") == [ongoing.uid]
    assert uids("cerrado") == [closed.uid]
    assert uids("") == [closed.uid, new.uid, ongoing.uid]
    assert uids("'; drop table reporte; --") == [closed.uid, new.uid, ongoing.uid]
    assert _reports(both, admin, "en_revision").rows[0].status_label == ("En curso")


def test_a_state_change_and_a_note_are_one_audited_write(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    report = _report(both, "trata", 1, contact="testigo@correo.cl")
    row = staff_reports.update_report(
        session=both, actor=actor_of(admin), report_uid=report.uid, status="en_revision", note=" Llamé a la PDI. "
    )
    assert row.status == "en_revision" and row.status_label == "En curso"
    assert row.staff_notes.startswith("[") and row.staff_notes.endswith("· admin] Llamé a la PDI.")
    staff_reports.update_report(
        session=both, actor=actor_of(admin), report_uid=report.uid, status="cerrado", note="Aviso dado de baja."
    )
    stored = both.get(Report, report.uid)
    both.refresh(stored)
    assert stored.status == "cerrado"
    assert [line.split("] ")[1] for line in stored.staff_notes.splitlines()] == [
        "Llamé a la PDI.",
        "Aviso dado de baja.",
    ]
    entries = both.exec(
        select(AuditEntry).where(AuditEntry.entity_uid == report.uid).order_by(AuditEntry.created_at)
    ).all()
    assert [(e.action, e.entity, e.actor_uid) for e in entries] == [("actualizar", "reporte", admin.uid)] * 2
    assert json.loads(entries[0].before_json) == {"status": "nuevo", "staff_notes": ""}
    assert json.loads(entries[1].after_json)["status"] == "cerrado"
    # The audit log keeps neither the reporter's words nor their contact.
    assert all("testigo" not in e.before_json + e.after_json and MESSAGE not in e.after_json for e in entries)


def test_wrong_updates_are_refused_and_change_nothing(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    report = _report(both, "otro", 1)
    for status, note, field in (("archivado", "", "status"), ("nuevo", "  ", "note"), ("nuevo", "x" * 2001, "note")):
        with pytest.raises(InvalidInputError) as error:
            staff_reports.update_report(
                session=both, actor=actor_of(admin), report_uid=report.uid, status=status, note=note
            )
        assert error.value.field == field
    with pytest.raises(NotFoundError):
        staff_reports.update_report(session=both, actor=actor_of(admin), report_uid="no-existe", status="cerrado")
    both.rollback()
    assert both.get(Report, report.uid).status == "nuevo"
    assert both.exec(select(AuditEntry)).all() == []


def test_a_secretary_and_an_advertiser_cannot_read_or_change_reports(both):
    secretary = make_staff(both, "secre@example.cl", ProfileId.SECRETARIA)
    owner = make_owner(both, "duena@example.cl")
    report = _report(both, "trata", 1)
    for caller in (actor_of(secretary), claiming_staff(owner.uid)):
        with pytest.raises(ForbiddenError):
            staff_reports.list_reports(session=both, actor=caller, query=TableQuery())
        with pytest.raises(ForbiddenError):
            staff_reports.update_report(session=both, actor=caller, report_uid=report.uid, status="cerrado", note="No")
    both.rollback()
    assert both.get(Report, report.uid).status == "nuevo"


def _send(db, kind: str, **data) -> Report:
    payload = {"kind": kind, "message": MESSAGE, **data}
    return create_report(session=db, data=payload, client_key=f"cliente-{uuid.uuid4().hex}", seconds_on_form=10)


def _subject(message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def test_an_urgent_report_is_emailed_to_every_active_administrator_without_the_reporters_contact(db, mailbox):
    admins = [make_staff(db, f"admin-{uuid.uuid4().hex[:8]}@example.cl", ProfileId.ADMINISTRADOR) for _ in range(2)]
    banned = make_staff(db, f"vetado-{uuid.uuid4().hex[:8]}@example.cl", ProfileId.ADMINISTRADOR, ban=True)
    inactive = make_staff(db, f"inactivo-{uuid.uuid4().hex[:8]}@example.cl", ProfileId.ADMINISTRADOR, activo=False)
    secretary = make_staff(db, f"secre-{uuid.uuid4().hex[:8]}@example.cl", ProfileId.SECRETARIA)
    owner = make_owner(db, f"duena-{uuid.uuid4().hex[:8]}@example.cl")
    listing = make_listing(db, owner, name="Aviso Dudoso", city="temuco")

    _send(db, "otro", contact="alguien@correo.cl")
    _send(db, "trata", listing_uid=listing.uid, contact="testigo@correo.cl")
    _send(db, "menor", contact="+56 9 5555 4444")
    wait_until_sent()

    for admin in admins:
        received = mailbox.to(admin.email)
        assert len(received) == 2, "one e-mail per urgent report, none for the other kind"
        subjects = sorted(_subject(message) for message in received)
        assert subjects == [
            "Reporte urgente: Posible persona menor de edad",
            "Reporte urgente: Posible trata de personas o explotación",
        ]
        for message in received:
            body = message.get_payload(decode=True).decode()
            assert "/admin/reportes" in body
            assert "testigo@correo.cl" not in body and "5555" not in body and MESSAGE not in body
        trata = next(m for m in received if "trata" in _subject(m)).get_payload(decode=True).decode()
        site = get_settings().site_url.rstrip("/")
        assert f"Aviso Dudoso: {site}/escorts/temuco/aviso-dudoso/{listing.uid}" in trata
    for left_out in (banned, inactive, secretary):
        assert mailbox.to(left_out.email) == []


def test_search_looks_in_the_message_contact_and_notes_and_the_order_can_turn(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    older = _report(both, "otro", 10, contact="vecina@correo.cl")
    newer = _report(both, "otro", 1, staff_notes="Pedimos más datos")

    def uids(**kwargs) -> list[str]:
        return [
            row.uid
            for row in staff_reports.list_reports(session=both, actor=actor_of(admin), query=TableQuery(**kwargs)).rows
        ]

    assert uids(search="VECINA") == [older.uid]
    assert uids(search="más datos") == [newer.uid]
    assert uids(search="voluntad", descending=True) == [newer.uid, older.uid]
    assert uids(descending=False) == [older.uid, newer.uid]


def test_the_table_shows_previews_and_the_desk_form_the_whole_report(both):
    admin = make_staff(both, "admin@example.cl", ProfileId.ADMINISTRADOR)
    long_message = "Detalle del caso. " * 250  # 4,500 characters, under the form's 5,000
    notes = "nota antigua " * 100 + "la nota más nueva"
    report = _report(both, "otro", 1, message=long_message, staff_notes=notes)
    (row,) = staff_reports.list_reports(session=both, actor=actor_of(admin), query=TableQuery()).rows
    assert len(row.message) == staff_reports.PREVIEW_CHARS and row.message.endswith("…")
    assert row.staff_notes.startswith("…") and row.staff_notes.endswith("la nota más nueva")
    whole = staff_reports.report_for_desk(session=both, actor=actor_of(admin), report_uid=report.uid)
    assert (whole["message"], whole["staff_notes"], whole["status"]) == (long_message, notes, "nuevo")
