"""Staff's listings, advertisers and agencies: every status listed and filtered, edits, take-down and
republish with the reason reaching the owner, audit entries, paging cap, and what a secretary may not do."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from sqlmodel import Session, select

from app.models import Advertiser, AdvertiserType, Agency, AgencyCategory, AuditEntry, Listing, ListingStatus, utc_now
from app.services import my_listings, staff_directory, staff_listings
from app.services.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.services.users import create_user
from app.storage.local import LocalStorage
from tests.factories import make_listing, make_owner, tier_of

DESCRIPTION = "Una descripción suficientemente larga para pasar la revisión de staff."


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _user(db, email: str, profile: str):
    return create_user(session=db, data={"email": email, "display_name": "Equipo", "profile_uid": profile})


@pytest.fixture
def admin(db):
    return _user(db, "admin@example.cl", "administrador")


@pytest.fixture
def secretary(db):
    return _user(db, "secretaria@example.cl", "secretaria")


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


def test_staff_see_listings_in_every_status_filtered_and_searched(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    for status in ListingStatus:
        make_listing(db, owner, name=f"Aviso {status.value}", status=status.value)
    make_listing(db, owner, name="Trans", section="trans", city="valparaiso", tier="ruby", phone="+56 9 8765 4321")
    every = staff_listings.list_listings(session=db, actor_uid=secretary.uid)
    assert every.total == len(ListingStatus) + 1
    assert {row["owner_email"] for row in every.rows} == {"duena@example.cl"}
    pending = staff_listings.list_listings(session=db, actor_uid=secretary.uid, status="pendiente")
    assert [row["display_name"] for row in pending.rows] == ["Aviso pendiente"]
    assert pending.rows[0]["status_label"] == "En revisión"
    only = {"section": "trans", "city": "valparaiso", "tier": tier_of(db, "ruby").uid}
    for key, value in only.items():
        found = staff_listings.list_listings(session=db, actor_uid=secretary.uid, **{key: value})
        assert [row["display_name"] for row in found.rows] == ["Trans"], key
    by_phone = staff_listings.list_listings(session=db, actor_uid=secretary.uid, search="87654321")
    assert [row["display_name"] for row in by_phone.rows] == ["Trans"]
    by_name = staff_listings.list_listings(session=db, actor_uid=secretary.uid, search="AVISO BORR")
    assert [row["display_name"] for row in by_name.rows] == ["Aviso borrador"]
    options = staff_listings.filter_options(session=db, actor_uid=secretary.uid)
    assert ("pendiente", "En revisión") in options["status"] and len(options["tier"]) == 4


def test_a_listing_page_holds_at_most_fifty_rows(db, admin):
    owner = make_owner(db, "duena@example.cl")
    for i in range(55):
        make_listing(db, owner, name=f"N{i}", photos=0)
    first = staff_listings.list_listings(session=db, actor_uid=admin.uid, page_size=1000)
    assert len(first.rows) == 50 and first.total == 55
    assert len(staff_listings.list_listings(session=db, actor_uid=admin.uid, page=2).rows) == 5


def test_non_staff_are_refused_and_the_secretary_cannot_delete(db, secretary, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner)
    for caller in (owner.uid, "", None):
        with pytest.raises(ForbiddenError):
            staff_listings.list_listings(session=db, actor_uid=caller)
        with pytest.raises(ForbiddenError):
            staff_listings.unpublish_listing(session=db, actor_uid=caller, uid=listing.uid, reason="x")
        with pytest.raises(ForbiddenError):
            staff_directory.list_advertisers(session=db, actor_uid=caller)
    with pytest.raises(ForbiddenError):
        staff_listings.delete_listing(
            session=db, storage=LocalStorage(tmp_path), actor_uid=secretary.uid, uid=listing.uid
        )
    assert db.get(Listing, listing.uid) is not None
    assert db.exec(select(AuditEntry)).all() == []


def test_a_take_down_reaches_the_owner_and_republishing_brings_it_back(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner)
    with pytest.raises(InvalidInputError) as missing:
        staff_listings.unpublish_listing(session=db, actor_uid=secretary.uid, uid=listing.uid, reason="  ")
    assert missing.value.field == "reason"
    staff_listings.unpublish_listing(
        session=db, actor_uid=secretary.uid, uid=listing.uid, reason="Fotos de otra persona"
    )
    assert db.get(Listing, listing.uid).status == ListingStatus.RECHAZADA
    row = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert row.rejection_reason == "Fotos de otra persona"
    [taken] = _entries(db, "despublicar")
    assert json.loads(taken.after_json)["motivo"] == "Fotos de otra persona" and taken.actor_uid == secretary.uid
    staff_listings.republish_listing(session=db, actor_uid=secretary.uid, uid=listing.uid)
    assert db.get(Listing, listing.uid).status == ListingStatus.PUBLICADA
    row = next(r for r in my_listings.list_my_listings(session=db, owner_uid=owner.uid) if r.uid == listing.uid)
    assert row.rejection_reason == ""
    assert len(_entries(db, "republicar")) == 1


def test_only_what_the_lifecycle_allows_is_taken_down_or_republished(db, admin):
    owner = make_owner(db, "duena@example.cl")
    pending = make_listing(db, owner, status="pendiente")
    with pytest.raises(ConflictError, match="las pendientes se revisan en la cola"):
        staff_listings.unpublish_listing(session=db, actor_uid=admin.uid, uid=pending.uid, reason="Motivo")
    refused_at_review = make_listing(db, owner, status="rechazada")
    with pytest.raises(ConflictError, match="nunca se publicó"):
        staff_listings.republish_listing(session=db, actor_uid=admin.uid, uid=refused_at_review.uid)
    old = _published(db, owner, name="Vieja")
    staff_listings.unpublish_listing(session=db, actor_uid=admin.uid, uid=old.uid, reason="Motivo")
    with pytest.raises(ConflictError, match="ya venció"):
        staff_listings.republish_listing(
            session=db, actor_uid=admin.uid, uid=old.uid, now=utc_now() + timedelta(days=40)
        )
    with pytest.raises(ConflictError, match="no puede pasar"):
        staff_listings.republish_listing(session=db, actor_uid=admin.uid, uid=_published(db, owner).uid)
    with pytest.raises(NotFoundError):
        staff_listings.republish_listing(session=db, actor_uid=admin.uid, uid="nada")


def test_staff_edit_a_listing_with_the_wizard_rules_and_the_edit_is_audited(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    listing = _published(db, owner, commune="Providencia")
    values = staff_listings.listing_form_values(session=db, actor_uid=secretary.uid, uid=listing.uid)
    assert values["city_slug"] == "santiago-de-chile" and values["tier_uid"] == tier_of(db, "platino").uid
    with pytest.raises(InvalidInputError) as bad:
        staff_listings.update_listing(
            session=db, actor_uid=secretary.uid, uid=listing.uid, data={**values, "age": "17"}
        )
    assert bad.value.field == "age"
    diamante = tier_of(db, "diamante")
    changed = {**values, "display_name": "Valentina Rosa", "phone": "912345679", "tier_uid": diamante.uid}
    staff_listings.update_listing(session=db, actor_uid=secretary.uid, uid=listing.uid, data=changed)
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
    staff_listings.delete_listing(session=db, storage=LocalStorage(tmp_path), actor_uid=admin.uid, uid=listing.uid)
    assert db.get(Listing, listing.uid) is None
    [deleted] = _entries(db, "eliminar")
    assert deleted.entity == "publicacion" and json.loads(deleted.before_json)["uid"] == listing.uid


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
    page = staff_directory.list_advertisers(session=db, actor_uid=secretary.uid, sort="display_name")
    assert [row["display_name"] for row in page.rows] == ["Dos", "Una"]
    assert page.rows[1]["email"] == "una@example.cl" and page.rows[1]["rut"] == "11.111.111-1"
    assert page.rows[0]["document"] == "pasaporte" and page.rows[0]["birth_date"] == "1990-05-01"
    assert staff_directory.list_advertisers(session=db, actor_uid=secretary.uid, verified="si").total == 1
    assert staff_directory.list_advertisers(session=db, actor_uid=secretary.uid, search="11.111").total == 1
    data = {
        "display_name": "Una Nueva",
        "document": "rut",
        "rut": "12.345.678-5",
        "birth_date": "1991/02/03",
        "nationality": "Chile",
        "verified": "true",
        "type": "independiente",
    }
    staff_directory.update_advertiser(session=db, actor_uid=secretary.uid, uid=first.uid, data=data)
    assert staff_directory.get_advertiser(session=db, actor_uid=secretary.uid, uid=first.uid)["type"] == "Independiente"
    db.expire_all()
    stored = db.get(Advertiser, first.uid)
    assert (stored.display_name, stored.rut, stored.birth_date, stored.verified, stored.type_uid) == (
        "Una Nueva",
        "12.345.678-5",
        date(1991, 2, 3),
        True,
        kind.uid,
    )
    for field, value in (("rut", "12.345.678-9"), ("birth_date", "2015/01/01"), ("type", "nada")):
        with pytest.raises(InvalidInputError) as refused:
            staff_directory.update_advertiser(
                session=db, actor_uid=secretary.uid, uid=first.uid, data={**data, field: value}
            )
        assert refused.value.field == field
    with pytest.raises(ForbiddenError):
        staff_directory.delete_advertiser(session=db, actor_uid=secretary.uid, uid=first.uid)
    staff_directory.delete_advertiser(session=db, actor_uid=admin.uid, uid=first.uid)
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
        staff_directory.list_agencies(session=db, actor_uid=secretary.uid)
    with pytest.raises(ForbiddenError):
        staff_directory.create_agency(session=db, actor_uid=secretary.uid, data={"name": "X"})
    with pytest.raises(InvalidInputError) as bad:
        staff_directory.create_agency(session=db, actor_uid=admin.uid, data={"name": "X", "email": "no"})
    assert bad.value.field == "email"
    uid = staff_directory.create_agency(
        session=db, actor_uid=admin.uid, data={"name": "Agencia Sur", "category": "grande", "email": "A@B.CL"}
    )
    stored = staff_directory.get_agency(session=db, actor_uid=admin.uid, uid=uid)
    assert (stored["category"], stored["email"]) == ("Grande", "a@b.cl")
    staff_directory.update_agency(session=db, actor_uid=admin.uid, uid=uid, data={"name": "Agencia Norte"})
    page = staff_directory.list_agencies(session=db, actor_uid=admin.uid, search="norte")
    assert page.rows[0]["name"] == "Agencia Norte" and page.rows[0]["category"] == ""
    _advertiser(db, "una@example.cl", agency_uid=uid)
    with pytest.raises(ConflictError, match=r"^Esta agencia tiene 1 anunciante\.$"):
        staff_directory.delete_agency(session=db, actor_uid=admin.uid, uid=uid)
    db.rollback()
    assert db.get(Agency, uid) is not None
    assert {e.action for e in db.exec(select(AuditEntry).where(AuditEntry.entity == "agencia"))} == {"crear", "editar"}


def test_every_sortable_column_of_the_pages_sorts_in_the_service():
    from app.states.staff_directory import ADVERTISERS_SPEC, AGENCIES_SPEC
    from app.states.staff_listings import LISTINGS_SPEC, SORT_KEYS

    assert {SORT_KEYS.get(key, key) for key in LISTINGS_SPEC.sort_keys} <= set(staff_listings.LISTING_SORTS)
    assert ADVERTISERS_SPEC.sort_keys <= set(staff_directory.ADVERTISER_SORTS)
    assert AGENCIES_SPEC.sort_keys <= set(staff_directory.AGENCY_SORTS)
    assert {field.key for field in LISTINGS_SPEC.form_fields} == set(staff_listings.FORM_FIELDS) - {"tier_uid"}
