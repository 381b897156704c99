"""Staff's listings, advertisers and agencies: every status listed and filtered, edits, take-down and
republish with the reason reaching the owner, audit entries, paging cap, and what a secretary may not do."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.models import (
    Advertiser,
    AdvertiserType,
    Agency,
    AgencyCategory,
    AuditEntry,
    Listing,
    ListingPhoto,
    ListingStatus,
    Report,
    utc_now,
)
from app.services import listing_drafts, listing_photos, my_listings
from app.services.staff import directory as staff_directory
from app.services.staff import listings as staff_listings
from app.services.staff import reports as staff_reports
from app.services.staff import reviews
from app.services.staff.shared import TableQuery
from app.storage.local import LocalStorage
from tests.factories import actor_of, add_photo, claiming_staff, make_listing, make_owner, make_staff, tier_of
from tests.photo_samples import jpeg_with_gps

DESCRIPTION = "Una descripción suficientemente larga para pasar la revisión de staff."


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture
def admin(db):
    return make_staff(db, "admin@example.cl", "administrador")


@pytest.fixture
def secretary(db):
    return make_staff(db, "secretaria@example.cl", "secretaria")


def _published(db, owner, **fields) -> Listing:
    now = utc_now()
    return make_listing(
        db,
        owner,
        description=DESCRIPTION,
        published_at=now - timedelta(days=2),
        expires_at=now + timedelta(days=30),
        **fields,
    )


def _entries(db, action: str) -> list[AuditEntry]:
    return db.exec(select(AuditEntry).where(AuditEntry.action == action)).all()


def _listings(db, caller, **query):
    return staff_listings.list_listings(session=db, actor=actor_of(caller), query=TableQuery(**query))


def _advertisers(db, caller, **query):
    return staff_directory.list_advertisers(session=db, actor=actor_of(caller), query=TableQuery(**query))


def test_staff_see_listings_in_every_status_filtered_and_searched(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    for status in ListingStatus:
        make_listing(db, owner, name=f"Aviso {status.value}", status=status.value)
    make_listing(db, owner, name="Trans", section="trans", city="valparaiso", tier="ruby", phone="+56 9 8765 4321")
    every = _listings(db, secretary)
    assert every.total == len(ListingStatus) + 1
    assert {row["owner_email"] for row in every.rows} == {"duena@example.cl"}
    pending = _listings(db, secretary, filters={"status": "pendiente"})
    assert [row["display_name"] for row in pending.rows] == ["Aviso pendiente"]
    assert pending.rows[0]["status_label"] == "En revisión"
    only = {"section": "trans", "city": "valparaiso", "tier": tier_of(db, "ruby").uid}
    for key, value in only.items():
        found = _listings(db, secretary, filters={key: value})
        assert [row["display_name"] for row in found.rows] == ["Trans"], key
    by_phone = _listings(db, secretary, search="87654321")
    assert [row["display_name"] for row in by_phone.rows] == ["Trans"]
    by_name = _listings(db, secretary, search="AVISO BORR")
    assert [row["display_name"] for row in by_name.rows] == ["Aviso borrador"]


def test_listings_come_a_page_at_a_time(db, admin):
    owner = make_owner(db, "duena@example.cl")
    for i in range(55):
        make_listing(db, owner, name=f"N{i}", photos=0)
    first = _listings(db, admin)
    assert len(first.rows) == 50 and first.total == 55
    second = _listings(db, admin, page=2)
    assert len(second.rows) == 5 and not {r["uid"] for r in first.rows} & {r["uid"] for r in second.rows}
    assert len(_listings(db, admin, page_size=10**6).rows) == 55  # one query reads at most MAX_QUERY_ROWS


def test_non_staff_are_refused_and_the_secretary_cannot_delete(db, secretary, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner)
    for caller in (owner.uid, "", None):
        with pytest.raises(ForbiddenError):
            staff_listings.list_listings(session=db, actor=claiming_staff(caller), query=TableQuery())
        with pytest.raises(ForbiddenError):
            staff_listings.unpublish_listing(session=db, actor=claiming_staff(caller), uid=listing.uid, reason="x")
        with pytest.raises(ForbiddenError):
            staff_directory.list_advertisers(session=db, actor=claiming_staff(caller), query=TableQuery())
    with pytest.raises(ForbiddenError):
        staff_listings.delete_listing(
            session=db, storage=LocalStorage(tmp_path), actor=actor_of(secretary), uid=listing.uid
        )
    assert db.get(Listing, listing.uid) is not None
    assert db.exec(select(AuditEntry)).all() == []


def test_a_take_down_reaches_the_owner_and_republishing_brings_it_back(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner)
    with pytest.raises(InvalidInputError) as missing:
        staff_listings.unpublish_listing(session=db, actor=actor_of(secretary), uid=listing.uid, reason="  ")
    assert missing.value.field == "reason"
    staff_listings.unpublish_listing(
        session=db, actor=actor_of(secretary), uid=listing.uid, reason="Fotos de otra persona"
    )
    assert db.get(Listing, listing.uid).status == ListingStatus.RECHAZADA
    row = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert row.rejection_reason == "Fotos de otra persona"
    [taken] = _entries(db, "despublicar")
    assert json.loads(taken.after_json)["motivo"] == "Fotos de otra persona" and taken.actor_uid == secretary.uid
    staff_listings.republish_listing(session=db, actor=actor_of(secretary), uid=listing.uid)
    assert db.get(Listing, listing.uid).status == ListingStatus.PUBLICADA
    row = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert row.rejection_reason == ""
    assert len(_entries(db, "republicar")) == 1


def test_only_what_the_lifecycle_allows_is_taken_down_or_republished(db, admin):
    owner = make_owner(db, "duena@example.cl")
    pending = make_listing(db, owner, status="pendiente")
    with pytest.raises(ConflictError, match="las pendientes se revisan en la cola"):
        staff_listings.unpublish_listing(session=db, actor=actor_of(admin), uid=pending.uid, reason="Motivo")
    refused_at_review = make_listing(db, owner, status="rechazada")
    with pytest.raises(ConflictError, match="nunca se publicó"):
        staff_listings.republish_listing(session=db, actor=actor_of(admin), uid=refused_at_review.uid)
    old = _published(db, owner, name="Vieja")
    staff_listings.unpublish_listing(session=db, actor=actor_of(admin), uid=old.uid, reason="Motivo")
    with pytest.raises(ConflictError, match="ya venció"):
        staff_listings.republish_listing(
            session=db, actor=actor_of(admin), uid=old.uid, now=utc_now() + timedelta(days=40)
        )
    with pytest.raises(ConflictError, match="Solo se republica una publicación que el equipo despublicó"):
        staff_listings.republish_listing(session=db, actor=actor_of(admin), uid=_published(db, owner).uid)
    with pytest.raises(NotFoundError):
        staff_listings.republish_listing(session=db, actor=actor_of(admin), uid="nada")


def test_republishing_never_skips_the_review_queue(db, admin, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    pending = make_listing(db, owner, status="pendiente")
    with pytest.raises(ConflictError, match="Solo se republica una publicación que el equipo despublicó"):
        staff_listings.republish_listing(session=db, actor=actor_of(admin), uid=pending.uid)
    db.rollback()
    db.expire_all()
    stored = db.get(Listing, pending.uid)
    assert (stored.status, stored.expires_at) == (ListingStatus.PENDIENTE, None)
    assert _entries(db, "republicar") == []
    # Taken down, sent again by the owner and refused at review: that refusal stands.
    resent = _published(db, owner, name="Reenviada")
    staff_listings.unpublish_listing(session=db, actor=actor_of(admin), uid=resent.uid, reason="Teléfono falso")
    db.get(Listing, resent.uid).status = ListingStatus.PENDIENTE  # the owner sent it again
    db.commit()
    reviews.reject_listing(
        session=db,
        storage=LocalStorage(tmp_path),
        actor=actor_of(admin),
        listing_uid=resent.uid,
        reason="Sigue el teléfono falso",
    )
    with pytest.raises(ConflictError, match="fue rechazada en la revisión"):
        staff_listings.republish_listing(session=db, actor=actor_of(admin), uid=resent.uid)
    db.rollback()
    assert db.get(Listing, resent.uid).status == ListingStatus.RECHAZADA


def _taken_down(db, staff, owner, name: str) -> Listing:
    listing = _published(db, owner, name=name)
    staff_listings.unpublish_listing(session=db, actor=actor_of(staff), uid=listing.uid, reason="Teléfono falso")
    return listing


def test_staff_do_not_republish_what_the_owner_changed_after_the_take_down(db, admin, secretary, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    storage = LocalStorage(tmp_path)
    edited = _taken_down(db, secretary, owner, "Editada")
    listing_drafts.save_step(
        session=db, owner_uid=owner.uid, uid=edited.uid, step=8, values={"phone": "+56 9 5555 4444", "whatsapp": ""}
    )
    with_photo = _taken_down(db, secretary, owner, "Con foto")
    add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=with_photo.uid, data=jpeg_with_gps())
    assert db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == with_photo.uid)).all()[-1].approved
    new_cover = _taken_down(db, secretary, owner, "Otra portada")
    last = db.exec(
        select(ListingPhoto).where(ListingPhoto.listing_uid == new_cover.uid).order_by(ListingPhoto.position.desc())
    ).first()
    listing_photos.set_cover(session=db, owner_uid=owner.uid, photo_uid=last.uid)
    # The owner changes it, then staff edit it: the owner's change is still not reviewed.
    edited_then_fixed = _taken_down(db, secretary, owner, "Corregida")
    add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=edited_then_fixed.uid, data=jpeg_with_gps())
    values = staff_listings.listing_form_values(session=db, actor=actor_of(admin), uid=edited_then_fixed.uid)
    staff_listings.update_listing(session=db, actor=actor_of(admin), uid=edited_then_fixed.uid, data=values)
    for listing in (edited, with_photo, new_cover, edited_then_fixed):
        with pytest.raises(ConflictError, match="El anunciante cambió la publicación después de despublicarla"):
            staff_listings.republish_listing(session=db, actor=actor_of(admin), uid=listing.uid)
        db.rollback()
        assert db.get(Listing, listing.uid).status == ListingStatus.RECHAZADA, listing.display_name
    assert _entries(db, "republicar") == []
    # Staff's own fix after the take-down does not stop them republishing.
    fixed = _taken_down(db, secretary, owner, "Arreglada")
    values = staff_listings.listing_form_values(session=db, actor=actor_of(admin), uid=fixed.uid)
    staff_listings.update_listing(
        session=db, actor=actor_of(admin), uid=fixed.uid, data={**values, "phone": "+56 9 7777 6666"}
    )
    staff_listings.republish_listing(session=db, actor=actor_of(secretary), uid=fixed.uid)
    db.expire_all()
    assert (db.get(Listing, fixed.uid).status, db.get(Listing, fixed.uid).phone) == (
        ListingStatus.PUBLICADA,
        "+56 9 7777 6666",
    )


def test_staff_do_not_edit_over_an_owner_edit_waiting_for_review(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner)
    values = staff_listings.listing_form_values(session=db, actor=actor_of(secretary), uid=listing.uid)
    listing_drafts.save_step(
        session=db, owner_uid=owner.uid, uid=listing.uid, step=8, values={"phone": "+56 9 5555 4444", "whatsapp": ""}
    )
    db.get(Listing, listing.uid).revision_at = utc_now()  # sent to review, as send_to_review does
    db.commit()
    with pytest.raises(ConflictError, match="Tiene cambios del anunciante esperando revisión"):
        staff_listings.update_listing(
            session=db, actor=actor_of(secretary), uid=listing.uid, data={**values, "phone": "+56 9 7777 6666"}
        )
    db.rollback()
    db.expire_all()
    assert db.get(Listing, listing.uid).phone == "+56 9 1234 5678"
    assert _entries(db, "editar") == []


def test_staff_edit_a_listing_with_the_wizard_rules_and_the_edit_is_audited(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner, commune="Providencia")
    values = staff_listings.listing_form_values(session=db, actor=actor_of(secretary), uid=listing.uid)
    assert values["city_slug"] == "santiago-de-chile" and values["tier_uid"] == tier_of(db, "platino").uid
    with pytest.raises(InvalidInputError) as bad:
        staff_listings.update_listing(
            session=db, actor=actor_of(secretary), uid=listing.uid, data={**values, "age": "17"}
        )
    assert bad.value.field == "age"
    diamante = tier_of(db, "diamante")
    changed = {**values, "display_name": "Valentina Rosa", "phone": "912345679", "tier_uid": diamante.uid}
    staff_listings.update_listing(session=db, actor=actor_of(secretary), uid=listing.uid, data=changed)
    db.expire_all()
    stored = db.get(Listing, listing.uid)
    assert (stored.display_name, stored.name_slug, stored.phone) == (
        "Valentina Rosa",
        "valentina-rosa",
        "+56 9 1234 5679",
    )
    assert (stored.base_tier_uid, stored.tier_uid, stored.tier_rank) == (diamante.uid, diamante.uid, 1)
    assert stored.status == ListingStatus.PUBLICADA
    [edit] = _entries(db, "editar")
    assert json.loads(edit.before_json)["display_name"] == "Valentina"


def test_an_administrator_deletes_a_listing_and_the_deletion_is_audited(db, admin, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner, photos=0)
    staff_listings.delete_listing(session=db, storage=LocalStorage(tmp_path), actor=actor_of(admin), uid=listing.uid)
    assert db.get(Listing, listing.uid) is None
    [deleted] = _entries(db, "eliminar")
    assert deleted.entity == "publicacion" and json.loads(deleted.before_json)["uid"] == listing.uid


def test_an_administrator_deletes_a_reported_listing_and_the_report_stays_for_the_desk(db, admin, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    storage = LocalStorage(tmp_path)
    listing = _published(db, owner, name="Reportada", photos=0)
    add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=listing.uid, data=jpeg_with_gps())
    report = Report(kind="trata", listing_uid=listing.uid, message="Parece trata de personas.")
    db.add(report)
    db.commit()
    assert list(tmp_path.rglob("*.webp"))
    staff_listings.delete_listing(session=db, storage=storage, actor=actor_of(admin), uid=listing.uid)
    db.expire_all()
    assert db.get(Listing, listing.uid) is None
    assert not list(tmp_path.rglob("*.webp"))
    stored = db.get(Report, report.uid)
    assert stored.listing_uid is None and f"«Reportada» ({listing.uid})" in stored.staff_notes
    [row] = staff_reports.list_reports(session=db, actor=actor_of(admin), query=TableQuery()).rows
    assert (row.listing_name, row.listing_url) == ("", "") and "Se eliminó la publicación" in row.staff_notes


# --------------------------------------------------------------------------- advertisers and agencies


def _advertiser(db, email: str, **fields) -> Advertiser:
    owner = make_owner(db, email)
    advertiser = Advertiser(
        user_uid=owner.uid, display_name=fields.pop("display_name", "Dueña"), birth_date=date(1990, 5, 1), **fields
    )
    db.add(advertiser)
    db.commit()
    return advertiser


def test_staff_see_advertisers_private_fields_and_edit_them(db, secretary, admin):
    kind = AdvertiserType(name="Independiente")
    db.add(kind)
    db.commit()
    first = _advertiser(db, "una@example.cl", display_name="Una", rut="11.111.111-1", nationality="Chile")
    _advertiser(db, "dos@example.cl", display_name="Dos", passport="AB12345", nationality="Perú", verified=True)
    page = _advertisers(db, secretary, sort="display_name")
    assert [row["display_name"] for row in page.rows] == ["Dos", "Una"]
    assert page.rows[1]["email"] == "una@example.cl" and page.rows[1]["rut"] == "11.111.111-1"
    assert page.rows[0]["document"] == "pasaporte" and page.rows[0]["birth_date"] == "1990-05-01"
    assert _advertisers(db, secretary, filters={"verified": "si"}).total == 1
    assert _advertisers(db, secretary, search="11.111").total == 1
    data = {
        "display_name": "Una Nueva",
        "document": "rut",
        "rut": "12.345.678-5",
        "birth_date": "1991/02/03",
        "nationality": "Chile",
        "verified": "true",
        "type_uid": kind.uid,
    }
    staff_directory.update_advertiser(session=db, actor=actor_of(secretary), uid=first.uid, data=data)
    assert (
        staff_directory.get_advertiser(session=db, actor=actor_of(secretary), uid=first.uid)["type"] == "Independiente"
    )
    db.expire_all()
    stored = db.get(Advertiser, first.uid)
    assert (stored.display_name, stored.rut, stored.birth_date, stored.verified, stored.type_uid) == (
        "Una Nueva",
        "12.345.678-5",
        date(1991, 2, 3),
        True,
        kind.uid,
    )
    for field, value in (("rut", "12.345.678-9"), ("birth_date", "2015/01/01"), ("type_uid", "nada")):
        with pytest.raises(InvalidInputError) as refused:
            staff_directory.update_advertiser(
                session=db, actor=actor_of(secretary), uid=first.uid, data={**data, field: value}
            )
        assert refused.value.field == field
    with pytest.raises(ForbiddenError):
        staff_directory.delete_advertiser(session=db, actor=actor_of(secretary), uid=first.uid)
    staff_directory.delete_advertiser(session=db, actor=actor_of(admin), uid=first.uid)
    assert db.get(Advertiser, first.uid) is None
    assert [e.action for e in db.exec(select(AuditEntry).where(AuditEntry.entity == "profesor"))] in (
        ["editar", "eliminar"],
        ["eliminar", "editar"],
    )


def test_agencies_are_the_administrators_and_one_with_advertisers_stays(db, admin, secretary):
    category = AgencyCategory(name="Grande")
    db.add(category)
    db.commit()
    with pytest.raises(ForbiddenError):
        staff_directory.list_agencies(session=db, actor=actor_of(secretary), query=TableQuery())
    with pytest.raises(ForbiddenError):
        staff_directory.create_agency(session=db, actor=actor_of(secretary), data={"name": "X"})
    with pytest.raises(InvalidInputError) as bad:
        staff_directory.create_agency(session=db, actor=actor_of(admin), data={"name": "X", "email": "no"})
    assert bad.value.field == "email"
    uid = staff_directory.create_agency(
        session=db, actor=actor_of(admin), data={"name": "Agencia Sur", "category_uid": category.uid, "email": "A@B.CL"}
    )
    stored = staff_directory.get_agency(session=db, actor=actor_of(admin), uid=uid)
    assert (stored["category"], stored["email"]) == ("Grande", "a@b.cl")
    staff_directory.update_agency(session=db, actor=actor_of(admin), uid=uid, data={"name": "Agencia Norte"})
    page = staff_directory.list_agencies(session=db, actor=actor_of(admin), query=TableQuery(search="norte"))
    assert page.rows[0]["name"] == "Agencia Norte" and page.rows[0]["category"] == ""
    _advertiser(db, "una@example.cl", agency_uid=uid)
    with pytest.raises(ConflictError, match=r"^Esta agencia tiene 1 anunciante\.$"):
        staff_directory.delete_agency(session=db, actor=actor_of(admin), uid=uid)
    db.rollback()
    assert db.get(Agency, uid) is not None
    assert {e.action for e in db.exec(select(AuditEntry).where(AuditEntry.entity == "agencia"))} == {"crear", "editar"}


def test_every_sortable_column_of_the_pages_sorts_in_the_service():
    from app.states.staff.directory import AdvertisersTableState, AgenciesTableState
    from app.states.staff.listings import StaffListingsState

    # The state shows the spec the service sorts and filters by, and the service sorts every sortable column.
    assert StaffListingsState._spec is staff_listings.LISTINGS_SPEC
    assert AdvertisersTableState._spec is staff_directory.ADVERTISERS_SPEC
    assert AgenciesTableState._spec is staff_directory.AGENCIES_SPEC
    assert set(staff_listings.LISTING_SORTS) == staff_listings.LISTINGS_SPEC.sort_keys
    assert set(staff_directory.ADVERTISER_SORTS) == staff_directory.ADVERTISERS_SPEC.sort_keys
    assert set(staff_directory.AGENCY_SORTS) == staff_directory.AGENCIES_SPEC.sort_keys
