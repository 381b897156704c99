"""GET /media/{key} through Starlette's TestClient on the app's own API: approved photos of public
listings go to anyone with a year-long cache; other photos only to their owner and to staff, never
cached; everything else (someone else's, unknown or malformed keys) is the same 404."""

from __future__ import annotations

import pytest
from sqlmodel import Session
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.identity.sessions import SESSION_COOKIE
from app.models import Listing, ListingPhoto, ListingStatus, ProfileId, User
from app.services.users import create_user
from app.storage.factory import get_storage
from app.web.api import build_api
from app.web.middleware import SecurityMiddleware
from tests.factories import add_photo, make_listing, make_owner, open_session
from tests.handlers import run_async
from tests.photo_samples import jpeg_with_gps

pytestmark = pytest.mark.integration

LONG_CACHE = "public, max-age=31536000, immutable"
PRIVATE = "private, no-store"
NOT_PUBLIC = [ListingStatus.BORRADOR, ListingStatus.PENDIENTE, ListingStatus.PAUSADA, ListingStatus.RECHAZADA]


def _user(db: Session, email: str, profile: ProfileId) -> User:
    public = create_user(session=db, data={"email": email, "display_name": "Equipo", "profile_uid": profile.value})
    return db.get(User, public.uid)


def _listing_with_photo(
    db: Session, owner: User, status: str, *, approved: bool = True
) -> tuple[Listing, ListingPhoto]:
    """A listing in ``status`` with one pipeline photo (900 px wide: stored at 400, 800 and 900)."""
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value, photos=0)
    added = add_photo(
        session=db, storage=get_storage(), owner_uid=owner.uid, uid=listing.uid, data=jpeg_with_gps((900, 600))
    )
    photo = db.get(ListingPhoto, added.uid)
    photo.approved = approved
    listing = db.get(Listing, listing.uid)
    listing.status = status
    db.add_all([photo, listing])
    db.commit()
    return listing, photo


def _get(client: TestClient, key: str, token: str | None = None):
    headers = {"Cookie": f"{SESSION_COOKIE}={token}"} if token else {}
    return client.get(f"/media/{key}", headers=headers)


def _assert_not_found(response) -> None:
    assert response.status_code == 404
    if response.request.url.path.startswith("/media/"):  # "/media/../x" never leaves the client as such
        assert response.text == "No encontramos esa foto."
    assert "public" not in response.headers.get("cache-control", "")


def test_an_approved_photo_of_a_public_listing_is_served_to_anyone_with_a_long_cache(http_client, http_db):
    owner = make_owner(http_db, "duena@example.cl")
    _listing, photo = _listing_with_photo(http_db, owner, ListingStatus.PUBLICADA.value)
    keys = [photo.path, *(f"{photo.stem}-{width}.webp" for width in photo.widths.split(","))]
    assert photo.path == f"{photo.stem}-800.webp"
    for key in keys:
        response = _get(http_client, key)
        assert response.status_code == 200
        assert response.headers["cache-control"] == LONG_CACHE
        assert response.headers["content-type"] == "image/webp"
        assert response.content == get_storage().get(key)
    # A width the photo was not stored at is not a key of it.
    _assert_not_found(_get(http_client, f"{photo.stem}-1600.webp"))


def test_a_demo_photo_of_a_public_listing_is_served_as_jpeg(http_client, http_db):
    owner = make_owner(http_db, "demo@example.cl")
    make_listing(http_db, owner, photos=1)
    key = "photos/demo/placeholder-00.jpg"
    get_storage().put(key, b"\xff\xd8demo", "image/jpeg")
    response = _get(http_client, key)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["cache-control"] == LONG_CACHE and response.content == b"\xff\xd8demo"


@pytest.mark.parametrize("status", NOT_PUBLIC, ids=[status.value for status in NOT_PUBLIC])
def test_a_photo_of_a_listing_that_is_not_public_is_only_for_its_owner_and_staff(http_client, http_db, status):
    owner = make_owner(http_db, "duena@example.cl")
    other = make_owner(http_db, "otra@example.cl")
    admin = _user(http_db, "admin@example.cl", ProfileId.ADMINISTRADOR)
    secretary = _user(http_db, "secretaria@example.cl", ProfileId.SECRETARIA)
    _listing, photo = _listing_with_photo(http_db, owner, status.value)

    _assert_not_found(_get(http_client, photo.path))
    _assert_not_found(_get(http_client, photo.path, open_session(http_db, other.uid)))
    _assert_not_found(_get(http_client, photo.path, "token-inventado"))
    for viewer in (owner, admin, secretary):
        response = _get(http_client, photo.path, open_session(http_db, viewer.uid))
        assert response.status_code == 200
        assert response.headers["cache-control"] == PRIVATE
        assert response.content == get_storage().get(photo.path)


def test_an_unapproved_photo_of_a_published_listing_waits_out_of_public_view(http_client, http_db):
    owner = make_owner(http_db, "duena@example.cl")
    _listing, photo = _listing_with_photo(http_db, owner, ListingStatus.PUBLICADA.value, approved=False)
    _assert_not_found(_get(http_client, photo.path))
    response = _get(http_client, photo.path, open_session(http_db, owner.uid))
    assert response.status_code == 200 and response.headers["cache-control"] == PRIVATE


@pytest.mark.parametrize("change", [{"ban": True}, {"activo": False}], ids=["banned", "inactive"])
def test_photos_of_a_hidden_owner_are_not_public(http_client, http_db, change):
    owner = make_owner(http_db, "duena@example.cl")
    _listing, photo = _listing_with_photo(http_db, owner, ListingStatus.PUBLICADA.value)
    row = http_db.get(User, owner.uid)
    for name, value in change.items():
        setattr(row, name, value)
    http_db.add(row)
    http_db.commit()
    _assert_not_found(_get(http_client, photo.path))


@pytest.mark.parametrize(
    "key",
    [
        "photos/ab/no-existe-800.webp",
        "photos/demo/placeholder-07.jpg",
        "huerfana/ab/foto-800.webp",
        "../etc/passwd",
        "%2e%2e/%2e%2e/etc/passwd",
        "photos/..%2f..%2fetc/passwd",
        "photos//ab/x-800.webp",
        "photos/ab/.tmp-123",
        "etc/passwd",
        "",
    ],
)
def test_unknown_and_malformed_keys_are_not_found(http_client, http_db, key):
    # A file on disk that no photo row points at is not served either.
    get_storage().put("huerfana/ab/foto-800.webp", b"RIFF", "image/webp")
    owner = make_owner(http_db, "duena@example.cl")
    make_listing(http_db, owner, photos=0)
    _assert_not_found(_get(http_client, key, open_session(http_db, owner.uid)))


def test_a_raw_dot_dot_path_is_not_found(http_engine, tmp_path):
    """A http_client that sends "/media/../…" unnormalized (TestClient would clean it up) still gets the 404."""
    (tmp_path / "secreto.txt").write_text("no")
    messages: list[dict] = []

    async def call() -> None:
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/media/../secreto.txt",
            "raw_path": b"/media/../secreto.txt",
            "query_string": b"",
            "headers": [(b"host", b"localhost")],
        }

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            messages.append(message)

        await build_api(reflex_app)(scope, receive, send)

    run_async(call())
    assert messages[0]["status"] == 404
    assert messages[1]["body"] == b"No encontramos esa foto."


def test_the_security_middleware_keeps_the_photo_cache_headers(http_db, http_engine, tmp_path):
    owner = make_owner(http_db, "duena@example.cl")
    _listing, public = _listing_with_photo(http_db, owner, ListingStatus.PUBLICADA.value)
    _draft, private = _listing_with_photo(http_db, owner, ListingStatus.BORRADOR.value)
    app = SecurityMiddleware(build_api(reflex_app), static_dir=tmp_path)
    with TestClient(app, base_url="http://localhost") as secured:
        response = _get(secured, public.path)
        assert response.headers["cache-control"] == LONG_CACHE
        assert response.headers["x-content-type-options"] == "nosniff"
        response = _get(secured, private.path, open_session(http_db, owner.uid))
        assert response.status_code == 200 and response.headers["cache-control"] == PRIVATE
