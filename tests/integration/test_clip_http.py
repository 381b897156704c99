"""Clips over real HTTP (Starlette's TestClient on the app's own API): the upload endpoint's refusals and its
answer, and range answers of a clip's MP4 through /media, from local disk and from S3 (SeaweedFS)."""

from __future__ import annotations

import uuid

import pytest

from app.identity.sessions import SESSION_COOKIE
from app.models import ClipStatus, Listing, ListingStatus, ListingVideo
from app.routes import CLIP_UPLOAD_PREFIX
from app.services import listing_videos
from app.settings import get_settings
from app.storage.factory import get_private_storage, get_storage
from app.web import video_api
from tests.factories import make_listing, make_owner, open_session
from tests.video_samples import h264_mp4

pytestmark = pytest.mark.integration

SITE = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}


@pytest.fixture(scope="module")
def clip_bytes(tmp_path_factory) -> bytes:
    return h264_mp4(tmp_path_factory.mktemp("http"), size="320x240", seconds=2).read_bytes()


def _upload(client, listing_uid: str, body: bytes, token: str | None, headers: dict | None = None):
    cookies = {"Cookie": f"{SESSION_COOKIE}={token}"} if token else {}
    return client.post(
        f"{CLIP_UPLOAD_PREFIX}/{listing_uid}", content=body, headers={**SITE, **cookies, **(headers or {})}
    )


def test_the_owner_uploads_a_clip_and_it_waits_for_processing(http_client, http_db, clip_bytes):
    owner = make_owner(http_db, "sube@example.cl")
    listing = make_listing(http_db, owner, status=ListingStatus.BORRADOR.value)
    response = _upload(http_client, listing.uid, clip_bytes, open_session(http_db, owner.uid))
    assert response.status_code == 201, response.text
    clip = http_db.get(ListingVideo, response.json()["uid"])
    assert clip.listing_uid == listing.uid and clip.status == ClipStatus.PROCESANDO
    assert get_private_storage().list_keys() == [listing_videos.original_key(clip.uid)]


def test_refusals(http_client, http_db, clip_bytes, monkeypatch):
    owner = make_owner(http_db, "duena@example.cl")
    other = make_owner(http_db, "otra@example.cl")
    listing = make_listing(http_db, owner, status=ListingStatus.BORRADOR.value)
    token = open_session(http_db, owner.uid)
    signed_out = _upload(http_client, listing.uid, clip_bytes, None)
    assert signed_out.status_code == 403 and signed_out.json()["error"] == video_api.SIGNED_OUT
    assert _upload(http_client, listing.uid, clip_bytes, "token-inventado").status_code == 403
    foreign = _upload(
        http_client, listing.uid, clip_bytes, token, {"Origin": "https://otro.example", "Sec-Fetch-Site": "cross-site"}
    )
    assert foreign.status_code == 403
    not_yours = _upload(http_client, listing.uid, clip_bytes, open_session(http_db, other.uid))
    assert not_yours.status_code == 404 and "No encontramos" in not_yours.json()["error"]
    declared = http_client.post(
        f"{CLIP_UPLOAD_PREFIX}/{listing.uid}",
        content=b"x",
        headers={**SITE, "Cookie": f"{SESSION_COOKIE}={token}", "Content-Length": str(400 * 1024 * 1024)},
    )
    assert declared.status_code == 413
    bad = _upload(http_client, listing.uid, b"esto no es un video" * 50, token)
    assert bad.status_code == 400 and bad.json()["error"]
    empty = _upload(http_client, listing.uid, b"", token)
    assert empty.status_code == 400 and empty.json()["error"]
    # Past the limit while streaming (no length declared up front): refused before the end is read.
    monkeypatch.setattr(video_api, "CLIP_MAX_BYTES", 1000)
    streamed = http_client.post(
        f"{CLIP_UPLOAD_PREFIX}/{listing.uid}",
        content=iter([clip_bytes[:800], clip_bytes[800:1600]]),
        headers={**SITE, "Cookie": f"{SESSION_COOKIE}={token}"},
    )
    assert streamed.status_code == 413 and streamed.json()["error"] == listing_videos.TOO_BIG
    assert get_private_storage().list_keys() == []
    assert http_db.get(Listing, listing.uid) is not None


def test_uploads_are_rate_limited_per_account(http_client, http_db, monkeypatch):
    owner = make_owner(http_db, "muchos@example.cl")
    listing = make_listing(http_db, owner, status=ListingStatus.BORRADOR.value)
    token = open_session(http_db, owner.uid)
    monkeypatch.setattr(video_api, "UPLOAD_RULE", video_api.Rule(f"videos-{uuid.uuid4().hex}", 2, 3600))
    answers = [_upload(http_client, listing.uid, b"no", token).status_code for _ in range(3)]
    assert answers == [400, 400, 429]


def _ready_clip(db, owner, clip_bytes, *, approved: bool) -> str:
    """A published listing with a ready clip whose MP4 is ``clip_bytes`` in the configured storage; its key."""
    listing = make_listing(db, owner)
    clip = ListingVideo(listing_uid=listing.uid, status=ClipStatus.LISTA, approved=approved)
    clip.video_key = listing_videos.video_key(clip.uid)
    get_storage().put(clip.video_key, clip_bytes, "video/mp4")
    db.add(clip)
    db.commit()
    return clip.video_key


def _check_ranges(client, key: str, data: bytes) -> None:
    size = len(data)
    whole = client.get(f"/media/{key}")
    assert whole.status_code == 200 and whole.content == data
    assert whole.headers["accept-ranges"] == "bytes" and whole.headers["content-type"] == "video/mp4"
    part = client.get(f"/media/{key}", headers={"Range": "bytes=100-1099"})
    assert part.status_code == 206 and part.content == data[100:1100]
    assert part.headers["content-range"] == f"bytes 100-1099/{size}" and part.headers["content-length"] == "1000"
    tail = client.get(f"/media/{key}", headers={"Range": "bytes=-500"})
    assert tail.status_code == 206 and tail.content == data[-500:]
    rest = client.get(f"/media/{key}", headers={"Range": f"bytes={size - 10}-"})
    assert rest.status_code == 206 and rest.content == data[-10:]
    for bad in (f"bytes={size}-", "bytes=abc", "bytes=50-10"):
        refused = client.get(f"/media/{key}", headers={"Range": bad})
        assert refused.status_code == 416, bad
        assert refused.headers["content-range"] == f"bytes */{size}"


def test_an_approved_clip_answers_range_requests_to_anyone(http_client, http_db, clip_bytes):
    key = _ready_clip(http_db, make_owner(http_db, "publica@example.cl"), clip_bytes, approved=True)
    _check_ranges(http_client, key, clip_bytes)
    assert http_client.get(f"/media/{key}").headers["cache-control"].startswith("public")


def test_an_unapproved_clip_is_only_for_its_owner_and_staff(http_client, http_db, clip_bytes, staff):
    owner = make_owner(http_db, "espera@example.cl")
    key = _ready_clip(http_db, owner, clip_bytes, approved=False)
    assert http_client.get(f"/media/{key}").status_code == 404
    other = http_client.get(
        f"/media/{key}",
        headers={"Cookie": f"{SESSION_COOKIE}={open_session(http_db, make_owner(http_db, 'y@example.cl').uid)}"},
    )
    assert other.status_code == 404
    for viewer in (owner, staff):
        cookie = {"Cookie": f"{SESSION_COOKIE}={open_session(http_db, viewer.uid)}"}
        answer = http_client.get(f"/media/{key}", headers={**cookie, "Range": "bytes=0-9"})
        assert answer.status_code == 206 and answer.content == clip_bytes[:10]
        assert answer.headers["cache-control"] == "private, no-store"


def test_range_requests_on_s3(http_client, http_db, clip_bytes, s3_storage, monkeypatch):
    """From S3 the same route answers ranges (read_range asks S3 for the range), and S3 itself answers them."""
    monkeypatch.setenv("S3_ENDPOINT_URL", s3_storage.client.meta.endpoint_url)
    monkeypatch.setenv("S3_BUCKET", s3_storage.bucket)
    monkeypatch.setenv("S3_ACCESS_KEY", "test-access")
    monkeypatch.setenv("S3_SECRET_KEY", "test-secret")
    get_settings.cache_clear()
    key = _ready_clip(http_db, make_owner(http_db, "nube@example.cl"), clip_bytes, approved=True)
    assert s3_storage.exists(key)
    _check_ranges(http_client, key, clip_bytes)
    native = s3_storage.client.get_object(Bucket=s3_storage.bucket, Key=key, Range="bytes=10-19")
    assert native["ContentRange"] == f"bytes 10-19/{len(clip_bytes)}" and native["Body"].read() == clip_bytes[10:20]
