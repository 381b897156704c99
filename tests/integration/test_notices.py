"""E-mail notices to advertisers (issue 19 §3) against the loopback SMTP server, on PostgreSQL: each notice's
text and link, once per event (also with two clock runs at the same moment), the opt-out, the daily cap,
and nothing sent when the change rolls back."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import timedelta
from email.header import decode_header, make_header
from email.message import Message

import pytest
from sqlmodel import Session, select

from app.content.notices import NoticeKind
from app.core.errors import ConflictError, InvalidInputError
from app.db import get_engine
from app.models import (
    Listing,
    ListingReview,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    Notice,
    ProfileId,
    ReviewDecision,
    utc_now,
)
from app.routes import ADVERTISER_HOME, ADVERTISER_NOTICES
from app.services import listing_jobs, my_listings, notices, upgrades
from app.services.staff import listings as staff_listings
from app.services.staff import review_queue, reviews
from app.settings import get_settings
from tests.factories import actor_of, make_listing, make_owner, make_staff, tier_upgrade
from tests.waits import wait_until_sent


@pytest.fixture
def owner(db):
    """An advertiser with an address of their own (the SMTP server is shared by the module's tests)."""
    return make_owner(db, f"anunciante-{uuid.uuid4().hex[:12]}@example.cl")


@pytest.fixture
def admin(db):
    return make_staff(db, "jefa@example.cl", ProfileId.ADMINISTRADOR)


def _mails(mailbox, owner) -> list[Message]:
    wait_until_sent()
    return mailbox.to(owner.email)


def _subject(message: Message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def _only_mail(mailbox, owner) -> tuple[str, str]:
    """The one message the owner got: its subject and body."""
    mails = _mails(mailbox, owner)
    assert len(mails) == 1, [_subject(m) for m in mails]
    return _subject(mails[0]), mails[0].get_payload(decode=True).decode()


def _forget(mailbox, owner) -> None:
    """Forget the owner's messages so far (the next check looks only at what comes after)."""
    wait_until_sent()
    with mailbox._lock:
        mailbox.messages = [m for m in mailbox.messages if m["To"] != owner.email]


def _home_link() -> str:
    return get_settings().site_url + ADVERTISER_HOME


def _statuses(db: Session) -> list[tuple[str, str]]:
    db.expire_all()
    rows = db.exec(select(Notice).order_by(Notice.created_at, Notice.key)).all()
    return [(n.kind.value, n.status.value) for n in rows]


def test_a_listing_approved_and_rejected_tells_the_owner_with_the_reason(db, mailbox, owner, staff, storage):
    listing = make_listing(db, owner, name="Catalina", status="pendiente")
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=listing.uid)
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Tu publicación «Catalina» fue aprobada"
    assert "ya está publicada" in body and _home_link() in body
    assert owner.email not in body  # nothing about the advertiser beyond what the notice needs

    _forget(mailbox, owner)
    other = make_listing(db, owner, name="Rocío", status="pendiente")
    reviews.reject_listing(
        session=db, storage=storage, actor=actor_of(staff), listing_uid=other.uid, reason="Fotos borrosas"
    )
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Tu publicación «Rocío» no fue aprobada"
    assert "Motivo: Fotos borrosas" in body and _home_link() in body


def _edited(db: Session, owner, name: str) -> Listing:
    revision = json.dumps({"listing": {"description": "Texto nuevo de la edición."}})
    return make_listing(db, owner, name=name, revision=revision, revision_at=utc_now())


def test_an_edit_approved_and_rejected_tells_the_owner(db, mailbox, owner, staff, storage):
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=_edited(db, owner, "Inés").uid)
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Aprobamos los cambios de «Inés»"
    assert _home_link() in body

    _forget(mailbox, owner)
    reviews.reject_listing(
        session=db,
        storage=storage,
        actor=actor_of(staff),
        listing_uid=_edited(db, owner, "Luz").uid,
        reason="Teléfono inválido",
    )
    subject, body = _only_mail(mailbox, owner)
    assert subject == "No aprobamos los cambios de «Luz»"
    assert "Motivo: Teléfono inválido" in body and "se sigue viendo la versión anterior" in body


def test_a_listing_taken_down_tells_the_owner_the_reason(db, mailbox, owner, staff):
    listing = make_listing(db, owner, name="Maite", expires_at=utc_now() + timedelta(days=20))
    staff_listings.unpublish_listing(session=db, actor=actor_of(staff), uid=listing.uid, reason="Datos falsos")
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Despublicamos tu publicación «Maite»"
    assert "Motivo: Datos falsos" in body and _home_link() in body


def _verification_request(db: Session, listing: Listing) -> ListingVerification:
    request = ListingVerification(listing_uid=listing.uid, owner_uid=listing.owner_uid)
    db.add(request)
    db.commit()
    return request


def test_a_verification_decided_tells_the_owner(db, mailbox, owner, staff, storage):
    listing = make_listing(db, owner, name="Sofía")
    reviews.decide_review(
        session=db,
        storage=storage,
        private=storage,
        actor=actor_of(staff),
        decision=ReviewDecision.APROBADA,
        item_uid=_verification_request(db, listing).uid,
        expected_version=None,
    )
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Tu publicación «Sofía» está verificada"
    assert _home_link() in body

    _forget(mailbox, owner)
    reviews.decide_review(
        session=db,
        storage=storage,
        private=storage,
        actor=actor_of(staff),
        decision=ReviewDecision.RECHAZADA,
        item_uid=_verification_request(db, listing).uid,
        reason="No se ve el papel",
        expected_version=None,
    )
    subject, body = _only_mail(mailbox, owner)
    assert subject == "No pudimos verificar «Sofía»"
    assert "Motivo: No se ve el papel" in body


def _upgrade(db: Session, listing: Listing) -> ListingUpgrade:
    service = tier_upgrade(db, "diamante", name="Subir a Diamante", price_clp=15000)
    db.add(service)
    db.commit()
    upgrade = ListingUpgrade(
        listing_uid=listing.uid, app_service_uid=service.uid, requested_by_uid=listing.owner_uid, amount_clp=15000
    )
    db.add(upgrade)
    db.commit()
    return upgrade


def _subjects(mailbox, owner) -> list[str]:
    return [_subject(message) for message in _mails(mailbox, owner)]


def test_an_upgrade_approved_starting_and_ending_tells_the_owner(db, mailbox, owner, admin):
    listing = make_listing(db, owner, name="Abril", tier="platino", expires_at=utc_now() + timedelta(days=50))
    upgrade = _upgrade(db, listing)
    now = utc_now()
    starts, ends = now + timedelta(hours=1), now + timedelta(days=2)
    upgrades.approve_upgrade(
        session=db,
        actor=actor_of(admin),
        upgrade_uid=upgrade.uid,
        starts_at=starts,
        ends_at=ends,
        payment_reference="Transferencia 123",
        now=now,
    )
    subject, body = _only_mail(mailbox, owner)
    assert subject == "Aprobamos la mejora «Subir a Diamante» de «Abril»"
    assert "del " in body and _home_link() in body

    upgrades.apply_upgrades(session=db, now=starts + timedelta(minutes=1))
    upgrades.apply_upgrades(session=db, now=starts + timedelta(minutes=2))  # still in force: told once
    assert _subjects(mailbox, owner)[1:] == ["Comenzó la mejora «Subir a Diamante» de «Abril»"]
    upgrades.apply_upgrades(session=db, now=ends)
    assert _subjects(mailbox, owner)[2:] == ["Terminó la mejora «Subir a Diamante» de «Abril»"]
    body = _mails(mailbox, owner)[2].get_payload(decode=True).decode()
    assert get_settings().site_url + ADVERTISER_NOTICES in body  # optional: says where to turn it off


def test_an_upgrade_denied_tells_the_owner_the_reason(db, mailbox, owner, admin):
    upgrade = _upgrade(db, make_listing(db, owner, name="Alma", tier="platino"))
    upgrades.deny_upgrade(session=db, actor=actor_of(admin), upgrade_uid=upgrade.uid, reason="No llegó el pago")
    subject, body = _only_mail(mailbox, owner)
    assert subject == "No aprobamos la mejora «Subir a Diamante» de «Alma»"
    assert "Motivo: No llegó el pago" in body


def test_expiring_in_three_days_then_expired_tells_the_owner_once_each(db, mailbox, owner):
    now = utc_now()
    listing = make_listing(db, owner, name="Julieta", expires_at=now + timedelta(days=2, hours=23))
    make_listing(db, owner, name="Lejana", expires_at=now + timedelta(days=3, hours=1))
    assert listing_jobs.warn_expiring(session=db, now=now) == 1
    assert listing_jobs.warn_expiring(session=db, now=now + timedelta(minutes=1)) == 0
    subject, body = _only_mail(mailbox, owner)
    assert subject.startswith("Tu publicación «Julieta» vence el ")
    assert "Renuévala desde Mis publicaciones" in body and _home_link() in body

    assert listing_jobs.expire_listings(session=db, now=now + timedelta(days=3)) == 1
    assert _subjects(mailbox, owner)[1:] == ["Tu publicación «Julieta» venció"]
    assert "«Renovar»" in _mails(mailbox, owner)[1].get_payload(decode=True).decode()
    assert db.get(Listing, listing.uid) is not None


def _paused_with_pending_edit(db: Session, owner, name: str, expires_at) -> Listing:
    listing = make_listing(db, owner, name=name, status="pausada", expires_at=expires_at)
    listing.revision = json.dumps({"listing": {"description": "Cambio que nadie revisó."}})
    listing.revision_at = expires_at - timedelta(days=1)
    db.add(listing)
    db.add(ListingReview(listing_uid=listing.uid, created_at=listing.revision_at))
    db.commit()
    return listing


def test_the_owner_resuming_a_listing_whose_time_ran_out_expires_it_as_the_clock_does(db, mailbox, owner, staff):
    now = utc_now()
    by_owner = _paused_with_pending_edit(db, owner, "Olga", now - timedelta(minutes=5))
    with pytest.raises(ConflictError):
        my_listings.resume_listing(session=db, owner_uid=owner.uid, uid=by_owner.uid, now=now)
    subject, by_owner_body = _only_mail(mailbox, owner)
    assert subject == "Tu publicación «Olga» venció"

    by_clock = _paused_with_pending_edit(db, owner, "Rita", now - timedelta(minutes=5))
    assert listing_jobs.expire_listings(session=db, now=now) == 1  # Olga's expiry is done: only Rita's is left
    assert _subjects(mailbox, owner)[1:] == ["Tu publicación «Rita» venció"]
    by_clock_body = _mails(mailbox, owner)[1].get_payload(decode=True).decode()
    assert by_owner_body.replace("Olga", "Rita") == by_clock_body  # one notice, whichever way it expired

    db.expire_all()
    for listing in (by_owner, by_clock):
        stored = db.get(Listing, listing.uid)
        assert stored.status == ListingStatus.EXPIRADA and stored.revision is None and stored.revision_at is None
        review = db.exec(select(ListingReview).where(ListingReview.listing_uid == listing.uid)).one()
        assert (review.decision, review.reason, review.reviewer_uid) == (
            ReviewDecision.RECHAZADA,
            listing_jobs.EXPIRED_BEFORE_REVIEW,
            None,
        )
    assert review_queue.list_queue(session=db, actor=actor_of(staff)).total == 0


def test_the_same_notice_twice_is_sent_once(db, mailbox, owner):
    listing = make_listing(db, owner, name="Paz")
    for _ in range(2):
        notices.notify_owner(session=db, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key="periodo-1")
        db.commit()
    assert len(_mails(mailbox, owner)) == 1
    assert _statuses(db) == [("publicacion_vencida", "enviado")]


def test_two_clock_runs_at_the_same_moment_send_each_notice_once(db, mailbox, owner):
    now = utc_now()
    for name in ("Uno", "Dos", "Tres"):
        make_listing(db, owner, name=name, expires_at=now + timedelta(days=1))
    barrier = threading.Barrier(2)
    told: list[int] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            with Session(get_engine(), expire_on_commit=False) as session:
                barrier.wait(timeout=30)
                told.append(listing_jobs.warn_expiring(session=session, now=now))
        except BaseException as exc:  # reported below
            failures.append(exc)

    workers = [threading.Thread(target=run) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert failures == []
    assert sum(told) == 3
    assert sorted(_subjects(mailbox, owner)) == sorted(
        f"Tu publicación «{n}» vence el {_day(now)}" for n in ("Uno", "Dos", "Tres")
    )


def _day(now) -> str:
    return listing_jobs.format_date(
        (now + timedelta(days=1)).astimezone(listing_jobs.ZoneInfo(get_settings().timezone)), listing_jobs.DATE_FORMAT
    )


def test_an_advertiser_turns_off_reminders_but_still_gets_decisions(db, mailbox, owner, staff):
    choices = notices.set_notice_choices(session=db, user_uid=owner.uid, enabled=[])
    assert {choice.kind for choice in choices if not choice.enabled} == {
        "mejora_sin_pago",
        "mejora_iniciada",
        "mejora_terminada",
        "publicacion_por_vencer",
        "publicacion_vencida",
    }
    now = utc_now()
    make_listing(db, owner, name="Callada", expires_at=now + timedelta(days=1))
    listing_jobs.warn_expiring(session=db, now=now)
    pending = make_listing(db, owner, name="Decidida", status="pendiente")
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=pending.uid)
    assert _subjects(mailbox, owner) == ["Tu publicación «Decidida» fue aprobada"]
    assert _statuses(db) == [("publicacion_por_vencer", "desactivado"), ("publicacion_aprobada", "enviado")]

    notices.set_notice_choices(session=db, user_uid=owner.uid, enabled=["publicacion_por_vencer"])
    assert [c.kind for c in notices.notice_choices(session=db, user_uid=owner.uid) if c.enabled] == [
        "publicacion_por_vencer"
    ]


def test_a_choice_outside_the_list_changes_nothing(db, owner):
    notices.set_notice_choices(session=db, user_uid=owner.uid, enabled=[])
    with pytest.raises(InvalidInputError):
        notices.set_notice_choices(session=db, user_uid=owner.uid, enabled=["<script>"])
    assert all(not choice.enabled for choice in notices.notice_choices(session=db, user_uid=owner.uid))


def test_mail_to_one_recipient_is_capped_per_day(db, mailbox, owner, monkeypatch):
    monkeypatch.setenv("NOTICES_PER_DAY", "2")
    get_settings.cache_clear()
    listing = make_listing(db, owner, name="Topada")
    now = utc_now()
    for key in ("a", "b", "c"):
        notices.notify_owner(session=db, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key=key, now=now)
        db.commit()
    assert len(_mails(mailbox, owner)) == 2
    assert [status for _, status in _statuses(db)] == ["enviado", "enviado", "sobre_limite"]
    # A day later the count starts again.
    notices.notify_owner(
        session=db, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key="d", now=now + timedelta(days=1, seconds=1)
    )
    db.commit()
    assert len(_mails(mailbox, owner)) == 3


def test_a_change_that_rolls_back_sends_nothing(db, mailbox, owner):
    listing = make_listing(db, owner, name="Deshecha")
    notices.notify_owner(session=db, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key="x")
    db.rollback()
    assert _mails(mailbox, owner) == []
    assert _statuses(db) == []
    notices.notify_owner(session=db, listing=listing, kind=NoticeKind.LISTING_EXPIRED, key="x")
    db.commit()
    assert len(_mails(mailbox, owner)) == 1
