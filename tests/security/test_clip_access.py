"""The clips' HTTP routes, called as every kind of caller (issue 35 §1), in the manner of test_handler_access.

``POST {CLIP_UPLOAD_PREFIX}/{uid}`` takes a clip only from the listing's owner: an anonymous client, a made-up
session, another advertiser, a secretary, an administrator (with or without the second factor) and the owner
once banned are refused, with nothing stored and no row written. ``GET /media/{key}`` of a clip that staff have
not approved yet (its MP4 and its poster) answers only its owner and staff who passed the second factor; every
other caller gets the same 404 as a key that does not exist. Once approved, anyone may load it: the refusals are
about approval, not a broken route.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.identity.sessions import SESSION_COOKIE
from app.models import ClipStatus, ListingVideo, ProfileId, User
from app.routes import CLIP_UPLOAD_PREFIX
from app.services import listing_videos
from app.storage.factory import get_private_storage, get_storage
from tests.factories import make_listing, make_owner, make_staff, open_session
from tests.video_samples import h264_mp4

SITE = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
# Who may do what: the owner uploads; the owner and staff past the second factor see an unapproved clip.
UPLOADERS = {"dueña"}
VIEWERS = {"dueña", "secretaria", "administrador"}
CALLERS = (
    "anónimo",
    "sesión inventada",
    "otra anunciante",
    "secretaria",
    "administrador",
    "administrador sin segundo factor",
    "dueña",
)
MP4 = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(64)


@pytest.fixture(scope="module")
def clip_bytes(tmp_path_factory) -> bytes:
    return h264_mp4(tmp_path_factory.mktemp("access"), size="320x240", seconds=1).read_bytes()


@pytest.fixture
def world(http_engine) -> dict:
    """A published listing of the owner's with a ready clip staff have not approved, and a cookie per caller."""
    with Session(http_engine, expire_on_commit=False) as db:
        owner = make_owner(db, "duena@example.cl")
        listing = make_listing(db, owner, name="Dueña del Video")
        clip = ListingVideo(listing_uid=listing.uid, status=ClipStatus.LISTA, approved=False)
        clip.video_key = listing_videos.video_key(clip.uid)
        clip.poster_stem = f"{listing_videos.VIDEO_PREFIX}/{clip.uid[:2]}/{listing_videos.poster_name(clip.uid)}"
        clip.poster_widths = "400"
        db.add(clip)
        db.commit()
        [poster] = listing_videos.poster_keys(clip)
        get_storage().put(clip.video_key, MP4, listing_videos.VIDEO_CONTENT_TYPE)
        get_storage().put(poster, WEBP, "image/webp")
        users: dict[str, User] = {
            "otra anunciante": make_owner(db, "otra@example.cl"),
            "secretaria": make_staff(db, "secretaria@example.cl", ProfileId.SECRETARIA),
            "administrador": make_staff(db, "admin@example.cl", ProfileId.ADMINISTRADOR),
            "dueña": owner,
        }
        tokens: dict[str, str | None] = {name: open_session(db, user.uid) for name, user in users.items()}
        admin = make_staff(db, "admin2@example.cl", ProfileId.ADMINISTRADOR)
        tokens["administrador sin segundo factor"] = open_session(db, admin.uid, second_factor=False)
        tokens["anónimo"] = None
        tokens["sesión inventada"] = "token-inventado-0123456789"
        return {"listing": listing.uid, "clip": clip.uid, "keys": [clip.video_key, poster], "tokens": tokens}


def _cookie(token: str | None) -> dict[str, str]:
    return {"Cookie": f"{SESSION_COOKIE}={token}"} if token else {}


def _clip_rows(engine) -> int:
    with Session(engine) as db:
        return db.exec(select(func.count()).select_from(ListingVideo)).one()


def test_only_the_owner_uploads_a_clip(http_client, http_engine, world, clip_bytes):
    assert set(world["tokens"]) == set(CALLERS)
    for caller in CALLERS:
        if caller in UPLOADERS:
            continue
        rows, private = _clip_rows(http_engine), get_private_storage().list_keys()
        answer = http_client.post(
            f"{CLIP_UPLOAD_PREFIX}/{world['listing']}",
            content=clip_bytes,
            headers={**SITE, **_cookie(world["tokens"][caller])},
        )
        assert answer.status_code in (403, 404), f"{caller}: {answer.status_code} {answer.text}"
        assert answer.json()["error"], caller  # a Spanish message, not a stack trace
        assert _clip_rows(http_engine) == rows and get_private_storage().list_keys() == private, caller
    answer = http_client.post(
        f"{CLIP_UPLOAD_PREFIX}/{world['listing']}",
        content=clip_bytes,
        headers={**SITE, **_cookie(world["tokens"]["dueña"])},
    )
    assert answer.status_code == 201, answer.text
    with Session(http_engine) as http_db:
        added = http_db.get(ListingVideo, answer.json()["uid"])
        assert added is not None and added.listing_uid == world["listing"]


def test_an_unapproved_clip_is_seen_by_its_owner_and_staff_only(http_client, http_engine, world):
    missing = http_client.get(f"/media/{listing_videos.video_key('x' + world['clip'][1:])}")
    for key, data in zip(world["keys"], (MP4, WEBP), strict=True):
        for caller in CALLERS:
            answer = http_client.get(f"/media/{key}", headers=_cookie(world["tokens"][caller]))
            if caller in VIEWERS:
                assert answer.status_code == 200 and answer.content == data, f"{caller}: {key}"
                assert answer.headers["cache-control"] == "private, no-store", caller
            else:
                assert (answer.status_code, answer.content) == (missing.status_code, missing.content), caller
    with Session(http_engine) as http_db:  # approved with its listing: now it is anyone's
        clip = http_db.get(ListingVideo, world["clip"])
        clip.approved = True
        http_db.add(clip)
        http_db.commit()
    for key in world["keys"]:
        assert http_client.get(f"/media/{key}").status_code == 200


def test_a_banned_owner_neither_uploads_nor_sees_the_clip(http_client, http_engine, world, clip_bytes):
    with Session(http_engine) as http_db:
        owner = http_db.get(User, http_db.exec(select(User.uid).where(User.email == "duena@example.cl")).one())
        owner.ban = True
        http_db.add(owner)
        http_db.commit()
    token = world["tokens"]["dueña"]
    answer = http_client.post(
        f"{CLIP_UPLOAD_PREFIX}/{world['listing']}", content=clip_bytes, headers={**SITE, **_cookie(token)}
    )
    assert answer.status_code == 403 and _clip_rows(http_engine) == 1
    for key in world["keys"]:
        assert http_client.get(f"/media/{key}", headers=_cookie(token)).status_code == 404
