"""The audit log: a staff write and its entry land together, and the administrator reads them filtered."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.core.errors import ForbiddenError
from app.models import AuditEntry, Listing, ProfileId
from app.services.listings import clock
from app.services.staff import audit, reviews
from app.services.staff.shared import TableQuery
from app.services.users import create_user
from app.storage.local import LocalStorage
from tests.factories import actor_of, make_listing, make_owner, make_staff


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def test_a_review_decision_is_recorded_with_the_values_before_and_after(db, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    staff = make_staff(db, "revisora@example.cl", ProfileId.SECRETARIA)
    approved = make_listing(db, owner, status="pendiente", name="Una")
    refused = make_listing(db, owner, status="pendiente", name="Dos")
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=approved.uid)
    reviews.reject_listing(
        session=db, storage=LocalStorage(tmp_path), actor=actor_of(staff), listing_uid=refused.uid, reason="Fotos"
    )
    entries = {entry.entity_uid: entry for entry in db.exec(select(AuditEntry)).all()}
    assert entries[approved.uid].action == "aprobar" and entries[approved.uid].actor_uid == staff.uid
    assert json.loads(entries[approved.uid].before_json)["status"] == "pendiente"
    assert json.loads(entries[approved.uid].after_json)["status"] == "publicada"
    assert json.loads(entries[refused.uid].after_json)["motivo"] == "Fotos"


def test_a_failed_write_leaves_no_entry(db):
    owner = make_owner(db, "duena@example.cl")
    staff = make_staff(db, "revisora@example.cl", ProfileId.SECRETARIA)
    listing = make_listing(db, owner, status="publicada")
    with pytest.raises(Exception, match="no está esperando revisión"):
        reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=listing.uid)
    db.rollback()
    assert db.exec(select(AuditEntry)).all() == []
    assert db.get(Listing, listing.uid).status == "publicada"


def test_entries_are_listed_newest_first_and_filtered_by_person_entity_and_day(db):
    first = make_staff(db, "uno@example.cl", ProfileId.SECRETARIA)
    second = make_staff(db, "dos@example.cl", ProfileId.SECRETARIA)
    now = clock().now
    for i, actor in enumerate((first, second, first)):
        audit.record(
            db, actor_uid=actor.uid, action="editar", entity="usuarios", entity_uid=f"u{i}", now=now - timedelta(days=i)
        )
    audit.record(db, actor_uid=first.uid, action="crear", entity="agencia", entity_uid="a1", now=now)
    db.commit()
    admin = create_user(
        session=db, data={"email": "jefa@example.cl", "display_name": "Jefa", "profile_uid": "administrador"}
    )

    def entries(**query):
        return audit.list_entries(session=db, actor=actor_of(admin), query=TableQuery(**query))

    everything = entries()
    assert everything.total == 4 and everything.rows[-1].entity_uid == "u2"
    assert [r.entity_uid for r in entries(search="UNO@example.cl", filters={"entidad": "usuarios"}).rows] == [
        "u0",
        "u2",
    ]
    today = clock().today.isoformat()
    assert {r.entity_uid for r in entries(filters={"desde": today, "hasta": today}).rows} == {"u0", "a1"}
    assert entries(search="dos@example.cl").rows[0].actor == "dos@example.cl"
    assert entries(search="nadie@example.cl").total == 0
    with pytest.raises(ForbiddenError):
        audit.list_entries(session=db, actor=actor_of(first), query=TableQuery())  # a secretary
