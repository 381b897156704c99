"""What visitors and reviewers get of a listing's clips: the detail page (through build_public_view, as the app and
the served document read it) shows exactly the approved, ready clips of a public listing, named and sized; the
Video tab lists exactly the listings with one; the review queue shows every clip beside the photos, playable once
ready, else its state."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from app.db import get_engine
from app.models import ClipStatus, Listing, ListingReview, ListingVideo, PublicClip, utc_now
from app.services import listing_videos, listings, page_cache
from app.services.public_view import NotFound, PublicPageView, build_public_view
from app.services.staff import review_queue
from app.settings import get_settings
from tests.factories import actor_of, make_listing, make_owner, ready_clip
from tests.handlers import run_async

pytestmark = pytest.mark.integration

CITY = "temuco"


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _add(session: Session, listing: Listing, *clips: ListingVideo) -> list[ListingVideo]:
    for position, clip in enumerate(clips):
        clip.position = position
        session.add(clip)
    session.commit()
    return list(clips)


def _media(key: str | None) -> str:
    return f"/media/{key}"


def test_the_detail_shows_only_approved_ready_clips_in_order_named_and_sized(db: Session):
    owner = make_owner(db, "ana@example.cl")
    listing = make_listing(db, owner, name="Ana", city=CITY)
    first, _unapproved, _processing, _failed, second = _add(
        db,
        listing,
        ready_clip(listing.uid),
        ready_clip(listing.uid, approved=False),
        ready_clip(listing.uid, status=ClipStatus.PROCESANDO),
        ready_clip(listing.uid, approved=True, status=ClipStatus.FALLIDA),
        ready_clip(listing.uid),
    )
    second.width, second.height = 720, 1280
    db.add(second)
    db.commit()
    detail = listings.public_listing(session=db, uid=listing.uid)
    assert detail is not None
    assert list(detail.clips) == [
        PublicClip(
            video_url=_media(first.video_key),
            poster_url=_media(f"{first.poster_stem}-800.webp"),
            width=1280,
            height=720,
            label="Video de Ana (1 de 2)",
        ),
        PublicClip(
            video_url=_media(second.video_key),
            poster_url=_media(f"{second.poster_stem}-800.webp"),
            width=720,
            height=1280,
            label="Video de Ana (2 de 2)",
        ),
    ]
    other = make_listing(db, owner, name="Berta", city=CITY)
    assert listings.public_listing(session=db, uid=other.uid).clips == ()


def test_the_poster_is_the_widest_width_up_to_800_or_the_narrowest():
    assert listings.poster_url("videos/ab/x-poster", [400, 800, 1600]) == "/media/videos/ab/x-poster-800.webp"
    assert listings.poster_url("videos/ab/x-poster", [400]) == "/media/videos/ab/x-poster-400.webp"
    assert listings.poster_url("videos/ab/x-poster", [1600, 1200]) == "/media/videos/ab/x-poster-1200.webp"
    assert listings.poster_url("videos/ab/x-poster", []) == ""


@pytest.fixture
def site(app_database, monkeypatch) -> Session:
    """The app's database (PostgreSQL) without Redis and an empty page cache: build_public_view reads it."""
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()
    monkeypatch.setattr(page_cache, "pages", page_cache.PageCache())
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


def _detail_view(listing: Listing) -> PublicPageView | NotFound:
    view = run_async(build_public_view(path=f"/escorts/{listing.city_slug}/{listing.name_slug}/{listing.uid}"))
    assert isinstance(view, PublicPageView | NotFound)
    return view


def test_the_detail_view_follows_approval_and_hides_a_banned_owners_listing(site: Session):
    owner = make_owner(site, "carla@example.cl")
    listing = make_listing(site, owner, name="Carla", city=CITY)
    (clip,) = _add(site, listing, ready_clip(listing.uid, approved=False))
    view = _detail_view(listing)
    assert isinstance(view, PublicPageView) and view.detail is not None and view.detail.clips == ()
    clip.approved = True
    site.add(clip)
    site.commit()  # a write to the clips drops the cached detail at once
    view = _detail_view(listing)
    assert isinstance(view, PublicPageView) and view.detail is not None
    assert [c.video_url for c in view.detail.clips] == [_media(clip.video_key)]
    owner.ban = True
    site.add(owner)
    site.commit()
    assert isinstance(_detail_view(listing), NotFound)
    assert not listing_videos.public_media(session=site, key=clip.video_key or "")


def test_the_video_tab_lists_exactly_the_listings_with_an_approved_ready_clip(site: Session):
    owner = make_owner(site, "duena@example.cl")
    shown = make_listing(site, owner, name="Daniela", city=CITY)
    unapproved = make_listing(site, owner, name="Elena", city=CITY)
    processing = make_listing(site, owner, name="Fernanda", city=CITY)
    make_listing(site, owner, name="Gabriela", city=CITY)
    _add(site, shown, ready_clip(shown.uid))
    _add(site, unapproved, ready_clip(unapproved.uid, approved=False))
    _add(site, processing, ready_clip(processing.uid, approved=True, status=ClipStatus.PROCESANDO))
    view = run_async(build_public_view(path=f"/escorts/{CITY}/video"))
    assert isinstance(view, PublicPageView) and view.listings is not None
    assert [card.display_name for card in view.listings.cards] == ["Daniela"]
    assert view.listings.cards[0].has_video
    city = run_async(build_public_view(path=f"/escorts/{CITY}"))
    assert isinstance(city, PublicPageView) and city.listings is not None
    badges = {card.display_name: card.has_video for card in city.listings.cards}
    assert badges == {"Daniela": True, "Elena": False, "Fernanda": False, "Gabriela": False}


def test_the_review_queue_shows_each_clip_playable_once_ready_else_its_state(db: Session, staff):
    owner = make_owner(db, "helena@example.cl")
    listing = make_listing(db, owner, name="Helena", status="pendiente")
    db.add(ListingReview(listing_uid=listing.uid, created_at=utc_now() - timedelta(minutes=5)))
    db.commit()
    failed = ready_clip(listing.uid, approved=False, status=ClipStatus.FALLIDA)
    failed.failure = "El video dura más de 60 segundos."
    ready, _processing, _failed = _add(
        db,
        listing,
        ready_clip(listing.uid, approved=False),
        ready_clip(listing.uid, approved=False, status=ClipStatus.PROCESANDO),
        failed,
    )
    page = review_queue.list_queue(session=db, actor=actor_of(staff))
    (item,) = page.items
    assert [(c.label, c.status, c.note) for c in item.clips] == [
        ("Video enviado 1", "lista", ""),
        ("Video enviado 2", "procesando", "Procesando video…"),
        ("Video enviado 3", "fallida", "El video dura más de 60 segundos."),
    ]
    shown = item.clips[0]
    assert shown.video_url == _media(ready.video_key)
    assert shown.poster_url == _media(f"{ready.poster_stem}-800.webp")
    assert (shown.width, shown.height) == (1280, 720)
    assert [c.video_url for c in item.clips[1:]] == ["", ""]
    # Staff may fetch the unapproved clip's file (the /media route asks private_media); visitors may not.
    assert listing_videos.private_media(session=db, key=ready.video_key or "", actor=actor_of(staff))
    assert not listing_videos.public_media(session=db, key=ready.video_key or "")
