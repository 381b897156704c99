"""An advertiser's reviewed identity changes only through review (issue 16 §1), on both databases.

A second draft saving step 1 with another RUT and birth date changes nothing staff or visitors see;
the change travels with the next listing sent, and staff's decision on it applies or discards it.
"""

from __future__ import annotations

import json
from datetime import date

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError
from app.models import Advertiser, AuditEntry, Listing, ListingStatus, User
from app.services import listing_drafts
from app.services.listings import public_listing
from app.services.staff import directory as staff_directory
from app.services.staff import review_queue, reviews
from app.services.staff.shared import TableQuery
from tests.factories import actor_of, add_photo, make_owner, save_wizard_step
from tests.invariants import assert_every_listing_in_review_is_queued
from tests.photo_samples import jpeg_with_gps

FIRST_RUT = "11.111.111-1"
NEW_RUT = "12.345.678-5"
THIS_YEAR = date.today().year


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _filled(db, owner, catalogue, storage, **identity) -> str:
    """A draft filled through the wizard (step 1 with ``identity``), with one photo, not sent."""
    uid = save_wizard_step(db, owner, None, catalogue, 1, **identity)
    for step in range(2, 9):
        if step == 7:
            add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=uid, data=jpeg_with_gps())
        uid = save_wizard_step(db, owner, uid, catalogue, step)
    return uid


def _send(db, owner, uid) -> None:
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    assert_every_listing_in_review_is_queued(db)


def _item(db, staff, listing_uid):
    page = review_queue.list_queue(session=db, actor=actor_of(staff))
    return next(item for item in page.items if item.listing_uid == listing_uid)


def _approve(db, staff, uid) -> None:
    reviews.approve_listing(
        session=db, actor=actor_of(staff), listing_uid=uid, expected_version=_item(db, staff, uid).version
    )
    assert_every_listing_in_review_is_queued(db)


def _reject(db, staff, storage, uid) -> None:
    reviews.reject_listing(
        session=db,
        storage=storage,
        actor=actor_of(staff),
        listing_uid=uid,
        reason="Datos de contacto inválidos",
        expected_version=_item(db, staff, uid).version,
    )
    assert_every_listing_in_review_is_queued(db)


def _directory_row(db, staff, owner) -> dict:
    """The owner's row as the staff Anunciantes page lists it."""
    page = staff_directory.list_advertisers(session=db, actor=actor_of(staff), query=TableQuery())
    advertiser_uid = db.exec(select(Advertiser.uid).where(Advertiser.user_uid == owner.uid)).one()
    return next(row for row in page.rows if row["uid"] == advertiser_uid)


@pytest.fixture
def published(db, staff, catalogue, storage) -> tuple[User, str]:
    """An owner whose first listing (and so identity: RUT 11.111.111-1, born 15/01, Chile) staff approved."""
    owner = make_owner(db, "duena@example.cl")
    uid = _filled(db, owner, catalogue, storage)
    _send(db, owner, uid)
    item = _item(db, staff, uid)
    assert item.identity_label == "Identidad: nueva"
    assert [(row.label, row.published) for row in item.identity] == [
        ("Documento", f"RUT {FIRST_RUT}"),
        ("Fecha de nacimiento", f"15/01/{THIS_YEAR - 30} · {_age(date(THIS_YEAR - 30, 1, 15))} años"),
        ("Nacionalidad", "Chile"),
    ]
    _approve(db, staff, uid)
    return owner, uid


def _age(born: date) -> int:
    today = date.today()
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


NEW_IDENTITY = {"rut": NEW_RUT, "birth_date": f"{THIS_YEAR - 40}/06/20", "nationality": "Perú"}


def _approved_identity(db, owner) -> tuple:
    advertiser = db.exec(select(Advertiser).where(Advertiser.user_uid == owner.uid)).one()
    db.refresh(advertiser)
    return advertiser.rut, advertiser.birth_date, advertiser.nationality


def test_a_second_never_sent_draft_saving_step_1_changes_nothing_staff_or_visitors_see(
    db, staff, catalogue, storage, published
):
    owner, first = published
    row_before = _directory_row(db, staff, owner)
    public_before = public_listing(session=db, uid=first)
    assert row_before["rut"] == FIRST_RUT and row_before["birth_date"] == f"{THIS_YEAR - 30}-01-15"

    second = save_wizard_step(db, owner, None, catalogue, 1, **NEW_IDENTITY)

    assert _directory_row(db, staff, owner) == row_before
    assert public_listing(session=db, uid=first) == public_before
    assert _approved_identity(db, owner) == (FIRST_RUT, date(THIS_YEAR - 30, 1, 15), "Chile")
    # The owner sees what they typed, and that it waits for review.
    draft = listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=second)
    assert (draft.values["rut"], draft.values["nationality"]) == (NEW_RUT, "Perú")
    assert draft.identity == listing_drafts.IDENTITY_PENDING
    assert review_queue.list_queue(session=db, actor=actor_of(staff)).total == 0


def test_approving_the_listing_sent_with_the_change_applies_it(db, staff, catalogue, storage, published):
    owner, _first = published
    second = _filled(db, owner, catalogue, storage, **NEW_IDENTITY)
    _send(db, owner, second)
    assert _approved_identity(db, owner)[0] == FIRST_RUT

    item = _item(db, staff, second)
    assert item.identity_label == "Identidad: aprobada y nueva"
    assert [(row.label, row.published, row.proposed) for row in item.identity] == [
        ("Documento", f"RUT {FIRST_RUT}", f"RUT {NEW_RUT}"),
        (
            "Fecha de nacimiento",
            f"15/01/{THIS_YEAR - 30} · {_age(date(THIS_YEAR - 30, 1, 15))} años",
            f"20/06/{THIS_YEAR - 40} · {_age(date(THIS_YEAR - 40, 6, 20))} años",
        ),
        ("Nacionalidad", "Chile", "Perú"),
    ]
    _approve(db, staff, second)

    assert _approved_identity(db, owner) == (NEW_RUT, date(THIS_YEAR - 40, 6, 20), "Perú")
    assert _directory_row(db, staff, owner)["rut"] == NEW_RUT
    entry = db.exec(select(AuditEntry).where(AuditEntry.action == "aprobar identidad")).all()[-1]
    assert entry.actor_uid == staff.uid and entry.entity == "profesor"
    assert (json.loads(entry.before_json)["rut"], json.loads(entry.after_json)["rut"]) == (FIRST_RUT, NEW_RUT)
    assert listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=second).identity == (
        listing_drafts.IDENTITY_REVIEWED
    )


def test_rejecting_the_listing_sent_with_the_change_discards_it(db, staff, catalogue, storage, published):
    owner, first = published
    second = _filled(db, owner, catalogue, storage, **NEW_IDENTITY)
    _send(db, owner, second)
    _reject(db, staff, storage, second)

    assert _approved_identity(db, owner) == (FIRST_RUT, date(THIS_YEAR - 30, 1, 15), "Chile")
    entry = db.exec(select(AuditEntry).where(AuditEntry.action == "descartar identidad")).one()
    assert (
        json.loads(entry.before_json)["pending_rut"] == NEW_RUT and json.loads(entry.after_json)["pending_rut"] is None
    )
    draft = listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=second)
    assert draft.values["rut"] == FIRST_RUT and draft.identity == listing_drafts.IDENTITY_REVIEWED
    assert db.get(Listing, first).status == ListingStatus.PUBLICADA


def test_an_identity_change_alone_is_sent_with_a_published_listing(db, staff, catalogue, storage, published):
    owner, first = published
    save_wizard_step(db, owner, first, catalogue, 1, **(NEW_IDENTITY | {"nationality": "Chile"}))
    _send(db, owner, first)

    item = _item(db, staff, first)
    assert item.kind == review_queue.KIND_EDIT and item.rows == []
    assert item.identity_label == "Identidad: aprobada y nueva"
    # Each field is compared on its own: the nationality kept is not marked as changed.
    assert [(row.label, row.changed) for row in item.identity] == [
        ("Documento", True),
        ("Fecha de nacimiento", True),
        ("Nacionalidad", False),
    ]
    _approve(db, staff, first)
    assert _approved_identity(db, owner)[0] == NEW_RUT
    assert db.get(Listing, first).status == ListingStatus.PUBLICADA


def test_a_listing_approved_without_the_change_leaves_it_waiting(db, staff, catalogue, storage, published):
    owner, _first = published
    second = _filled(db, owner, catalogue, storage)
    _send(db, owner, second)  # sent before the identity changed: it does not carry the change
    save_wizard_step(db, owner, None, catalogue, 1, **NEW_IDENTITY)

    item = _item(db, staff, second)
    assert item.identity_label == "Identidad: aprobada"
    assert [row.proposed for row in item.identity] == ["", "", ""]
    _approve(db, staff, second)
    assert _approved_identity(db, owner)[0] == FIRST_RUT


def test_changing_the_identity_while_its_listing_waits_changes_the_items_version(
    db, staff, catalogue, storage, published
):
    owner, _ = published
    second = _filled(db, owner, catalogue, storage, **NEW_IDENTITY)
    _send(db, owner, second)
    shown = _item(db, staff, second)
    save_wizard_step(db, owner, second, catalogue, 1, **{**NEW_IDENTITY, "nationality": "Bolivia"})
    with pytest.raises(ConflictError):
        reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=second, expected_version=shown.version)
    db.rollback()
    assert _approved_identity(db, owner)[0] == FIRST_RUT


def test_going_back_to_the_approved_identity_drops_the_pending_change(db, staff, catalogue, published):
    owner, _first = published
    second = save_wizard_step(db, owner, None, catalogue, 1, **NEW_IDENTITY)
    save_wizard_step(db, owner, second, catalogue, 1)
    assert listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=second).identity == (
        listing_drafts.IDENTITY_REVIEWED
    )
    advertiser = db.exec(select(Advertiser).where(Advertiser.user_uid == owner.uid)).one()
    assert advertiser.identity_pending_at is None and advertiser.pending_rut is None
