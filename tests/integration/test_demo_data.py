"""The demo data (app/seed.py) keeps the rules real data keeps: every listing in review has its item
in the review queue, and the queue counts exactly those; an advertiser with a public listing has a
reviewed identity; every listing names a commune of its city's area, which the directory offers. About one
listing in ten has a real clip, stored as processing stores an upload, so every city's Video tab shows some."""

from __future__ import annotations

from sqlmodel import Session, func, select

from app.core.geo import CITIES, city_communes
from app.models import Advertiser, ClipStatus, Listing, ListingStatus, ListingVideo, ProfileId
from app.models.filter_tabs import TABS_BY_SLUG
from app.seed import DEMO_CLIP_SECONDS, DEMO_CLIP_SIZE, DEMO_CLIPS, seed
from app.services import listing_videos, listings
from app.services.staff import review_queue
from app.storage.local import LocalStorage
from tests.factories import actor_of, make_staff
from tests.invariants import assert_every_listing_in_review_is_queued
from tests.video_samples import ffprobe

LISTINGS = 600  # enough for the seed's 2 % pendiente to give several


def test_seeded_demo_data_puts_every_listing_in_review_in_the_queue(db: Session, tmp_path):
    seed(session=db, listings=LISTINGS, storage=LocalStorage(tmp_path / "media"))
    assert_every_listing_in_review_is_queued(db)

    in_review = db.exec(
        select(func.count()).select_from(Listing).where(Listing.status == ListingStatus.PENDIENTE)
    ).one()
    assert in_review > 1
    total, _ = review_queue.queue_size(db)
    assert total == in_review  # the overview's "Por revisar" counts every listing in review
    staff = make_staff(db, "revisora@example.cl", ProfileId.SECRETARIA)
    page = review_queue.list_queue(session=db, actor=actor_of(staff))
    assert len(page.items) == min(total, review_queue.PAGE_SIZE)
    assert all(item.identity and item.identity[0].published.startswith("RUT ") for item in page.items)

    public_owners = select(Listing.owner_uid).where(Listing.status == ListingStatus.PUBLICADA)
    unreviewed = db.exec(
        select(func.count())
        .select_from(Advertiser)
        .where(Advertiser.user_uid.in_(public_owners), Advertiser.identity_reviewed_at.is_(None))
    ).one()
    assert unreviewed == 0

    placed = db.exec(select(Listing.city_slug, Listing.commune).distinct()).all()
    outside = [(city, commune) for city, commune in placed if commune not in {c.name for c in city_communes(city)}]
    assert placed and outside == []


def test_seeded_clips_are_real_approved_and_fill_every_city_video_tab(db: Session, tmp_path):
    storage = LocalStorage(tmp_path / "media")
    seed(session=db, listings=300, storage=storage)

    clips = db.exec(select(ListingVideo)).all()
    total = db.exec(select(func.count()).select_from(Listing)).one()
    assert 0.08 * total <= len(clips) <= 0.12 * total
    statuses = dict(db.exec(select(Listing.uid, Listing.status)).all())
    for clip in clips:
        assert clip.status == ClipStatus.LISTA and clip.original_key is None
        assert clip.approved == (statuses[clip.listing_uid] != ListingStatus.PENDIENTE)
    assert len({clip.video_key for clip in clips}) == len(DEMO_CLIPS)  # made once, shared like the demo photos

    for city in CITIES:  # each city's listings are of one section; its Video tab lists its public clips
        section = db.exec(select(Listing.section).where(Listing.city_slug == city.slug)).first()
        page = listings.city_cards(session=db, section=section, city_slug=city.slug, tab=TABS_BY_SLUG["video"])
        assert page.total >= 1, city.slug
        public = {clip.listing_uid for clip in clips if clip.approved}
        assert {card.uid for card in page.cards} <= public

    width, height = DEMO_CLIP_SIZE
    for clip in {clip.video_key: clip for clip in clips}.values():
        assert listing_videos.public_media(session=db, key=clip.video_key) == any(
            other.approved and statuses[other.listing_uid] == ListingStatus.PUBLICADA
            for other in clips
            if other.video_key == clip.video_key
        )
        for key in listing_videos.poster_keys(clip):
            assert storage.exists(key) and storage.get(key)[8:12] == b"WEBP"
        local = tmp_path / "probe.mp4"
        storage.get_file(clip.video_key, local)
        probed = ffprobe(local)  # Debian's ffprobe, which did not make it, plays it
        streams = {stream["codec_type"]: stream for stream in probed["streams"]}
        assert streams["video"]["codec_name"] == "h264" and streams["audio"]["codec_name"] == "aac"
        assert (streams["video"]["width"], streams["video"]["height"]) == (width, height)
        assert abs(float(probed["format"]["duration"]) - DEMO_CLIP_SECONDS) < 0.1
        assert (clip.width, clip.height) == (width, height)
