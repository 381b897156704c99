"""Verification requests on both databases and both storage backends (local folder, S3 on SeaweedFS):
the photo is stored only in the private storage and without metadata, only staff can see it (also through
the HTTP route), and it is deleted once the request is decided."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from sqlmodel import Session, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from app.core.dates import format_date
from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError, PhotoRejectedError
from app.identity.sessions import SESSION_COOKIE
from app.models import Listing, ListingVerification, ProfileId, User, VerificationStatus, utc_now
from app.services import listings, my_listings, verification
from app.settings import Settings, get_settings
from app.storage import NoPublicUrlError
from app.storage.factory import get_private_storage
from app.storage.local import PrivateLocalStorage
from app.storage.s3 import PrivateS3Storage
from app.web import private_api
from tests.factories import actor_of, make_listing, make_owner, make_staff, open_session
from tests.integration.conftest import stored_keys
from tests.photo_samples import TEXT_AS_JPG, assert_no_metadata, heic_with_gps, jpeg_with_gps


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture(params=["local", "s3"])
def private(request, db, tmp_path, monkeypatch):
    """The app configured with each backend (public and private side); yields its private storage."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    if request.param == "s3":
        bucket = f"test-{uuid.uuid4().hex[:12]}"
        monkeypatch.setenv("S3_ENDPOINT_URL", request.getfixturevalue("s3_server"))
        monkeypatch.setenv("S3_BUCKET", bucket)
        monkeypatch.setenv("S3_ACCESS_KEY", "test-access")
        monkeypatch.setenv("S3_SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    storage = get_private_storage()
    if request.param == "s3":
        storage.client.create_bucket(Bucket=get_settings().s3_bucket)
        storage.client.create_bucket(Bucket=storage.bucket)
    yield storage
    get_settings.cache_clear()


def _public_files() -> list[str]:
    """Everything in the public storage: the media folder, or the public bucket."""
    settings = get_settings()
    if settings.s3_bucket:
        listing = get_private_storage().client.list_objects_v2(Bucket=settings.s3_bucket)
        return [item["Key"] for item in listing.get("Contents", [])]
    return [path.as_posix() for path in Path(settings.media_dir).rglob("*") if path.is_file()]


@pytest.fixture
def owner(db) -> User:
    return make_owner(db, "duena@example.cl")


@pytest.fixture
def staff(db) -> User:
    return make_staff(db, "staff@example.cl", ProfileId.ADMINISTRADOR)


def _send(db, storage, owner, listing, data=None):
    verification.request_verification(
        session=db, storage=storage, owner_uid=owner.uid, listing_uid=listing.uid, data=data or jpeg_with_gps()
    )
    return db.exec(select(ListingVerification).where(ListingVerification.listing_uid == listing.uid)).one()


@pytest.mark.parametrize("make", [jpeg_with_gps, heic_with_gps], ids=["jpeg", "heic"])
def test_the_photo_is_stored_only_in_private_storage_without_metadata(db, private, owner, make):
    listing = make_listing(db, owner)
    request = _send(db, private, owner, listing, make())
    key = request.storage_key
    assert key.startswith("verificacion/") and "jpg" not in key and "heic" not in key
    assert stored_keys(private) == [key]
    assert_no_metadata(private.get(key))
    assert _public_files() == []
    if isinstance(private, PrivateLocalStorage):
        assert (Path(get_settings().private_media_dir) / key).is_file()
    else:
        assert private.client.head_object(Bucket=private.bucket, Key=key)["CacheControl"] == "private, no-store"
    with pytest.raises(NoPublicUrlError):
        private.public_url(key)
    shown = verification.my_verification(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert shown.status == VerificationStatus.SOLICITADA and "storage_key" not in shown.model_dump()


def test_a_refused_photo_stores_nothing(db, private, owner):
    listing = make_listing(db, owner)
    with pytest.raises(PhotoRejectedError, match="no es una foto válida"):
        _send(db, private, owner, listing, TEXT_AS_JPG)
    assert stored_keys(private) == [] and db.exec(select(ListingVerification)).all() == []


def test_one_open_request_per_listing_and_never_for_a_draft(db, private, owner, staff):
    draft = make_listing(db, owner, status="borrador")
    with pytest.raises(ConflictError, match="antes de pedir la verificación"):
        _send(db, private, owner, draft)
    listing = make_listing(db, owner, status="pausada")
    first = _send(db, private, owner, listing)
    with pytest.raises(ConflictError, match="la estamos revisando"):
        verification.request_verification(
            session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps()
        )
    assert stored_keys(private) == [first.storage_key]
    verification.reject_verification(
        session=db, storage=private, actor=actor_of(staff), verification_uid=first.uid, reason="No se lee la fecha"
    )
    verification.request_verification(
        session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps()
    )
    latest = verification.my_verification(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert latest.status == VerificationStatus.SOLICITADA and latest.uid != first.uid


def test_another_owner_gets_not_found_for_every_id(db, private, owner):
    listing = make_listing(db, owner)
    _send(db, private, owner, listing)
    other = make_owner(db, "otra@example.cl")
    for uid in (listing.uid, "no-existe", "", None, 7):
        with pytest.raises(NotFoundError):
            verification.request_verification(
                session=db, storage=private, owner_uid=other.uid, listing_uid=uid, data=jpeg_with_gps()
            )
        with pytest.raises(NotFoundError):
            verification.my_verification(session=db, owner_uid=other.uid, listing_uid=uid)
    assert len(stored_keys(private)) == 1


def test_approval_verifies_the_listing_and_deletes_the_photo(db, private, owner, staff):
    listing = make_listing(db, owner)
    request = _send(db, private, owner, listing)
    now = utc_now()
    verification.approve_verification(
        session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid, now=now
    )
    assert stored_keys(private) == []
    stored = db.get(Listing, listing.uid)
    db.refresh(stored)
    assert stored.verified and stored.verified_at == now
    detail = listings.public_listing(session=db, uid=listing.uid)
    assert detail.verified and detail.verified_on == format_date(now, "D [de] MMMM [de] YYYY")
    [row] = my_listings.list_my_listings(session=db, owner_uid=owner.uid)
    assert row.verified_label == f"Verificada el {detail.verified_on}"
    decided = db.get(ListingVerification, request.uid)
    db.refresh(decided)
    assert (decided.status, decided.storage_key, decided.reviewer_uid) == (VerificationStatus.APROBADA, None, staff.uid)
    shown = verification.my_verification(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert shown.status == VerificationStatus.APROBADA and shown.decided_at == now
    with pytest.raises(ConflictError, match="ya fue revisada"):
        verification.reject_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid, reason="Tarde"
        )


def test_rejection_keeps_the_reason_and_deletes_the_photo(db, private, owner, staff):
    listing = make_listing(db, owner)
    request = _send(db, private, owner, listing)
    with pytest.raises(InvalidInputError) as error:
        verification.reject_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid, reason=" "
        )
    assert error.value.field == "reason" and stored_keys(private) == [request.storage_key]
    verification.reject_verification(
        session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid, reason="No se lee la fecha"
    )
    assert stored_keys(private) == []
    shown = verification.my_verification(session=db, owner_uid=owner.uid, listing_uid=listing.uid)
    assert (shown.status, shown.reason) == (VerificationStatus.RECHAZADA, "No se lee la fecha")
    db.refresh(listing)
    assert not listing.verified


def test_only_staff_decide_and_see_the_photo(db, private, owner, staff):
    listing = make_listing(db, owner)
    request = _send(db, private, owner, listing)
    client = make_staff(db, "cliente@example.cl", ProfileId.CLIENTE)
    for outsider in (owner, client):
        with pytest.raises(ForbiddenError):
            verification.approve_verification(
                session=db, storage=private, actor=actor_of(outsider), verification_uid=request.uid
            )
        with pytest.raises(ForbiddenError):
            verification.reject_verification(
                session=db, storage=private, actor=actor_of(outsider), verification_uid=request.uid, reason="No"
            )
        with pytest.raises(ForbiddenError):
            verification.verification_photo(
                session=db, storage=private, viewer_profile=outsider.profile_uid, verification_uid=request.uid
            )
    photo = verification.verification_photo(
        session=db, storage=private, viewer_profile=ProfileId.SECRETARIA.value, verification_uid=request.uid
    )
    assert photo == private.get(request.storage_key)
    with pytest.raises(NotFoundError):
        verification.verification_photo(
            session=db, storage=private, viewer_profile=ProfileId.SECRETARIA.value, verification_uid="no-existe"
        )
    assert not db.get(Listing, listing.uid).verified and len(stored_keys(private)) == 1


def test_the_route_serves_the_photo_to_staff_only(db, private, owner, staff):
    listing = make_listing(db, owner)
    request = _send(db, private, owner, listing)
    secretary = make_staff(db, "secretaria@example.cl", ProfileId.SECRETARIA)
    other = make_owner(db, "otra@example.cl")
    url = f"/privado/verificacion/{request.uid}"
    with TestClient(Starlette(routes=private_api.ROUTES), base_url="http://testserver") as http:

        def get(user: User | None, path: str = url):
            cookies = {SESSION_COOKIE: open_session(db, user.uid)} if user else {}
            return http.get(path, cookies=cookies)

        for reader in (staff, secretary):
            response = get(reader)
            assert response.status_code == 200
            assert response.content == private.get(request.storage_key)
            assert response.headers["content-type"] == "image/webp"
            assert response.headers["cache-control"] == "private, no-store"
        for outsider in (owner, other, None):
            response = get(outsider)
            assert response.status_code == 404 and response.headers["cache-control"] == "private, no-store"
        assert http.get(url, cookies={SESSION_COOKIE: "inventada"}).status_code == 404
        assert get(staff, "/privado/verificacion/no-existe").status_code == 404
        verification.approve_verification(
            session=db, storage=private, actor=actor_of(staff), verification_uid=request.uid
        )
        assert get(staff).status_code == 404  # deleted once decided


def test_private_storage_is_kept_apart_from_the_public_one(tmp_path):
    local = get_private_storage(Settings(_env_file=None, media_dir=tmp_path / "m", private_media_dir=tmp_path / "p"))
    assert isinstance(local, PrivateLocalStorage) and local.root == (tmp_path / "p").resolve()
    with pytest.raises(ValueError, match="PRIVATE_MEDIA_DIR"):
        Settings(_env_file=None, media_dir=tmp_path / "m", private_media_dir=tmp_path / "m" / "privado")
    with pytest.raises(ValueError, match="PRIVATE_MEDIA_DIR"):
        Settings(_env_file=None, media_dir=tmp_path / "m", private_media_dir=tmp_path)
    s3 = Settings(_env_file=None, s3_endpoint_url="http://127.0.0.1:1", s3_bucket="fotos")
    assert s3.s3_private_bucket == "fotos-private"
    private = get_private_storage(s3)
    assert isinstance(private, PrivateS3Storage) and private.bucket == "fotos-private"
    with pytest.raises(ValueError, match="S3_PRIVATE_BUCKET"):
        Settings(_env_file=None, s3_bucket="fotos", s3_private_bucket="fotos")
