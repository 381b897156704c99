"""Advertiser records created by staff for existing advertiser accounts, and an advertiser's record
kept while listings it stands behind are live (on SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import date

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError
from app.models import Advertiser, AuditEntry, ProfileId
from app.services.staff import directory as staff_directory
from tests.factories import actor_of, claiming_staff, make_listing, make_owner, make_staff


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


IDENTITY = {
    "display_name": "Nueva",
    "document": "rut",
    "rut": "12.345.678-5",
    "birth_date": "1995/04/03",
    "nationality": "Chile",
}


def test_staff_create_the_record_of_an_advertiser_account_that_has_none(db):
    secretary = make_staff(db, "secre@example.cl", ProfileId.SECRETARIA)
    owner = make_owner(db, "Sin.Ficha@example.cl")
    client = make_staff(db, "cliente@example.cl", ProfileId.CLIENTE)
    for email, message in (
        ("nadie@example.cl", "No hay una cuenta de anunciante con ese correo."),
        (client.email, "No hay una cuenta de anunciante con ese correo."),
    ):
        with pytest.raises(InvalidInputError, match=message) as refused:
            staff_directory.create_advertiser(session=db, actor=actor_of(secretary), data={**IDENTITY, "email": email})
        assert refused.value.field == "email"
    with pytest.raises(InvalidInputError) as minor:
        staff_directory.create_advertiser(
            session=db,
            actor=actor_of(secretary),
            data={**IDENTITY, "email": owner.email, "birth_date": f"{date.today().year - 17}/01/01"},
        )
    assert minor.value.field == "birth_date"
    assert db.exec(select(Advertiser)).all() == [] and db.exec(select(AuditEntry)).all() == []

    uid = staff_directory.create_advertiser(
        session=db, actor=actor_of(secretary), data={**IDENTITY, "email": " SIN.FICHA@example.cl "}
    )
    stored = db.get(Advertiser, uid)
    assert (stored.user_uid, stored.rut, stored.birth_date) == (owner.uid, "12.345.678-5", date(1995, 4, 3))
    assert db.exec(select(AuditEntry.action).where(AuditEntry.entity_uid == uid)).all() == ["crear"]
    with pytest.raises(InvalidInputError, match="ya tiene su ficha"):
        staff_directory.create_advertiser(
            session=db, actor=actor_of(secretary), data={**IDENTITY, "email": owner.email}
        )
    with pytest.raises(ForbiddenError):
        staff_directory.create_advertiser(
            session=db, actor=claiming_staff(owner.uid), data={**IDENTITY, "email": owner.email}
        )


@pytest.mark.parametrize("status", ["publicada", "pausada", "pendiente"])
def test_the_record_behind_a_live_listing_is_not_deleted(db, status):
    admin = make_staff(db, "admin@example.cl", ProfileId.ADMINISTRADOR)
    owner = make_owner(db, "duena@example.cl")
    advertiser = Advertiser(user_uid=owner.uid, display_name="Dueña", rut="11.111.111-1", birth_date=date(1990, 5, 1))
    db.add(advertiser)
    db.commit()
    listing = make_listing(db, owner, status=status)
    with pytest.raises(ConflictError, match=r"^Tiene 1 publicación publicada, pausada o en revisión"):
        staff_directory.delete_advertiser(session=db, actor=actor_of(admin), uid=advertiser.uid)
    db.rollback()
    assert db.get(Advertiser, advertiser.uid) is not None
    listing.status = "expirada"
    db.add(listing)
    db.commit()
    staff_directory.delete_advertiser(session=db, actor=actor_of(admin), uid=advertiser.uid)
    assert db.get(Advertiser, advertiser.uid) is None
