"""A reviewer decides on what they were shown, on both databases: every owner change made through the
wizard or the photo services while an item waits changes its version, and a decision on the old
version is refused; a deleted catalogue entry left in a pending edit does not break its approval."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError
from app.models import (
    AdvertiserService,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingVerification,
    ReviewDecision,
    VerificationStatus,
)
from app.services import listing_drafts, listing_photos, verification
from app.services.staff import review_queue, reviews
from app.storage.local import PrivateLocalStorage
from tests.factories import (
    actor_of,
    add_photo,
    make_listing,
    make_owner,
    save_wizard_step,
    services_disagreeing,
    tier_of,
)
from tests.invariants import assert_every_listing_in_review_is_queued
from tests.photo_samples import jpeg_with_gps


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _sent(db, owner, catalogue, storage) -> str:
    """A listing filled through the wizard, with two photos, sent to review (pendiente)."""
    uid = None
    for step in range(1, 9):
        if step == 7:
            for _ in range(2):
                add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=uid, data=jpeg_with_gps())
        uid = save_wizard_step(db, owner, uid, catalogue, step)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    return uid


def _item(db, staff, listing_uid):
    assert_every_listing_in_review_is_queued(db)
    page = review_queue.list_queue(session=db, actor=actor_of(staff))
    return next(item for item in page.items if item.listing_uid == listing_uid)


def _photos(db, uid) -> list[ListingPhoto]:
    return list(db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == uid).order_by(ListingPhoto.position)))


def _change(change: str, db, owner, uid, catalogue, storage) -> None:
    """What the owner does while the reviewer looks at the item."""
    if change == "descripcion":
        save_wizard_step(
            db, owner, uid, catalogue, 4, description="Texto cambiado después de abrir la cola: llámame ya."
        )
    elif change == "telefono":
        save_wizard_step(db, owner, uid, catalogue, 8, phone="+56 9 1111 2222", whatsapp="")
    elif change == "foto_nueva":
        add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=uid, data=jpeg_with_gps())
    elif change == "foto_borrada":
        listing_photos.delete_listing_photo(
            session=db, storage=storage, owner_uid=owner.uid, photo_uid=_photos(db, uid)[0].uid
        )
    elif change == "foto_movida":
        listing_photos.move_photo(session=db, owner_uid=owner.uid, photo_uid=_photos(db, uid)[1].uid, offset=-1)
    else:
        raise AssertionError(change)


CHANGES = ["descripcion", "telefono", "foto_nueva", "foto_borrada", "foto_movida"]


@pytest.mark.parametrize("change", CHANGES)
def test_a_pending_listing_changed_after_the_reviewer_saw_it_is_neither_approved_nor_rejected(
    db, staff, catalogue, storage, change
):
    owner = make_owner(db, "duena@example.cl")
    uid = _sent(db, owner, catalogue, storage)
    shown = _item(db, staff, uid)
    _change(change, db, owner, uid, catalogue, storage)

    with pytest.raises(ConflictError) as refused:
        reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid, expected_version=shown.version)
    assert refused.value.message == "La publicación cambió mientras la revisabas. Revísala otra vez."
    db.rollback()
    with pytest.raises(ConflictError):
        reviews.reject_listing(
            session=db,
            storage=storage,
            actor=actor_of(staff),
            listing_uid=uid,
            reason="Fotos que no corresponden",
            expected_version=shown.version,
        )
    db.rollback()
    listing = db.get(Listing, uid)
    db.refresh(listing)
    assert listing.status == ListingStatus.PENDIENTE and listing.published_at is None

    again = _item(db, staff, uid)  # the reviewer sees the new content, and decides on it
    assert again.version != shown.version
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid, expected_version=again.version)
    db.refresh(listing)
    assert listing.status == ListingStatus.PUBLICADA


def test_an_unchanged_item_is_approved_and_its_version_does_not_depend_on_the_session(db, staff, catalogue, storage):
    owner = make_owner(db, "duena@example.cl")
    uid = _sent(db, owner, catalogue, storage)
    shown = _item(db, staff, uid)
    db.expire_all()  # read everything again, as the decision's own session does
    assert _item(db, staff, uid).version == shown.version
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid, expected_version=shown.version)
    assert db.get(Listing, uid).status == ListingStatus.PUBLICADA


@pytest.mark.parametrize("change", ["descripcion", "foto_nueva"])
def test_an_edit_changed_again_after_the_reviewer_saw_it_is_not_applied(db, staff, catalogue, storage, change):
    owner = make_owner(db, "duena@example.cl")
    uid = _sent(db, owner, catalogue, storage)
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid)
    save_wizard_step(db, owner, uid, catalogue, 4, display_name="Camila Nueva")
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    shown = _item(db, staff, uid)
    assert shown.kind == review_queue.KIND_EDIT
    _change(change, db, owner, uid, catalogue, storage)  # written into the revision (or a photo awaiting review)

    with pytest.raises(ConflictError):
        reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=uid, expected_version=shown.version)
    db.rollback()
    listing = db.get(Listing, uid)
    db.refresh(listing)
    assert listing.display_name == "Camila Rosa" and listing.revision_at is not None
    if change == "foto_nueva":
        assert [photo.approved for photo in _photos(db, uid)] == [True, True, False]


def test_a_verification_whose_listing_photos_changed_is_not_decided(db, staff, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, name="Verificable", photos=3)
    private = PrivateLocalStorage(tmp_path / "private")
    verification.request_verification(
        session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps()
    )
    shown = _item(db, staff, listing.uid)
    assert shown.kind == review_queue.KIND_VERIFICATION
    # The owner swaps the cover the reviewer compared the person with.
    photos = _photos(db, listing.uid)
    listing_photos.set_cover(session=db, owner_uid=owner.uid, photo_uid=photos[2].uid)

    with pytest.raises(ConflictError):
        reviews.decide_review(
            session=db,
            storage=private,
            private=private,
            actor=actor_of(staff),
            decision=ReviewDecision.APROBADA,
            item_uid=shown.uid,
            expected_version=shown.version,
        )
    db.rollback()
    with pytest.raises(ConflictError):
        reviews.decide_review(
            session=db,
            storage=private,
            private=private,
            actor=actor_of(staff),
            decision=ReviewDecision.RECHAZADA,
            item_uid=shown.uid,
            reason="La foto no se ve bien",
            expected_version=shown.version,
        )
    db.rollback()
    request = db.get(ListingVerification, shown.uid)
    db.refresh(request)
    assert request.status == VerificationStatus.SOLICITADA and request.storage_key
    again = _item(db, staff, listing.uid)
    reviews.decide_review(
        session=db,
        storage=private,
        private=private,
        actor=actor_of(staff),
        decision=ReviewDecision.APROBADA,
        item_uid=again.uid,
        expected_version=again.version,
    )
    db.refresh(request)
    assert request.status == VerificationStatus.APROBADA


def test_a_pending_edit_naming_a_deleted_service_or_tier_is_approved_without_them(db, staff):
    owner = make_owner(db, "duena@example.cl")
    kept, gone = AdvertiserService(name="Masajes"), AdvertiserService(name="Borrado")
    db.add_all([kept, gone])
    db.commit()
    listing = make_listing(db, owner, name="Con cambios", tier="platino")
    platino = tier_of(db, "platino").uid
    changes = {"listing": {"description": "Nueva descripción", "base_tier_uid": "categoria-borrada"}}
    listing.revision = json.dumps({**changes, "services": [kept.uid, gone.uid]})
    listing.revision_at = listing.updated_at
    db.add(listing)
    db.add(ListingReview(listing_uid=listing.uid))
    db.commit()
    db.delete(gone)  # nothing but the pending edit names it, so the catalogue lets it go
    db.commit()

    shown = _item(db, staff, listing.uid)
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=listing.uid, expected_version=shown.version)
    db.refresh(listing)
    assert listing.description == "Nueva descripción" and listing.revision is None
    assert listing.base_tier_uid == platino and listing.tier_uid == platino
    services = db.exec(select(ListingService.service_uid).where(ListingService.listing_uid == listing.uid)).all()
    assert services == [kept.uid]
    assert listing.service_uids == f" {kept.uid} " and services_disagreeing(db) == []  # the filter's copy too
    review = db.exec(select(ListingReview).where(ListingReview.listing_uid == listing.uid)).one()
    assert review.decision == ReviewDecision.APROBADA
