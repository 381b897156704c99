"""The review queue on both databases: oldest first, the signals beside each item, the decisions reaching the
advertiser, the verification photo deleted after a decision, and only staff handlers let in."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.identity.local import LocalProvider
from app.models import (
    AuditEntry,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingVerification,
    ProfileId,
    ReviewDecision,
    VerificationStatus,
    utc_now,
)
from app.models.reports import Report
from app.services import my_listings, verification
from app.services.staff import review_queue, review_signals, reviews
from app.services.staff.review_queue import KIND_EDIT, KIND_NEW, KIND_VERIFICATION
from app.states.staff.review_queue import ReviewQueueState
from app.storage.local import LocalStorage, PrivateLocalStorage
from tests.factories import actor_of, claiming_staff, make_account, make_listing, make_owner, open_session
from tests.handlers import client_states, invoke
from tests.invariants import assert_every_listing_in_review_is_queued
from tests.photo_samples import jpeg_with_gps


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _pending(db, owner, name, *, minutes_ago: int, **fields) -> Listing:
    """A listing sent to review ``minutes_ago`` (the row send_to_review opens)."""
    listing = make_listing(db, owner, name=name, status="pendiente", **fields)
    db.add(ListingReview(listing_uid=listing.uid, created_at=utc_now() - timedelta(minutes=minutes_ago)))
    db.commit()
    return listing


def _edited(db, owner, name, *, minutes_ago: int, changes: dict) -> Listing:
    """A published listing whose edit waits for review."""
    listing = make_listing(db, owner, name=name)
    listing.revision = json.dumps({"listing": changes})
    listing.revision_at = utc_now() - timedelta(minutes=minutes_ago)
    db.add(listing)
    db.add(ListingReview(listing_uid=listing.uid, created_at=listing.revision_at))
    db.commit()
    return listing


def _queue(db, staff, **kwargs):
    assert_every_listing_in_review_is_queued(db)
    return review_queue.list_queue(session=db, actor=actor_of(staff), **kwargs)


def _item(page, title):
    return next(item for item in page.items if item.title == title)


def _signals(item) -> str:
    return " | ".join(signal.text for signal in item.signals)


def _hash_photo(db, listing, phash: str, position: int = 5) -> ListingPhoto:
    photo = ListingPhoto(listing_uid=listing.uid, position=position, path=f"photos/x/{phash}.webp", phash=phash)
    db.add(photo)
    db.commit()
    return photo


def test_the_queue_is_oldest_first_with_listings_edits_and_verifications(db, staff, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    _pending(db, owner, "Nueva reciente", minutes_ago=5)
    _pending(db, owner, "Nueva antigua", minutes_ago=300)
    _edited(db, owner, "Editada", minutes_ago=60, changes={"display_name": "Editada Dos", "age": 30})
    published = make_listing(db, owner, name="Para verificar")
    private = PrivateLocalStorage(tmp_path / "private")
    verification.request_verification(
        session=db,
        storage=private,
        owner_uid=owner.uid,
        listing_uid=published.uid,
        data=jpeg_with_gps(),
        now=utc_now() - timedelta(minutes=30),
    )
    make_listing(db, owner, name="Ya publicada")  # nothing waits for it

    page = _queue(db, staff)
    assert [item.title for item in page.items] == ["Nueva antigua", "Editada", "Para verificar", "Nueva reciente"]
    assert [item.kind for item in page.items] == [KIND_NEW, KIND_EDIT, KIND_VERIFICATION, KIND_NEW]
    assert page.total == 4 and "hace 5 h" in page.oldest

    edit = _item(page, "Editada")
    assert {(row.label, row.published, row.proposed) for row in edit.rows} == {
        ("Nombre", "Editada", "Editada Dos"),
        ("Edad", "25", "30"),
    }
    new = _item(page, "Nueva antigua")
    assert ("Nombre", "Nueva antigua") in {(row.label, row.published) for row in new.rows}
    check = _item(page, "Para verificar")
    request = db.exec(select(ListingVerification)).one()
    assert check.verification_photo_url == f"/privado/verificacion/{request.uid}"
    assert request.storage_key not in check.model_dump_json()

    second = _queue(db, staff, page=2, page_size=3)
    assert [item.title for item in second.items] == ["Nueva reciente"]


def test_only_staff_read_the_queue(db):
    owner = make_owner(db, "duena@example.cl")
    with pytest.raises(ForbiddenError):
        review_queue.list_queue(session=db, actor=claiming_staff(owner.uid))  # the database decides, not the claim


def test_the_same_phone_on_another_owners_listing_is_a_signal(db, staff):
    owner = make_owner(db, "duena@example.cl")
    other = make_owner(db, "otra@example.cl")
    _pending(db, owner, "Con teléfono repetido", minutes_ago=10, phone="+56 9 5555 0001", whatsapp="")
    _pending(db, owner, "Con teléfono propio", minutes_ago=5, phone="+56 9 5555 0002", whatsapp="")
    make_listing(db, other, name="Ajena", whatsapp="+56 9 5555 0001", phone="+56 9 5555 0009")
    make_listing(db, owner, name="Mía", phone="+56 9 5555 0002")  # the same owner's number is no signal
    page = _queue(db, staff)
    assert "+56 9 5555 0001" in _signals(_item(page, "Con teléfono repetido"))
    assert "Ajena" in _signals(_item(page, "Con teléfono repetido"))
    assert "+56 9 5555" not in _signals(_item(page, "Con teléfono propio"))


def test_a_phone_in_a_pending_edit_is_checked_too(db, staff):
    owner = make_owner(db, "duena@example.cl")
    other = make_owner(db, "otra@example.cl")
    make_listing(db, other, name="Ajena", phone="+56 9 7777 0001")
    _edited(db, owner, "Cambia teléfono", minutes_ago=3, changes={"phone": "+56 9 7777 0001"})
    assert "+56 9 7777 0001" in _signals(_item(_queue(db, staff), "Cambia teléfono"))


def test_the_same_or_a_near_identical_photo_of_another_owner_is_a_signal(db, staff):
    owner = make_owner(db, "duena@example.cl")
    other = make_owner(db, "otra@example.cl")
    exact = _pending(db, owner, "Foto copiada", minutes_ago=30, photos=0)
    near = _pending(db, owner, "Foto retocada", minutes_ago=20, photos=0)
    far = _pending(db, owner, "Foto distinta", minutes_ago=10, photos=0)
    mine = _pending(db, owner, "Foto propia", minutes_ago=5, photos=0)
    _hash_photo(db, exact, "c3a5f00f0ff01234")
    flagged = _hash_photo(db, near, "00ff00ff00ff00ff")
    _hash_photo(db, far, "123456789abcdef0")
    _hash_photo(db, mine, "aaaaaaaaaaaaaaaa")
    theirs = make_listing(db, other, name="Ajena", photos=0)
    _hash_photo(db, theirs, "c3a5f00f0ff01234", position=0)
    # Six bits away from "Foto retocada" (two quarters untouched), and a photo far from everything.
    _hash_photo(db, theirs, "00ff00ff03ff0fff", position=1)
    _hash_photo(db, theirs, "edcba98765432100", position=2)
    other_listing_of_mine = make_listing(db, owner, name="Otra mía", photos=0)
    _hash_photo(db, other_listing_of_mine, "aaaaaaaaaaaaaaaa", position=0)

    page = _queue(db, staff)
    assert "foto idéntica" in _signals(_item(page, "Foto copiada")) and "Ajena" in _signals(_item(page, "Foto copiada"))
    assert "casi idéntica" in _signals(_item(page, "Foto retocada"))
    assert [photo.flagged for photo in _item(page, "Foto retocada").photos] == [True]
    assert review_signals.hamming("00ff00ff00ff00ff", "00ff00ff03ff0fff") == 6
    assert "foto" not in _signals(_item(page, "Foto distinta")).lower()
    assert "foto" not in _signals(_item(page, "Foto propia")).lower()
    assert flagged.uid  # the flagged photo is the one compared


def test_a_photo_seven_bits_away_is_not_near(db, staff):
    owner = make_owner(db, "duena@example.cl")
    other = make_owner(db, "otra@example.cl")
    listing = _pending(db, owner, "Lejana", minutes_ago=5, photos=0)
    _hash_photo(db, listing, "00ff00ff00ff00ff")
    _hash_photo(db, make_listing(db, other, name="Ajena", photos=0), "00ff00ff07ff0fff", position=0)
    assert review_signals.hamming("00ff00ff00ff00ff", "00ff00ff07ff0fff") == 7
    assert "foto" not in _signals(_item(_queue(db, staff), "Lejana")).lower()


def test_the_owners_rejections_bans_and_reports_are_signals(db, staff, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    earlier = _pending(db, owner, "Rechazada antes", minutes_ago=50)
    reviews.reject_listing(
        session=db, storage=LocalStorage(tmp_path), actor=actor_of(staff), listing_uid=earlier.uid, reason="Fotos"
    )
    db.add(AuditEntry(actor_uid=staff.uid, action="banear", entity="usuarios", entity_uid=owner.uid))
    db.add(Report(kind="menor", listing_uid=earlier.uid, message="Parece menor"))
    listing = _pending(db, owner, "En cola", minutes_ago=5)
    db.add(Report(kind="otro", listing_uid=listing.uid, message="Algo raro", status="cerrado"))
    owner.ban = True
    db.add(owner)
    db.commit()
    clean_owner = make_owner(db, "limpia@example.cl")
    _pending(db, clean_owner, "Sin historia", minutes_ago=3, phone="+56 9 4444 0001", whatsapp="")

    page = _queue(db, staff)
    text = _signals(_item(page, "En cola"))
    assert "1 rechazo anterior" in text
    assert "suspendida (baneada)" in text and "suspendida 1 vez" in text
    assert "1 denuncia contra esta publicación (0 sin cerrar)" in text
    assert "1 denuncia contra otras publicaciones de la cuenta (1 sin cerrar)" in text
    assert _item(page, "Sin historia").signals == []


def test_a_rejection_reason_from_the_list_reaches_the_advertisers_list(db, staff, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = _pending(db, owner, "Por rechazar", minutes_ago=5)
    reason = reviews.rejection_text("Fotos que no corresponden", "  La segunda foto es de otra persona. ")
    reviews.reject_listing(
        session=db, storage=LocalStorage(tmp_path), actor=actor_of(staff), listing_uid=listing.uid, reason=reason
    )
    (row,) = my_listings.list_my_listings(session=db, owner_uid=owner.uid)
    assert row.status == "rechazada"
    assert row.rejection_reason == "Fotos que no corresponden: La segunda foto es de otra persona."
    assert _queue(db, staff).items == []


def test_a_rejection_reason_must_come_from_the_list_and_other_needs_words():
    assert reviews.rejection_text("Contenido no permitido", "") == "Contenido no permitido"
    assert reviews.rejection_text("Otro", "Falta la tarifa.") == "Falta la tarifa."
    with pytest.raises(InvalidInputError) as refused:
        reviews.rejection_text("Porque sí", "")
    assert refused.value.field == "reason"
    with pytest.raises(InvalidInputError) as refused:
        reviews.rejection_text("Otro", "   ")
    assert refused.value.field == "detail"


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_verification_decision_deletes_the_private_photo_and_is_audited(db, staff, tmp_path, decision):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, name="Verificable")
    private = PrivateLocalStorage(tmp_path / "private")
    verification.request_verification(
        session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps()
    )
    request = db.exec(select(ListingVerification)).one()
    key = request.storage_key
    assert private.get(key)
    if decision == "approve":
        verification.approve_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid
        )
    else:
        reason = reviews.rejection_text("La foto no se ve bien", "", review_queue.VERIFICATION_REJECTION_REASONS)
        verification.reject_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid, reason=reason
        )
    assert not list((tmp_path / "private").rglob("*.webp"))
    db.refresh(request)
    assert request.storage_key is None
    assert request.status == (VerificationStatus.APROBADA if decision == "approve" else VerificationStatus.RECHAZADA)
    entry = db.exec(select(AuditEntry).where(AuditEntry.entity == "verificacion_publicacion")).one()
    assert entry.actor_uid == staff.uid and entry.entity_uid == request.uid
    assert key not in entry.before_json + entry.after_json and "storage_key" not in entry.before_json
    assert _queue(db, staff).items == []


def _decide(db, staff, tmp_path, item, decision: ReviewDecision, reason: str = "") -> None:
    reviews.decide_review(
        session=db,
        storage=LocalStorage(tmp_path / "media"),
        private=PrivateLocalStorage(tmp_path / "private"),
        actor=actor_of(staff),
        item_uid=item.uid,
        decision=decision,
        reason=reason,
        expected_version=item.version,
    )


@pytest.mark.parametrize("decision", [ReviewDecision.APROBADA, ReviewDecision.RECHAZADA])
def test_one_entry_point_decides_a_listing_and_a_verification_by_their_queue_uid(db, staff, tmp_path, decision):
    owner = make_owner(db, "duena@example.cl")
    listing = _pending(db, owner, "Nueva", minutes_ago=10)
    verified = make_listing(db, owner, name="Verificable")
    verification.request_verification(
        session=db,
        storage=PrivateLocalStorage(tmp_path / "private"),
        owner_uid=owner.uid,
        listing_uid=verified.uid,
        data=jpeg_with_gps(),
    )
    page = _queue(db, staff)
    assert {item.kind for item in page.items} == {KIND_NEW, KIND_VERIFICATION}
    for item in page.items:  # the caller names neither the kind nor the listing
        _decide(db, staff, tmp_path, item, decision, reason="" if decision == ReviewDecision.APROBADA else "Fotos")

    approved = decision == ReviewDecision.APROBADA
    db.expire_all()
    assert db.get(Listing, listing.uid).status == ("publicada" if approved else "rechazada")
    review = db.exec(select(ListingReview).where(ListingReview.listing_uid == listing.uid)).one()
    assert (review.decision, review.reviewer_uid) == (decision, staff.uid)
    request = db.exec(select(ListingVerification)).one()
    assert request.status == (VerificationStatus.APROBADA if approved else VerificationStatus.RECHAZADA)
    assert (request.reviewer_uid, db.get(Listing, verified.uid).verified) == (staff.uid, approved)
    assert _queue(db, staff).items == []


def test_an_unknown_or_decided_queue_uid_is_refused_in_spanish_and_changes_nothing(db, staff, tmp_path):
    owner = make_owner(db, "duena@example.cl")
    listing = _pending(db, owner, "Nueva", minutes_ago=10)
    (item,) = _queue(db, staff).items
    gone = item.model_copy(update={"uid": "no-existe"})
    with pytest.raises(NotFoundError) as refused:
        _decide(db, staff, tmp_path, gone, ReviewDecision.APROBADA)
    assert refused.value.message == "No encontramos ese elemento en la cola de revisión."
    with pytest.raises(ForbiddenError):  # a caller who is not staff learns nothing about the uid
        _decide(db, owner, tmp_path, gone, ReviewDecision.APROBADA)
    db.rollback()
    assert db.get(Listing, listing.uid).status == "pendiente"

    _decide(db, staff, tmp_path, item, ReviewDecision.RECHAZADA, reason="Fotos")
    with pytest.raises(ConflictError):  # decided meanwhile by someone else
        _decide(db, staff, tmp_path, item, ReviewDecision.APROBADA)
    db.rollback()
    assert db.get(Listing, listing.uid).status == "rechazada"


def test_a_pending_review_left_on_a_listing_that_waits_for_nothing_is_not_in_the_queue(db, staff):
    owner = make_owner(db, "duena@example.cl")
    for status in ("expirada", "rechazada", "borrador"):
        listing = make_listing(db, owner, name=f"Huérfana {status}", status=status)
        listing.revision = json.dumps({"listing": {"age": 40}})
        listing.revision_at = utc_now() - timedelta(hours=2)
        db.add(listing)
        db.add(ListingReview(listing_uid=listing.uid, created_at=listing.revision_at))
    db.commit()
    _pending(db, owner, "Espera de verdad", minutes_ago=5)
    page = _queue(db, staff)
    assert [item.title for item in page.items] == ["Espera de verdad"]
    assert page.total == 1 and "hace 5 min" in page.oldest
    assert review_queue.queue_size(db)[0] == 1


def test_a_review_closed_by_the_clock_is_not_the_owners_rejection(db, staff):
    owner = make_owner(db, "duena@example.cl")
    expired = make_listing(db, owner, name="Vencida", status="expirada")
    db.add(ListingReview(listing_uid=expired.uid, decision="rechazada", reason="Venció", decided_at=utc_now()))
    db.commit()
    _pending(db, owner, "En cola", minutes_ago=5)
    assert "rechazo" not in _signals(_item(_queue(db, staff), "En cola"))


# ---------------------------------------------------------------- handler level (PostgreSQL)


@pytest.fixture
def tokens(app_database) -> dict[str, str]:
    """A live session of every profile."""
    from app.db import get_engine

    provider = LocalProvider(engine=get_engine())
    found = {}
    with Session(get_engine(), expire_on_commit=False) as session:
        for profile in ProfileId:
            user = make_account(session, provider, f"{profile.value}@example.cl", profile=profile)
            found[profile.value] = open_session(session, user.uid)
        owner = make_owner(session, "duena@example.cl")
        listing = make_listing(session, owner, name="En cola", status="pendiente")
        session.add(ListingReview(listing_uid=listing.uid))
        session.commit()
        found["listing"] = listing.uid
    return found


def _redirected_home(events) -> bool:
    handlers = [getattr(event, "handler", None) for event in events]
    return any(handler is not None and handler.fn.__qualname__ == "_redirect" for handler in handlers)


@pytest.mark.parametrize("caller", ["", ProfileId.CLIENTE.value, ProfileId.PROFESOR.value])
def test_non_staff_callers_are_refused_by_every_queue_handler(tokens, caller):
    from app.db import get_engine

    for name, kwargs in (
        ("open_secretary", {}),
        ("open_admin", {}),
        ("refresh", {}),
        ("approve", {"uid": "x"}),
        ("open_reject", {"uid": "x"}),
        ("reject", {"form_data": {"reason": "Otro", "detail": "x"}}),
    ):
        state, _ = client_states(ReviewQueueState, tokens.get(caller, ""))
        events = invoke(state, name, **kwargs)
        assert _redirected_home(events), (caller, name)
        assert state.items == [] and not state.loaded
    with Session(get_engine()) as session:
        assert session.get(Listing, tokens["listing"]).status == "pendiente"


@pytest.mark.parametrize("profile", [ProfileId.SECRETARIA, ProfileId.ADMINISTRADOR])
def test_staff_see_the_queue_and_approve_an_item_of_their_page(tokens, profile):
    from app.db import get_engine

    state, _ = client_states(ReviewQueueState, tokens[profile.value])
    opener = "open_secretary" if profile == ProfileId.SECRETARIA else "open_admin"
    invoke(state, opener)
    assert [item.title for item in state.items] == ["En cola"]
    invoke(state, "approve", uid=state.items[0].uid)
    assert state.items == [] and state.total == 0
    with Session(get_engine()) as session:
        assert session.get(Listing, tokens["listing"]).status == "publicada"


def _open_queue(tokens):
    state, _ = client_states(ReviewQueueState, tokens[ProfileId.SECRETARIA.value])
    invoke(state, "open_secretary")
    (item,) = state.items
    return state, item


def _owner_rewrites_the_description(listing_uid: str) -> None:
    from app.db import get_engine

    with Session(get_engine()) as session:
        listing = session.get(Listing, listing_uid)
        listing.description = "Cambiada mientras la revisaban"
        session.add(listing)
        session.commit()


def _notified(events) -> str:
    return repr(events)


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_a_decision_on_content_changed_since_the_page_was_read_is_refused_and_the_page_read_again(tokens, decision):
    from app.db import get_engine

    state, shown = _open_queue(tokens)
    _owner_rewrites_the_description(tokens["listing"])
    if decision == "approve":
        events = invoke(state, "approve", uid=shown.uid)
    else:
        invoke(state, "open_reject", uid=shown.uid)
        events = invoke(state, "reject", form_data={"reason": "Contenido no permitido", "detail": ""})
        assert state.reject_uid == ""  # the dialog closes over the refreshed page
    assert "cambió mientras la revisabas" in _notified(events)
    with Session(get_engine()) as session:
        assert session.get(Listing, tokens["listing"]).status == "pendiente"
    (again,) = state.items
    assert again.version != shown.version
    assert ("Descripción", "Cambiada mientras la revisaban") in {(row.label, row.published) for row in again.rows}
    invoke(state, "approve", uid=again.uid)
    with Session(get_engine()) as session:
        assert session.get(Listing, tokens["listing"]).status == "publicada"
