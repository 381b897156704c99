"""Privacy rights in self-service (issue 20 §2) on PostgreSQL: the data export's content and link, the deletion
of an account (every table, every storage, the outbox), its refusals, signing up again (local and Firebase),
and the retention jobs (stale drafts, closed reports' contacts, expired exports)."""

from __future__ import annotations

import email as email_message
import hashlib
import io
import json
import os
import re
import tracemalloc
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from email.header import decode_header, make_header

import firebase_admin.auth
import pyotp
import pytest
from reflex import constants
from sqlalchemy import text
from sqlmodel import Session, SQLModel, select

from app.content.notices import NoticeKind
from app.core.errors import ConflictError, InvalidInputError
from app.db import get_engine
from app.identity.errors import AuthError
from app.identity.local import LocalProvider
from app.models import (
    AuditEntry,
    DataExport,
    ExportStatus,
    Favourite,
    FavouritesInAccount,
    Listing,
    ListingDailyStats,
    ListingPhoto,
    ListingReview,
    ListingStatus,
    ListingVerification,
    Notice,
    NoticeOptOut,
    ProfileId,
    Report,
    ReportStatus,
    ReviewDecision,
    User,
    utc_now,
)
from app.routes import DATA_EXPORT_PREFIX
from app.services import accounts, listing_photos, privacy, privacy_jobs, two_factor, verification
from app.services.staff import audit
from app.settings import get_settings
from app.states.account import AccountActionState
from app.storage.local import LocalStorage, PrivateLocalStorage
from app.storage.s3 import PrivateS3Storage, S3Storage
from tests.factories import (
    STAFF_TOTP_SECRET,
    actor_of,
    add_photo,
    enrol_staff,
    make_account,
    make_listing,
    open_session,
)
from tests.handlers import client_states, invoke
from tests.integration.conftest import s3_settings
from tests.photo_samples import jpeg_with_gps
from tests.waits import wait_until_sent

PASSWORD = "clave-de-prueba-91"
CLIENT = "cliente-privacidad"
LINK = re.compile(re.escape(DATA_EXPORT_PREFIX) + r"/([A-Za-z0-9_-]+)")


@pytest.fixture
def stores(tmp_path):
    """Public and private photo stores on disk, in this test's folder."""
    return LocalStorage(tmp_path / "media"), PrivateLocalStorage(tmp_path / "private")


def _files(store) -> list[str]:
    """Every stored key of a local or S3 store."""
    if isinstance(store, LocalStorage):
        return sorted(str(p.relative_to(store.root)) for p in store.root.rglob("*") if p.is_file())
    listed = store.client.list_objects_v2(Bucket=store.bucket)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def _subject(message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def _body(message) -> str:
    return message.get_payload(decode=True).decode()


def _advertiser_with_everything(db, provider, stores, email: str):
    """An advertiser with a listing, two own photos, a pending verification photo, a review, statistics,
    a session, favourites kept in the account, a notice turned off and a staff audit entry about the listing."""
    storage, private = stores
    owner = make_account(db, provider, email, profile=ProfileId.PROFESOR)
    listing = make_listing(db, owner, name=f"Ana-{email[:4]}", photos=0, phone="+56 9 5555 0001")
    for _ in range(2):
        add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=listing.uid, data=jpeg_with_gps((900, 1200)))
    verification.request_verification(
        session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps((900, 1200))
    )
    now = utc_now()
    db.add(ListingReview(listing_uid=listing.uid, decision=ReviewDecision.APROBADA, reason="Todo bien", decided_at=now))
    db.add(ListingDailyStats(listing_uid=listing.uid, day=now.date(), views=7, whatsapp_clicks=2))
    db.add(FavouritesInAccount(user_uid=owner.uid))
    db.add(NoticeOptOut(user_uid=owner.uid, kind=NoticeKind.LISTING_EXPIRING))
    db.commit()
    db.add(Favourite(user_uid=owner.uid, listing_uid=listing.uid))
    db.commit()
    open_session(db, owner.uid)
    return owner, db.get(Listing, listing.uid)


def _build_export(db, stores, owner, mailbox) -> str:
    """Ask for the owner's data, run the job once; the token of the link e-mailed to them."""
    privacy.request_export(session=db, actor=actor_of(owner))
    storage, private = stores
    assert privacy.build_next_export(session=db, storage=storage, private_storage=private) is True
    assert privacy.build_next_export(session=db, storage=storage, private_storage=private) is False
    wait_until_sent()
    (mail,) = mailbox.to(owner.email)
    assert "están listos" in _subject(mail)
    body = _body(mail)
    assert get_settings().site_url + DATA_EXPORT_PREFIX in body
    match = LINK.search(body)
    assert match
    return match.group(1)


def test_an_export_asked_for_is_built_by_a_worker_and_its_link_e_mailed(db, provider, mailbox, tmp_path, monkeypatch):
    """The request queues the build in its own transaction; a worker builds it (app.tasks), then the e-mail goes."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()
    owner = make_account(db, provider, f"pide-{uuid.uuid4().hex[:8]}@example.cl", profile=ProfileId.CLIENTE)
    privacy.request_export(session=db, actor=actor_of(owner))
    wait_until_sent()  # the worker runs the build job, then the e-mail job the build queued
    db.expire_all()
    export = db.exec(select(DataExport).where(DataExport.user_uid == owner.uid)).one()
    assert export.status == ExportStatus.READY
    (mail,) = mailbox.to(owner.email)
    assert "están listos" in _subject(mail)


def test_the_export_holds_the_account_s_own_data_and_nobody_else_s(db, provider, stores, mailbox):
    storage, private = stores
    owner, listing = _advertiser_with_everything(db, provider, stores, f"duena-{uuid.uuid4().hex[:8]}@example.cl")
    other, other_listing = _advertiser_with_everything(db, provider, stores, f"otra-{uuid.uuid4().hex[:8]}@example.cl")
    reviewer = make_account(db, provider, "revisora-export@example.cl", profile=ProfileId.SECRETARIA)
    db.add(ListingReview(listing_uid=listing.uid, reviewer_uid=reviewer.uid, decision=ReviewDecision.RECHAZADA))
    db.add(
        Report(
            kind="otro",
            listing_uid=listing.uid,
            message="Mensaje del denunciante",
            contact="testigo@example.cl",
            staff_notes="nota interna del equipo",
        )
    )
    db.commit()
    token = _build_export(db, stores, owner, mailbox)

    download = privacy.export_file(session=db, private_storage=private, token=token, user_uid=owner.uid)
    assert download is not None
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.chunks())))
    exported = json.loads(archive.read("datos.json"))
    assert exported["cuenta"]["email"] == owner.email
    (mine,) = exported["publicaciones"]
    assert mine["uid"] == listing.uid and mine["phone"] == "+56 9 5555 0001"
    assert {r["decision"] for r in mine["historial_de_revision"]} == {"aprobada", "rechazada"}
    assert mine["estadisticas_diarias"][0]["views"] == 7
    assert mine["verificaciones"][0]["status"] == "solicitada"
    assert len(exported["sesiones"]) == 1 and exported["sesiones"][0]["inicio"]
    assert exported["favoritas"]["guardadas_en_la_cuenta"] is True
    assert [f["listing_uid"] for f in exported["favoritas"]["publicaciones"]] == [listing.uid]
    assert exported["avisos_por_correo"]["desactivados"] == [NoticeKind.LISTING_EXPIRING.value]
    # The account's own photo files, byte for byte, and its private verification photo.
    photos = db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid)).all()
    for photo, described in zip(sorted(photos, key=lambda p: p.position), mine["fotos"], strict=True):
        largest = listing_photos.photo_variant_keys(photo)[-1]
        assert archive.read(described["archivo"]) == storage.get(largest)
    request = db.exec(select(ListingVerification).where(ListingVerification.listing_uid == listing.uid)).one()
    assert archive.read(mine["verificaciones"][0]["archivo"]) == private.get(request.storage_key)
    # Nothing of other people: the other advertiser, the reviewer, the reporter, staff notes, storage keys.
    everything = archive.read("datos.json").decode() + " ".join(archive.namelist())
    for foreign in (
        other.email,
        other.uid,
        other_listing.uid,
        reviewer.uid,
        "testigo@example.cl",
        "Mensaje del denunciante",
        "nota interna",
        request.storage_key,
    ):
        assert foreign not in everything
    assert len(archive.namelist()) == 1 + 2 + 1

    # The link is the owner's alone, and for 48 hours.
    assert privacy.export_file(session=db, private_storage=private, token=token, user_uid=other.uid) is None
    assert privacy.export_file(session=db, private_storage=private, token=token + "x", user_uid=owner.uid) is None
    later = utc_now() + timedelta(hours=48, minutes=1)
    assert privacy.export_file(session=db, private_storage=private, token=token, user_uid=owner.uid, now=later) is None
    assert privacy.export_notice(session=db, user_uid=owner.uid).startswith("Te enviamos por correo")
    # Expired exports are purged with their files.
    zips = [key for key in _files(private) if key.startswith("exportaciones/")]
    assert len(zips) == 1
    assert privacy.purge_expired_exports(session=db, private_storage=private, now=later) == 1
    assert [key for key in _files(private) if key.startswith("exportaciones/")] == []
    assert db.exec(select(DataExport)).all() == []


def test_one_export_at_a_time_and_a_few_a_day(db, provider):
    owner = make_account(db, provider, "pide@example.cl", profile=ProfileId.CLIENTE)
    assert privacy.request_export(session=db, actor=actor_of(owner)) == privacy.EXPORT_PENDING
    with pytest.raises(ConflictError, match="Ya estamos preparando"):
        privacy.request_export(session=db, actor=actor_of(owner))
    for export in db.exec(select(DataExport)).all():
        export.status = "lista"
        db.add(export)
    db.commit()
    privacy.request_export(session=db, actor=actor_of(owner))
    db.exec(text("UPDATE exportacion_datos SET status = 'lista'"))
    db.commit()
    privacy.request_export(session=db, actor=actor_of(owner))
    db.exec(text("UPDATE exportacion_datos SET status = 'lista'"))
    db.commit()
    with pytest.raises(ConflictError, match="varias veces hoy"):
        privacy.request_export(session=db, actor=actor_of(owner))


LARGE_PHOTO_BYTES = 4 * 1024 * 1024


def _listing_with_large_photos(db, provider, storage, email: str, count: int):
    """An advertiser whose listing has ``count`` stored photos of LARGE_PHOTO_BYTES random bytes each (rows as the
    photo pipeline leaves them; random bytes, so no compression makes the ZIP smaller than the photos)."""
    owner = make_account(db, provider, email, profile=ProfileId.PROFESOR)
    listing = make_listing(db, owner, photos=0)
    for position in range(count):
        stem = f"photos/{uuid.uuid4().hex[:2]}/{uuid.uuid4().hex}"
        storage.put(f"{stem}-1600.webp", os.urandom(LARGE_PHOTO_BYTES), "image/webp")
        db.add(
            ListingPhoto(
                listing_uid=listing.uid, position=position, path=f"{stem}-800.webp", stem=stem, widths="800,1600"
            )
        )
    db.commit()
    return owner


def test_a_large_export_is_built_and_downloaded_in_bounded_memory(db, provider, stores, mailbox):
    """16 photos of 4 MiB: a ZIP of over 64 MiB, and neither building it nor reading it back for the download
    holds more than an eighth of it in Python's memory at any moment (tracemalloc's peak)."""
    storage, private = stores
    owner = _listing_with_large_photos(db, provider, storage, "pesada@example.cl", count=16)
    tracemalloc.start()
    try:
        token = _build_export(db, stores, owner, mailbox)
        _, built_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        download = privacy.export_file(session=db, private_storage=private, token=token, user_uid=owner.uid)
        assert download is not None
        digest, chunks = hashlib.sha256(), 0
        for chunk in download.chunks():
            digest.update(chunk)
            chunks += 1
        _, read_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    stored = private.root / db.exec(select(DataExport)).one().storage_key
    assert download.size == stored.stat().st_size > 16 * LARGE_PHOTO_BYTES
    assert built_peak < download.size / 8, (built_peak, download.size)
    assert read_peak < download.size / 8, (read_peak, download.size)
    assert chunks > 1 and digest.hexdigest() == hashlib.sha256(stored.read_bytes()).hexdigest()
    with zipfile.ZipFile(stored) as archive:
        assert archive.testzip() is None
        photos = [info for info in archive.infolist() if info.filename.startswith("fotos/")]
        assert len(photos) == 16 and {info.file_size for info in photos} == {LARGE_PHOTO_BYTES}
        assert json.loads(archive.read("datos.json"))["cuenta"]["email"] == "pesada@example.cl"


def test_on_s3_the_export_goes_up_in_parts_and_comes_back_in_chunks(db, provider, s3_server, mailbox, monkeypatch):
    """On S3 the ZIP is stored with put_file, a multipart upload (never one request holding it whole), and the
    download reads it back a chunk at a time; the photos inside are the stored ones, byte for byte."""
    public = S3Storage.from_settings(s3_settings(s3_server, f"pub-{uuid.uuid4().hex[:12]}"))
    private = PrivateS3Storage.from_settings(s3_settings(s3_server, f"priv-{uuid.uuid4().hex[:12]}"))
    for store in (public, private):
        store.client.create_bucket(Bucket=store.bucket)
    # 3 photos of 4 MiB: a ZIP above boto3's multipart threshold (8 MiB).
    owner = _listing_with_large_photos(db, provider, public, "nube@example.cl", count=3)
    calls: list[str] = []
    private.client.meta.events.register("before-call.s3", lambda model, **_: calls.append(model.name))

    def whole(*args, **kwargs):
        raise AssertionError("the export went up whole, with put")

    monkeypatch.setattr(private, "put", whole)
    token = _build_export(db, (public, private), owner, mailbox)
    assert "CreateMultipartUpload" in calls and calls.count("UploadPart") >= 2 and "PutObject" not in calls

    download = privacy.export_file(session=db, private_storage=private, token=token, user_uid=owner.uid)
    assert download is not None
    chunks = list(download.chunks())
    assert len(chunks) > 1 and sum(len(chunk) for chunk in chunks) == download.size > 3 * LARGE_PHOTO_BYTES
    archive = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    assert archive.testzip() is None
    (mine,) = json.loads(archive.read("datos.json"))["publicaciones"]
    photos = db.exec(select(ListingPhoto).order_by(ListingPhoto.position)).all()
    for photo, described in zip(photos, mine["fotos"], strict=True):
        assert archive.read(described["archivo"]) == public.get(listing_photos.photo_variant_keys(photo)[-1])


def _traces(db: Session, needles: list[str]) -> list[str]:
    """Every table row (as text) that still names one of ``needles``."""
    found = []
    for table in SQLModel.metadata.sorted_tables:
        for row in db.execute(select(table)).all():
            line = " ".join(str(value) for value in row)
            found.extend(f"{table.name}: {line}" for needle in needles if needle in line)
    return found


@pytest.fixture(params=["local", "s3"])
def any_stores(request, tmp_path):
    """Public and private stores on disk, then on the S3 server (two buckets)."""
    if request.param == "local":
        return LocalStorage(tmp_path / "media"), PrivateLocalStorage(tmp_path / "private")
    endpoint = request.getfixturevalue("s3_server")
    public = PrivateS3Storage.from_settings(s3_settings(endpoint, f"pub-{uuid.uuid4().hex[:12]}"))
    private = PrivateS3Storage.from_settings(s3_settings(endpoint, f"priv-{uuid.uuid4().hex[:12]}"))
    for store in (public, private):
        store.client.create_bucket(Bucket=store.bucket)
    return public, private


def test_deleting_an_account_leaves_no_trace_in_any_table_or_storage(db, provider, any_stores, mailbox):
    storage, private = any_stores
    email = f"borrar-{uuid.uuid4().hex[:8]}@example.cl"
    owner, listing = _advertiser_with_everything(db, provider, any_stores, email)
    keeper, kept_listing = _advertiser_with_everything(db, provider, any_stores, f"queda-{uuid.uuid4().hex[:8]}@ex.cl")
    admin = make_account(db, provider, "jefa-borrar@example.cl", profile=ProfileId.ADMINISTRADOR)
    # Someone else keeps the listing saved; staff changed it; a report names it.
    db.add(Favourite(user_uid=keeper.uid, listing_uid=listing.uid))
    audit.record(
        db,
        actor_uid=admin.uid,
        action="editar",
        entity="publicacion",
        entity_uid=listing.uid,
        before={"owner_uid": owner.uid, "phone": listing.phone},
        after={"owner_uid": owner.uid, "phone": "+56 9 0000 0000"},
    )
    db.add(Report(kind="trata", listing_uid=listing.uid, message="Algo raro", contact="vecina@example.cl"))
    db.commit()
    _build_export(db, any_stores, owner, mailbox)
    owner_keys = {
        key
        for photo in db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid))
        for key in listing_photos.photo_variant_keys(photo)
    }
    kept_keys = {
        key
        for photo in db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == kept_listing.uid))
        for key in listing_photos.photo_variant_keys(photo)
    }
    private_before = _files(private)
    assert owner_keys <= set(_files(storage))
    audits_before = len(db.exec(select(AuditEntry)).all())
    before = len(mailbox.to(email))

    privacy.delete_account(
        session=db,
        provider=provider,
        storage=storage,
        private_storage=private,
        actor=actor_of(owner),
        password=PASSWORD,
        client_hash=CLIENT,
    )
    wait_until_sent()  # the farewell e-mail waits in correo_saliente until it was handed to the mail server
    db.expire_all()
    assert _traces(db, [owner.uid, email, listing.uid, owner.identity_uid]) == []
    # Every photo file of the account is gone, public and private; the other advertiser's stay.
    assert owner_keys.isdisjoint(_files(storage)) and kept_keys <= set(_files(storage))
    assert len(_files(private)) == len(private_before) - 2  # the verification photo and the export's ZIP
    # The audit log keeps its entry, under an anonymous id and without the contents.
    assert len(db.exec(select(AuditEntry)).all()) == audits_before
    entry = db.exec(select(AuditEntry).where(AuditEntry.action == "editar")).one()
    assert entry.entity_uid.startswith(privacy.ANONYMOUS_PREFIX) and entry.before_json == "" == entry.after_json
    assert entry.actor_uid == admin.uid
    # The report stays, unlinked.
    report = db.exec(select(Report).where(Report.message == "Algo raro")).one()
    assert report.listing_uid is None and report.contact == "vecina@example.cl"
    # The other advertiser and their listing are untouched; the outbox got one farewell.
    assert db.get(Listing, kept_listing.uid) is not None and db.get(User, keeper.uid) is not None
    wait_until_sent()
    (farewell,) = mailbox.to(email)[before:]
    assert "Eliminamos tu cuenta" in _subject(farewell)


def test_the_e_mail_may_sign_up_again_after_deletion(db, provider, stores, mailbox):
    storage, private = stores
    user = make_account(db, provider, "vuelve@example.cl", profile=ProfileId.CLIENTE)
    privacy.delete_account(
        session=db,
        provider=provider,
        storage=storage,
        private_storage=private,
        actor=actor_of(user),
        password=PASSWORD,
        client_hash=CLIENT,
    )
    data = {
        "email": "vuelve@example.cl",
        "password": PASSWORD,
        "password_confirm": PASSWORD,
        "profile": "profesor",
        "adult": True,
    }
    again = accounts.sign_up(session=db, provider=provider, data=data, client_hash=CLIENT)
    assert again is not None and again.uid != user.uid and again.profile_uid == "profesor"
    wait_until_sent()  # the worker delivers the queued e-mail
    assert mailbox.wait_for_link("vuelve@example.cl", "verifyEmail")


def test_a_firebase_account_is_deleted_there_too_and_may_sign_up_again(db, firebase_provider, stores):
    storage, private = stores
    user = make_account(db, firebase_provider, "fb-borrar@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    privacy.delete_account(
        session=db,
        provider=firebase_provider,
        storage=storage,
        private_storage=private,
        actor=actor_of(user),
        password=PASSWORD,
        client_hash=CLIENT,
    )
    with pytest.raises(firebase_admin.auth.UserNotFoundError):
        firebase_admin.auth.get_user(user.identity_uid, app=firebase_provider.app)
    data = {"email": "fb-borrar@correo.cl", "password": PASSWORD, "password_confirm": PASSWORD}
    again = accounts.sign_up(
        session=db, provider=firebase_provider, data={**data, "profile": "cliente", "adult": True}, client_hash=CLIENT
    )
    assert again is not None and again.uid != user.uid


def test_a_wrong_password_deletes_nothing(db, provider, stores):
    storage, private = stores
    user = make_account(db, provider, "segura@example.cl", profile=ProfileId.CLIENTE)
    with pytest.raises(InvalidInputError) as refused:
        privacy.delete_account(
            session=db,
            provider=provider,
            storage=storage,
            private_storage=private,
            actor=actor_of(user),
            password="no-es-la-clave",
            client_hash=CLIENT,
        )
    assert refused.value.fields == {"password": accounts.WRONG_PASSWORD}
    db.expire_all()
    assert db.get(User, user.uid) is not None


def _code(steps_from_now: int = 0) -> str:
    """A code of the enrolled staff members' authenticator (STAFF_TOTP_SECRET), ``steps_from_now`` 30-second steps away.

    The check accepts one step either side of now, and each step once: a test that needs several codes for one
    account takes them in increasing steps.
    """
    return pyotp.TOTP(STAFF_TOTP_SECRET).at(datetime.now(UTC) + timedelta(seconds=30 * steps_from_now))


def _delete(db, provider, stores, user, code=""):
    storage, private = stores
    privacy.delete_account(
        session=db,
        provider=provider,
        storage=storage,
        private_storage=private,
        actor=actor_of(user),
        password=PASSWORD,
        code=code,
        client_hash=CLIENT,
    )


def test_staff_need_the_second_factor(db, provider, stores):
    make_account(db, provider, "otra-jefa@example.cl", profile=ProfileId.ADMINISTRADOR)
    secretary = make_account(db, provider, "secre@example.cl", profile=ProfileId.SECRETARIA)
    enrol_staff(db, secretary.uid)
    db.commit()
    with pytest.raises(InvalidInputError) as missing:
        _delete(db, provider, stores, secretary)
    assert missing.value.fields == {"code": privacy.SECOND_FACTOR_MISSING}
    right = {_code(step) for step in (-1, 0, 1)}
    with pytest.raises(InvalidInputError) as wrong:
        _delete(
            db,
            provider,
            stores,
            secretary,
            code=next(c for c in ("000000", "111111", "222222", "333333") if c not in right),
        )
    assert wrong.value.fields == {"code": two_factor.WRONG_CODE}
    db.expire_all()
    assert db.get(User, secretary.uid) is not None
    _delete(db, provider, stores, secretary, code=_code())
    db.expire_all()
    assert db.get(User, secretary.uid) is None


def test_the_last_active_administrator_cannot_delete_themself(db, provider, stores):
    first = make_account(db, provider, "unica@example.cl", profile=ProfileId.ADMINISTRADOR)
    enrol_staff(db, first.uid)
    # Inactive and banned administrators do not count.
    make_account(db, provider, "inactiva@example.cl", profile=ProfileId.ADMINISTRADOR, activo=False)
    make_account(db, provider, "vetada@example.cl", profile=ProfileId.ADMINISTRADOR, ban=True)
    audit.record(db, actor_uid=first.uid, action="crear", entity="servicio_app", entity_uid="x1")
    db.commit()
    with pytest.raises(ConflictError, match="último administrador"):
        _delete(db, provider, stores, first, code=_code(-1))
    second = make_account(db, provider, "segunda@example.cl", profile=ProfileId.ADMINISTRADOR)
    enrol_staff(db, second.uid)
    db.commit()
    _delete(db, provider, stores, first, code=_code(0))
    db.expire_all()
    assert db.get(User, first.uid) is None
    # Their audit entry stays, by an anonymous actor.
    entry = db.exec(select(AuditEntry).where(AuditEntry.entity_uid == "x1")).one()
    assert entry.actor_uid.startswith(privacy.ANONYMOUS_PREFIX)
    with pytest.raises(ConflictError, match="último administrador"):
        _delete(db, provider, stores, second, code=_code())


def _draft(db, owner, days_idle: int, storage=None):
    draft = make_listing(db, owner, status=ListingStatus.BORRADOR.value, photos=0, name=f"Borrador {days_idle}")
    if storage is not None:
        add_photo(session=db, storage=storage, owner_uid=owner.uid, uid=draft.uid, data=jpeg_with_gps())
    row = db.get(Listing, draft.uid)
    row.updated_at = utc_now() - timedelta(days=days_idle)
    db.add(row)
    db.commit()
    return row


def test_stale_drafts_are_warned_once_then_deleted_with_their_photos(db, provider, stores, mailbox):
    storage, private = stores
    owner = make_account(db, provider, f"borradores-{uuid.uuid4().hex[:6]}@example.cl", profile=ProfileId.PROFESOR)
    stale = _draft(db, owner, 170, storage)
    fresh = _draft(db, owner, 100)
    published = make_listing(db, owner, photos=0)
    published.updated_at = utc_now() - timedelta(days=400)
    db.add(published)
    db.commit()
    now = utc_now()
    assert privacy.warn_stale_drafts(session=db, now=now) == 1
    assert privacy.warn_stale_drafts(session=db, now=now + timedelta(hours=1)) == 0  # nobody warned twice
    wait_until_sent()
    (warning,) = mailbox.to(owner.email)
    assert "Borrador 170" in _subject(warning) and "180 días" in _body(warning)
    # 180 days untouched, but warned only 10 days ago: kept.
    assert (
        privacy.purge_stale_drafts(session=db, storage=storage, private_storage=private, now=now + timedelta(days=10))
        == 0
    )
    keys = listing_photos.photo_variant_keys(db.exec(select(ListingPhoto)).one())
    assert set(keys) <= set(_files(storage))
    # 14 days after the warning: deleted, with its photo files; the others stay.
    assert privacy.warn_stale_drafts(session=db, now=now + timedelta(days=14)) == 0
    assert (
        privacy.purge_stale_drafts(session=db, storage=storage, private_storage=private, now=now + timedelta(days=14))
        == 1
    )
    db.expire_all()
    assert db.get(Listing, stale.uid) is None and db.get(Listing, fresh.uid) is not None
    assert db.get(Listing, published.uid) is not None
    assert set(keys).isdisjoint(_files(storage))
    assert len(mailbox.to(owner.email)) == 1


def test_a_draft_never_warned_or_touched_after_the_warning_is_kept(db, provider, stores, mailbox):
    storage, private = stores
    owner = make_account(db, provider, f"tocado-{uuid.uuid4().hex[:6]}@example.cl", profile=ProfileId.PROFESOR)
    unwarned = _draft(db, owner, 200)
    touched = _draft(db, owner, 170)
    now = utc_now()
    assert privacy.purge_stale_drafts(session=db, storage=storage, private_storage=private, now=now) == 0
    privacy.warn_stale_drafts(session=db, now=now)
    # The owner saves the touched draft a day later: a new untouched period starts.
    touched = db.get(Listing, touched.uid)
    touched.updated_at = now + timedelta(days=1)
    db.add(touched)
    db.commit()
    later = now + timedelta(days=15)
    assert privacy.purge_stale_drafts(session=db, storage=storage, private_storage=private, now=later) == 1
    db.expire_all()
    assert db.get(Listing, unwarned.uid) is None  # warned at `now`, deleted 15 days later
    assert db.get(Listing, touched.uid) is not None
    kinds = db.exec(select(Notice.kind).where(Notice.user_uid == owner.uid)).all()
    assert kinds == [NoticeKind.DRAFT_PURGE_WARNING, NoticeKind.DRAFT_PURGE_WARNING]


def test_closed_reports_lose_the_reporter_s_contact_after_twelve_months(db):
    now = utc_now()
    old_closed = Report(
        kind="otro",
        message="viejo",
        contact="a@example.cl",
        client_hash="h1",
        status=ReportStatus.CERRADO,
        updated_at=now - timedelta(days=366),
    )
    recent_closed = Report(
        kind="otro", message="reciente", contact="b@example.cl", status=ReportStatus.CERRADO, updated_at=now
    )
    old_open = Report(kind="otro", message="abierto", contact="c@example.cl", created_at=now - timedelta(days=500))
    db.add_all([old_closed, recent_closed, old_open])
    db.commit()
    assert privacy.scrub_closed_reports(session=db, now=now) == 1
    assert privacy.scrub_closed_reports(session=db, now=now) == 0
    db.expire_all()
    contacts = {r.message: (r.contact, r.client_hash) for r in db.exec(select(Report)).all()}
    assert contacts == {
        "viejo": ("", ""),
        "reciente": ("b@example.cl", ""),
        "abierto": ("c@example.cl", ""),
    }


def test_changing_the_e_mail_waits_for_the_link_sent_to_the_new_address(db, provider, mailbox):
    user = make_account(db, provider, "antes@example.cl", profile=ProfileId.CLIENTE)
    make_account(db, provider, "ocupado@example.cl", profile=ProfileId.CLIENTE)
    with pytest.raises(InvalidInputError) as wrong:
        accounts.request_email_change(
            session=db,
            provider=provider,
            actor=actor_of(user),
            new_email="despues@example.cl",
            password="otra-clave-cualquiera",
            client_hash=CLIENT,
        )
    assert wrong.value.fields == {"password": accounts.WRONG_PASSWORD}
    # An address that has an account is answered alike, and gets nothing.
    for address in ("ocupado@example.cl", "despues@example.cl"):
        notice = accounts.request_email_change(
            session=db,
            provider=provider,
            actor=actor_of(user),
            new_email=address,
            password=PASSWORD,
            client_hash=CLIENT,
        )
        assert notice == accounts.EMAIL_CHANGE_SENT
    wait_until_sent()
    assert mailbox.to("ocupado@example.cl") == []
    assert ["Pediste cambiar" in _subject(m) for m in mailbox.to("antes@example.cl")] == [True, True]
    wait_until_sent()  # the worker delivers the queued e-mail
    link = mailbox.wait_for_link("despues@example.cl", "verifyAndChangeEmail")
    code = link.split("oobCode=")[1]
    # Nothing changes until the link is opened.
    db.expire_all()
    assert db.get(User, user.uid).email == "antes@example.cl"
    assert accounts.confirm_email_change(session=db, provider=provider, code=code) == "despues@example.cl"
    db.expire_all()
    assert db.get(User, user.uid).email == "despues@example.cl"
    assert provider.sign_in(email="despues@example.cl", password=PASSWORD).uid == user.identity_uid
    with pytest.raises(AuthError):
        provider.sign_in(email="antes@example.cl", password=PASSWORD)
    with pytest.raises(AuthError) as reused:
        accounts.confirm_email_change(session=db, provider=provider, code=code)
    assert reused.value.code == "invalid-action-code"
    wait_until_sent()
    assert "cambió" in _subject(mailbox.to("antes@example.cl")[-1])


def test_changing_the_e_mail_with_firebase(db, firebase_provider, firebase_oob_codes):
    user = make_account(db, firebase_provider, "fb-antes@correo.cl", profile=ProfileId.CLIENTE, password=PASSWORD)
    accounts.request_email_change(
        session=db,
        provider=firebase_provider,
        actor=actor_of(user),
        new_email="fb-despues@correo.cl",
        password=PASSWORD,
        client_hash=CLIENT,
    )
    code = firebase_oob_codes("fb-despues@correo.cl", "VERIFY_AND_CHANGE_EMAIL") or firebase_oob_codes(
        "fb-antes@correo.cl", "VERIFY_AND_CHANGE_EMAIL"
    )
    assert code
    assert accounts.confirm_email_change(session=db, provider=firebase_provider, code=code) == "fb-despues@correo.cl"
    db.expire_all()
    assert db.get(User, user.uid).email == "fb-despues@correo.cl"
    assert firebase_admin.auth.get_user(user.identity_uid, app=firebase_provider.app).email == "fb-despues@correo.cl"


def test_the_hourly_run_does_every_retention_step(db, provider, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()
    owner = make_account(db, provider, "todo-retencion@example.cl", profile=ProfileId.PROFESOR)
    _draft(db, owner, 170)
    privacy.request_export(session=db, actor=actor_of(owner))
    assert privacy_jobs.build_exports() == 1
    db.add(
        Report(
            kind="otro",
            message="cerrada hace mucho",
            contact="x@example.cl",
            status=ReportStatus.CERRADO,
            updated_at=utc_now() - timedelta(days=400),
        )
    )
    db.commit()
    run = privacy_jobs.run_retention(utc_now() + timedelta(hours=49))
    assert run == privacy_jobs.RetentionRun(exports_purged=1, drafts_warned=1, drafts_deleted=0, reports_scrubbed=1)


def test_export_and_deletion_work_on_sqlite_too(db_on_both, tmp_path, monkeypatch):
    """The embedded default: the same export and deletion on SQLite (and PostgreSQL), mail to the outbox."""
    monkeypatch.setenv("OUTBOX_DIR", str(tmp_path / "outbox"))
    monkeypatch.setenv("SMTP_HOST", "")
    get_settings.cache_clear()
    db = db_on_both
    local = LocalProvider(engine=get_engine())
    stores = LocalStorage(tmp_path / "media"), PrivateLocalStorage(tmp_path / "private")
    email = "ambas@example.cl"
    owner, listing = _advertiser_with_everything(db, local, stores, email)
    privacy.request_export(session=db, actor=actor_of(owner))
    assert privacy.build_next_export(session=db, storage=stores[0], private_storage=stores[1])
    export = db.exec(select(DataExport)).one()
    assert export.storage_key in _files(stores[1])
    owner_uid, listing_uid = owner.uid, listing.uid
    _delete(db, local, stores, owner)
    wait_until_sent()  # the farewell e-mail waits in correo_saliente until it was written out
    db.expire_all()
    assert _traces(db, [owner_uid, email, listing_uid]) == []
    assert _files(stores[0]) == [] and _files(stores[1]) == []
    subjects = sorted(
        _subject(email_message.message_from_bytes(path.read_bytes())) for path in (tmp_path / "outbox").iterdir()
    )
    assert [s.split(" ")[0] for s in subjects] == ["Eliminamos", "Tus"]


def _opened_link(link: str) -> AccountActionState:
    """AccountActionState of a browser that opened ``link`` (its page's load handler run)."""
    state, _ = client_states(AccountActionState)
    query = dict(pair.split("=", 1) for pair in link.split("?", 1)[1].split("&"))
    root = state._get_root_state()
    path = "/login/accion?" + link.split("?", 1)[1]
    root.router_data = root._update_router_vars(
        {constants.RouteVar.PATH: "/login/accion", constants.RouteVar.ORIGIN: path, constants.RouteVar.QUERY: query}, {}
    )
    invoke(state, "load")
    return state


def test_the_e_mailed_change_link_changes_the_address_on_the_action_page(db, provider, mailbox):
    user = make_account(db, provider, "pagina-antes@example.cl", profile=ProfileId.CLIENTE)
    accounts.request_email_change(
        session=db,
        provider=provider,
        actor=actor_of(user),
        new_email="pagina-despues@example.cl",
        password=PASSWORD,
        client_hash=CLIENT,
    )
    wait_until_sent()  # the worker delivers the queued e-mail
    link = mailbox.wait_for_link("pagina-despues@example.cl", "verifyAndChangeEmail")
    state = _opened_link(link)
    assert (state.status, state.message) == (
        "verified",
        "¡Listo! Cambiamos tu correo. Desde ahora ingresas con el nuevo.",
    )
    db.expire_all()
    assert db.get(User, user.uid).email == "pagina-despues@example.cl"
    again = _opened_link(link)
    assert again.status == "failed" and again.message
