"""The advertiser's own listings through the services, on both databases: the wizard's drafts, sending,
review, the actions of "my listings", and ownership (someone else's listing is "not found")."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from app.core.errors import (
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    StorageError,
    TransitionNotAllowedError,
)
from app.models import (
    Advertiser,
    AdvertiserType,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    Report,
    ReviewDecision,
    utc_now,
)
from app.models.filter_tabs import DEFAULT_TAB, tab_by_slug
from app.services import listing_drafts, listing_photos, my_listings
from app.services.listings import city_cards, public_listing
from app.services.staff import reviews
from app.services.users import create_user
from tests.factories import (
    actor_of,
    add_photo,
    claiming_staff,
    make_listing,
    make_owner,
    services_disagreeing,
    wizard_steps,
)
from tests.photo_samples import jpeg_with_gps

CITY = "talca"


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _fill(db, owner_uid, catalogue, storage, *, upto: int = 8, photos: int = 2) -> str:
    steps = wizard_steps(catalogue, CITY)
    uid = None
    for number in range(1, upto + 1):
        if number == 7:
            for _ in range(photos):
                add_photo(session=db, storage=storage, owner_uid=owner_uid, uid=uid, data=jpeg_with_gps())
        uid = listing_drafts.save_step(
            session=db,
            owner_uid=owner_uid,
            uid=uid,
            step=number,
            values=steps[number],
            services=catalogue["services"][:2] if number == 4 else None,
            schedule={"lun": "10:00-20:00", "sab": "12:00-18:00"} if number == 6 else None,
        )
    return uid


def _staff(db):
    return create_user(
        session=db, data={"email": "revisora@example.cl", "display_name": "Revisora", "profile_uid": "secretaria"}
    )


def test_the_wizard_saves_a_draft_after_every_step_and_resumes_where_it_stopped(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage, upto=4)
    draft = listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=None)
    assert draft.uid == uid and draft.step == 5
    assert draft.values["display_name"] == "Camila Rosa" and draft.values["city_slug"] == CITY
    assert draft.values["rut"] == "11.111.111-1" and draft.values["nationality"] == "Chile"
    assert sorted(draft.services) == sorted(catalogue["services"][:2])
    listing = db.get(Listing, uid)
    assert listing.status == ListingStatus.BORRADOR and listing.price_hour_clp is None
    advertiser = db.exec(select(Advertiser).where(Advertiser.user_uid == owner.uid)).one()
    assert advertiser.birth_date.year == date.today().year - 30 and advertiser.type_uid == catalogue["type"]


def test_a_bad_step_names_its_field_and_changes_nothing(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage, upto=4)
    before = db.get(Listing, uid).model_dump()
    with pytest.raises(InvalidInputError) as refused:
        listing_drafts.save_step(
            session=db, owner_uid=owner.uid, uid=uid, step=5, values={"price_hour_clp": "cien mil"}
        )
    assert refused.value.field == "price_hour_clp"
    with pytest.raises(InvalidInputError) as refused:
        listing_drafts.save_step(
            session=db, owner_uid=owner.uid, uid=uid, step=2, values={"city_slug": CITY, "commune": "Providencia"}
        )
    assert refused.value.field == "commune"
    db.expire_all()
    assert db.get(Listing, uid).model_dump() == before


def test_a_minor_cannot_start_a_listing(db, catalogue):
    owner = make_owner(db, "menor@example.cl")
    today = date.today()
    with pytest.raises(InvalidInputError) as refused:
        listing_drafts.save_step(
            session=db,
            owner_uid=owner.uid,
            uid=None,
            step=1,
            values={"document": "rut", "rut": "11.111.111-1", "birth_date": f"{today.year - 17}/01/01"},
        )
    assert refused.value.field == "birth_date"
    assert db.exec(select(Listing).where(Listing.owner_uid == owner.uid)).first() is None


def test_sending_validates_every_step_again_because_a_client_can_skip_steps(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage, upto=4)
    with pytest.raises(InvalidInputError) as refused:
        listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    assert "Paso 5" in refused.value.message
    assert db.get(Listing, uid).status == ListingStatus.BORRADOR


def test_sent_listing_waits_for_review_and_appears_on_its_city_page_once_approved(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    row = my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0]
    assert (row.status, row.status_label) == ("pendiente", "En revisión")
    assert [c.uid for c in city_cards(session=db, section="mujeres", city_slug=CITY, tab=DEFAULT_TAB).cards] == []
    reviews.approve_listing(session=db, actor=actor_of(_staff(db)), listing_uid=uid)
    cards = city_cards(session=db, section="mujeres", city_slug=CITY, tab=DEFAULT_TAB).cards
    assert [c.uid for c in cards] == [uid]
    detail = public_listing(session=db, uid=uid)
    assert detail.phone == "+56 9 8765 4321" and detail.price == "$60.000"
    review = db.exec(select(ListingReview).where(ListingReview.listing_uid == uid)).one()
    assert review.decision == ReviewDecision.APROBADA


def test_a_rejection_reason_reaches_the_owner_and_the_edited_listing_can_be_sent_again(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    reviews.reject_listing(
        session=db, storage=storage, actor=actor_of(_staff(db)), listing_uid=uid, reason="Fotos borrosas"
    )
    row = my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0]
    assert (row.status, row.rejection_reason, row.can_edit) == ("rechazada", "Fotos borrosas", True)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    assert db.get(Listing, uid).status == ListingStatus.PENDIENTE
    assert my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0].rejection_reason == "Fotos borrosas"


def test_editing_a_published_listing_keeps_the_public_version_until_staff_approve(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    staff = _staff(db)
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid)
    values = dict(wizard_steps(catalogue, CITY)[4], display_name="Camila Nueva")
    listing_drafts.save_step(
        session=db, owner_uid=owner.uid, uid=uid, step=4, values=values, services=catalogue["services"]
    )
    assert listing_drafts.load_wizard(session=db, owner_uid=owner.uid, uid=uid).values["display_name"] == "Camila Nueva"
    assert public_listing(session=db, uid=uid).display_name == "Camila Rosa"
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    listing = db.get(Listing, uid)
    assert listing.status == ListingStatus.PUBLICADA and listing.revision_at is not None
    assert public_listing(session=db, uid=uid).display_name == "Camila Rosa"
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid)
    assert public_listing(session=db, uid=uid).display_name == "Camila Nueva"
    services = db.exec(select(ListingService.service_uid).where(ListingService.listing_uid == uid)).all()
    assert sorted(services) == sorted(catalogue["services"])
    assert db.get(Listing, uid).service_uids and services_disagreeing(db) == []  # the filter's copy too
    assert db.get(Listing, uid).revision is None


def test_pause_resume_and_expiry_while_paused(db):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, city=CITY, expires_at=utc_now() + timedelta(days=5))
    uid = listing.uid
    my_listings.pause_listing(session=db, owner_uid=owner.uid, uid=uid)
    assert public_listing(session=db, uid=uid) is None
    my_listings.resume_listing(session=db, owner_uid=owner.uid, uid=uid)
    assert public_listing(session=db, uid=uid) is not None
    my_listings.pause_listing(session=db, owner_uid=owner.uid, uid=uid)
    with pytest.raises(ConflictError):
        my_listings.resume_listing(session=db, owner_uid=owner.uid, uid=uid, now=utc_now() + timedelta(days=6))
    assert db.get(Listing, uid).status == ListingStatus.EXPIRADA
    with pytest.raises(TransitionNotAllowedError):
        my_listings.pause_listing(session=db, owner_uid=owner.uid, uid=uid)


def test_an_expired_listing_is_renewed_through_review(db):
    owner = make_owner(db, "duena@example.cl")
    kind = AdvertiserType(name="Independiente")
    db.add(kind)
    db.flush()
    db.add(
        Advertiser(
            user_uid=owner.uid, display_name="Dueña", rut="11.111.111-1", birth_date=date(1990, 1, 1), type_uid=kind.uid
        )
    )
    db.commit()
    description = "Una descripción suficientemente larga para pasar la revisión."
    uid = make_listing(db, owner, city=CITY, status="expirada", commune="Talca", description=description).uid
    my_listings.renew_listing(session=db, owner_uid=owner.uid, uid=uid)
    assert db.get(Listing, uid).status == ListingStatus.PENDIENTE


def test_available_now_switches_itself_off(db):
    owner = make_owner(db, "duena@example.cl")
    uid = make_listing(db, owner, city=CITY).uid
    now = utc_now()
    my_listings.set_available_now(session=db, owner_uid=owner.uid, uid=uid, hours=2, now=now)
    tab = tab_by_slug("disponible-ahora")
    assert [c.uid for c in city_cards(session=db, section="mujeres", city_slug=CITY, tab=tab, now=now).cards] == [uid]
    later = now + timedelta(hours=2, minutes=1)
    assert city_cards(session=db, section="mujeres", city_slug=CITY, tab=tab, now=later).cards == []
    with pytest.raises(InvalidInputError):
        my_listings.set_available_now(session=db, owner_uid=owner.uid, uid=uid, hours=48)


def test_copy_to_another_city_makes_a_draft_with_its_own_photo_files(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    copy_uid = my_listings.copy_to_city(session=db, storage=storage, owner_uid=owner.uid, uid=uid, city_slug="linares")
    copy = db.get(Listing, copy_uid)
    assert (copy.status, copy.city_slug, copy.display_name, copy.commune) == ("borrador", "linares", "Camila Rosa", "")
    originals = {p.path for p in db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == uid))}
    copies = {p.path for p in db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == copy_uid))}
    assert len(copies) == 2 and not originals & copies
    assert all(storage.exists(path) for path in copies)
    copied = db.exec(select(ListingService.service_uid).where(ListingService.listing_uid == copy_uid)).all()
    assert copied and copy.service_uids and services_disagreeing(db) == []


def test_delete_removes_the_listing_and_its_photo_files(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    files = [p for p in (storage.root / "photos").rglob("*") if p.is_file()]
    assert files
    my_listings.delete_listing(session=db, storage=storage, owner_uid=owner.uid, uid=uid)
    assert db.get(Listing, uid) is None
    assert not any(p.exists() for p in files)
    assert db.exec(select(ListingReview).where(ListingReview.listing_uid == uid)).first() is None


def test_a_reported_listing_is_deleted_and_its_reports_stay_unlinked(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    report = Report(kind="otro", listing_uid=uid, message="Datos falsos.", staff_notes="[nota] Revisar.")
    db.add(report)
    db.commit()
    my_listings.delete_listing(session=db, storage=storage, owner_uid=owner.uid, uid=uid)
    db.expire_all()
    assert db.get(Listing, uid) is None
    stored = db.get(Report, report.uid)
    assert stored.listing_uid is None
    assert stored.staff_notes.startswith("[nota] Revisar.\n[") and "«Camila Rosa»" in stored.staff_notes
    assert not list((storage.root / "photos").rglob("*.webp"))


def test_a_failed_delete_keeps_the_listing_and_its_photo_files(db, catalogue, storage, monkeypatch):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    files = sorted((storage.root / "photos").rglob("*.webp"))
    assert files

    def failing_commit():
        raise OperationalError("COMMIT", {}, Exception("conexión perdida"))

    monkeypatch.setattr(db, "commit", failing_commit)
    with pytest.raises(StorageError):
        my_listings.delete_listing(session=db, storage=storage, owner_uid=owner.uid, uid=uid)
    monkeypatch.undo()
    db.expire_all()
    assert db.get(Listing, uid) is not None
    assert len(db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == uid)).all()) == 2
    assert all(path.exists() for path in files)


def test_another_advertiser_gets_not_found_for_every_action_with_any_id(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    intruder = make_owner(db, "intrusa@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    before = db.get(Listing, uid).model_dump()
    calls = [
        lambda u: listing_drafts.load_wizard(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: listing_drafts.save_step(
            session=db, owner_uid=intruder.uid, uid=u, step=2, values=wizard_steps(catalogue, CITY)[2]
        ),
        lambda u: listing_drafts.review_summary(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: listing_drafts.send_to_review(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: my_listings.pause_listing(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: my_listings.resume_listing(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: my_listings.renew_listing(session=db, owner_uid=intruder.uid, uid=u),
        lambda u: my_listings.set_available_now(session=db, owner_uid=intruder.uid, uid=u, hours=1),
        lambda u: my_listings.delete_listing(session=db, storage=storage, owner_uid=intruder.uid, uid=u),
        lambda u: my_listings.copy_to_city(
            session=db, storage=storage, owner_uid=intruder.uid, uid=u, city_slug="linares"
        ),
    ]
    for call in calls:
        for candidate in (uid, "no-existe", 42, "x" * 500):
            with pytest.raises(NotFoundError) as refused:
                call(candidate)
            assert refused.value.message == "No encontramos esa publicación entre las tuyas."
    db.expire_all()
    assert db.get(Listing, uid).model_dump() == before
    assert my_listings.list_my_listings(session=db, owner_uid=intruder.uid) == []


def test_photos_added_to_a_published_listing_wait_for_review_and_a_refused_edit_deletes_them(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    staff = _staff(db)
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid)
    public_before = public_listing(session=db, uid=uid).photos
    added = add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=uid, data=jpeg_with_gps())
    assert added.approved is False and public_listing(session=db, uid=uid).photos == public_before
    stored = db.get(ListingPhoto, added.uid)
    files = [storage.root / key for key in listing_photos.photo_variant_keys(stored)]
    assert files and all(path.is_file() for path in files)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    reviews.reject_listing(session=db, storage=storage, actor=actor_of(staff), listing_uid=uid, reason="Foto ajena")
    assert db.get(ListingPhoto, added.uid) is None and not any(path.exists() for path in files)
    listing = db.get(Listing, uid)
    assert listing.status == ListingStatus.PUBLICADA and listing.revision_at is None
    assert public_listing(session=db, uid=uid).photos == public_before
    assert my_listings.list_my_listings(session=db, owner_uid=owner.uid)[0].rejection_reason == "Foto ajena"


def test_only_staff_decide_a_review(db, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _fill(db, owner.uid, catalogue, storage)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    for reviewer in (owner.uid, "", "no-existe"):
        with pytest.raises(ForbiddenError):
            reviews.approve_listing(session=db, actor=claiming_staff(reviewer), listing_uid=uid)
        with pytest.raises(ForbiddenError):
            reviews.reject_listing(
                session=db, storage=storage, actor=claiming_staff(reviewer), listing_uid=uid, reason="No"
            )
    assert db.get(Listing, uid).status == ListingStatus.PENDIENTE
