"""Demo data: ``python -m app.seed --listings 300``.

Fills the database with believable Spanish demo listings across all 25
cities, both sections, every tier and every filter tab, with placeholder
photos drawn locally (abstract illustrations, shared by many listings).
Rows go in with bulk INSERTs in batches, fast enough for benchmark-sized
databases (tens of thousands of listings). ``--if-empty`` does nothing when
listings already exist, so the run command can call it every time.

The demo data keeps the rules real data keeps: every listing in review has its
item in the review queue, and an advertiser with a listing that went public has
a reviewed identity.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import av
import av.error
import av.filter
from av.audio.frame import AudioFrame
from sqlalchemy import func, insert
from sqlmodel import Session, SQLModel, select

from app.core.geo import CITIES, city_communes
from app.core.rut import format_rut, rut_check_digit
from app.core.text import slugify
from app.db import commit, get_engine
from app.models import (
    WIZARD_DONE,
    Advertiser,
    AdvertiserService,
    AdvertiserType,
    Agency,
    AgencyCategory,
    AppService,
    ClipStatus,
    Listing,
    ListingPhoto,
    ListingReview,
    ListingService,
    ListingStatus,
    ListingVideo,
    ProfileId,
    ReviewDecision,
    Section,
    Tier,
    User,
    new_uid,
    utc_now,
)
from app.models.listings import services_text
from app.services.listing_videos import ServedClip, store_served
from app.services.listings import clock
from app.services.photos import placeholder_photo
from app.services.users import ensure_fixed_profiles
from app.storage import Storage
from app.storage.factory import get_storage

BATCH = 5000
PHOTO_POOL = 24
LISTINGS_PER_OWNER = 3
# The demo clips: FFmpeg's test picture and a tone (Hz) each; 3 s of 480x270 at 25 fps.
DEMO_CLIPS = (("testsrc2", 440), ("smptehdbars", 660), ("testsrc", 550))
DEMO_CLIP_SECONDS = 3
DEMO_CLIP_SIZE = (480, 270)
DEMO_CLIP_RATE = 25
# One listing in CLIP_EVERY has a clip: in each round of the cities, the places whose number ends like the
# round's, so every city gets one within CLIP_EVERY rounds, in both sections.
CLIP_EVERY = 10

NAMES = (
    "Valentina Catalina Antonella Isidora Sofía Martina Florencia Javiera Constanza Fernanda Camila Daniela "
    "Josefa Agustina Emilia Trinidad Paula Francisca Macarena Renata Amanda Belén Ignacia Rocío Maite Julieta "
    "Antonia Carolina Bárbara Gabriela Natalia Romina Pía Karla Dominga Alejandra Luciana Abril Noelia Solange"
).split()
OPENINGS = (
    "Hola, soy {name}, tengo {age} años y estoy en {city}.",
    "Me llamo {name}. Atiendo en {commune}, {city}, en un departamento cómodo y discreto.",
    "{name}, {age} años, recién llegada a {city}.",
    "Soy {name}: simpática, educada y muy puntual.",
)
MIDDLES = (
    "Me encanta conversar y que el encuentro sea tranquilo y sin apuros.",
    "Atiendo solo con cita previa; escríbeme por WhatsApp con anticipación.",
    "Mis fotos son reales y actuales.",
    "Trato cariñoso, ambiente limpio y estacionamiento cercano.",
    "Disponible para cenas y eventos con previo acuerdo.",
)
CLOSINGS = (
    "No respondo números ocultos.",
    "Se exige respeto y buena higiene.",
    "Consulta sin compromiso.",
    "Te espero.",
)
SERVICES = (
    "Masajes relajantes",
    "Acompañamiento a eventos",
    "Cena romántica",
    "Atención a parejas",
    "Despedidas de soltero",
    "Viajes",
    "Atención en hotel",
    "Atención en departamento propio",
    "Baile privado",
    "Masaje en pareja",
)
ADVERTISER_TYPES = ("Independiente", "De agencia", "Masajista")
AGENCY_CATEGORIES = (("Agencia pequeña", 1), ("Agencia mediana", 2), ("Agencia grande", 3))
# (name, description, price, days, effect, tier slug): the upgrades advertisers can ask for.
APP_SERVICES = (
    (
        "Subir a Diamante",
        "La publicación aparece en la categoría Diamante durante 30 días.",
        59990,
        30,
        "nivel",
        "diamante",
    ),
    ("Subir a Ruby", "La publicación aparece en la categoría Ruby durante 30 días.", 39990, 30, "nivel", "ruby"),
    (
        "Subir a Platino",
        "La publicación aparece en la categoría Platino durante 30 días.",
        24990,
        30,
        "nivel",
        "platino",
    ),
    ("VIP", "La publicación aparece en la pestaña VIP de su ciudad durante 15 días.", 19990, 15, "vip", None),
    ("Subir", "La publicación aparece primera de su categoría durante 3 días.", 4990, 3, "subir", None),
)
TIER_WEIGHTS = (("diamante", 1), ("ruby", 2), ("platino", 3), ("chicas-del-dia", 4))


def demo_photos(storage: Storage) -> list[tuple[str, int, int]]:
    """Write (once) the pool of placeholder photos to the photo storage; return (key, width, height)."""
    pool = []
    for i in range(PHOTO_POOL):
        key = f"photos/demo/placeholder-{i:02d}.jpg"
        if not storage.exists(key):
            storage.put(key, placeholder_photo(i), "image/jpeg")
        pool.append((key, 600, 800))
    return pool


def _pulled(graph: av.filter.Graph) -> Iterator[Any]:
    while True:
        try:
            yield graph.pull()
        except (av.error.BlockingIOError, av.error.EOFError):
            return


def _test_source(name: str, arguments: str, sink: str) -> av.filter.Graph:
    graph = av.filter.Graph()
    graph.link_nodes(graph.add(name, arguments), graph.add(sink)).configure()
    return graph


def demo_clip_source(path: Path, index: int) -> None:
    """Write the ``index``-th demo clip as a phone would upload it: an H.264/AAC MP4 of an FFmpeg test picture
    and a tone, made with PyAV's filters and encoders (no ffmpeg binary is needed where the app runs)."""
    pattern, tone = DEMO_CLIPS[index % len(DEMO_CLIPS)]
    width, height = DEMO_CLIP_SIZE
    with av.open(str(path), "w", format="mp4") as out:
        video = out.add_stream("libx264", rate=DEMO_CLIP_RATE)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast"}
        audio = out.add_stream("aac", rate=48_000)
        audio.layout = "mono"
        picture = _test_source(
            pattern, f"size={width}x{height}:rate={DEMO_CLIP_RATE}:duration={DEMO_CLIP_SECONDS}", "buffersink"
        )
        for frame in _pulled(picture):
            out.mux(video.encode(frame.reformat(format="yuv420p")))
        out.mux(video.encode(None))
        sound = _test_source("sine", f"frequency={tone}:sample_rate=48000:duration={DEMO_CLIP_SECONDS}", "abuffersink")
        for frame in _pulled(sound):
            if isinstance(frame, AudioFrame):
                out.mux(audio.encode(frame))
        out.mux(audio.encode(None))


def demo_clips(storage: Storage) -> list[ServedClip]:
    """Make the demo clips (once per run) and process them as a worker processes an upload; what was stored."""
    clips = []
    with tempfile.TemporaryDirectory(prefix="demo-clips-") as folder:
        for index in range(len(DEMO_CLIPS)):
            source = Path(folder) / f"demo-{index}.mp4"
            demo_clip_source(source, index)
            clips.append(store_served(storage=storage, source=source, name=f"demo-clip-{index}"))
    return clips


def _ensure_catalogues(session: Session) -> dict[str, list[str]]:
    """Create the demo catalogues when empty; return uids by catalogue."""
    tiers: dict[str | None, str] = {tier.slug: tier.uid for tier in session.exec(select(Tier)).all()}

    def ensure(model: type[SQLModel], rows: list[dict[str, Any]]) -> list[str]:
        if not session.exec(select(func.count()).select_from(model)).one():
            session.execute(insert(model), [{"uid": new_uid(), **row} for row in rows])
            commit(session)
        return list(session.exec(select(model.uid)).all())  # type: ignore[attr-defined]  # every catalogue has a uid

    return {
        "services": ensure(AdvertiserService, [{"name": name} for name in SERVICES]),
        "types": ensure(AdvertiserType, [{"name": name} for name in ADVERTISER_TYPES]),
        "agency_categories": ensure(AgencyCategory, [{"name": n, "display_order": o} for n, o in AGENCY_CATEGORIES]),
        "app_services": ensure(
            AppService,
            [
                {
                    "name": n,
                    "description": d,
                    "price_clp": p,
                    "duration_days": days,
                    "effect": e,
                    "tier_uid": tiers.get(t),
                }
                for n, d, p, days, e, t in APP_SERVICES
            ],
        ),
    }


def _description(rng: random.Random, name: str, age: int, city: str, commune: str) -> str:
    parts = [rng.choice(OPENINGS), *rng.sample(MIDDLES, 2), rng.choice(CLOSINGS)]
    return " ".join(parts).format(name=name, age=age, city=city, commune=commune)


def _phone(rng: random.Random) -> str:
    return f"+56 9 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"


def _demo_rut(index: int) -> str:
    body = str(10_000_000 + index * 7_919 % 89_999_989)
    return format_rut(f"{body}-{rut_check_digit(body)}")


def _bulk(session: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """Core executemany (multi-row INSERTs), bypassing the ORM's per-row work."""
    connection = session.connection()
    for start in range(0, len(rows), BATCH):
        # SQLModel declares __table__ only on its table classes, which mypy does not tell apart.
        connection.execute(insert(model.__table__), rows[start : start + BATCH])  # type: ignore[attr-defined]


def seed(*, session: Session, listings: int, storage: Storage, rng_seed: int = 7, now: datetime | None = None) -> int:
    """Insert ``listings`` demo listings (with owners, photos, services); return the count."""
    rng = random.Random(rng_seed)
    now = now or utc_now()
    today = clock(now).today
    ensure_fixed_profiles(session=session)
    catalogues = _ensure_catalogues(session)
    tiers = {t.slug: (t.uid, t.display_order) for t in session.exec(select(Tier)).all()}
    tier_cycle = [tiers[slug] for slug, weight in TIER_WEIGHTS for _ in range(weight)]
    photos = demo_photos(storage)
    clips = demo_clips(storage)

    agencies = [
        {
            "uid": new_uid(),
            "name": f"Agencia {city.name}",
            "category_uid": rng.choice(catalogues["agency_categories"]),
            "email": f"contacto@agencia-{city.slug}.example",
            "phone": _phone(rng),
            "activo": True,
            "created_at": now,
            "updated_at": now,
        }
        for city in CITIES[:5]
    ]
    owner_count = max(1, -(-listings // LISTINGS_PER_OWNER))
    batch_tag = new_uid()[:6].lower()
    users, advertisers = [], []
    for i in range(owner_count):
        uid = new_uid()
        name = rng.choice(NAMES)
        users.append(
            {
                "uid": uid,
                "email": f"anunciante-{batch_tag}-{i}@demo.example",
                "display_name": name,
                "profile_uid": ProfileId.PROFESOR.value,
                "activo": True,
                "ban": i % 97 == 96,
                "online": False,
                "created_at": now - timedelta(days=rng.randint(30, 400)),
                "updated_at": now,
            }
        )
        advertisers.append(
            {
                "uid": new_uid(),
                "user_uid": uid,
                "agency_uid": rng.choice(agencies)["uid"] if i % 10 == 0 else None,
                "type_uid": rng.choice(catalogues["types"]),
                "display_name": name,
                "rut": _demo_rut(i),
                "nationality": "Chile",
                "identity_reviewed_at": None,
                "birth_date": date(today.year - rng.randint(19, 45), rng.randint(1, 12), rng.randint(1, 28)),
                "phone": _phone(rng),
                "consent_at": now - timedelta(days=rng.randint(1, 300)),
                "verified": rng.random() < 0.4,
                "created_at": now,
                "updated_at": now,
            }
        )

    rows: list[dict[str, Any]] = []
    photo_rows: list[dict[str, Any]] = []
    service_rows: list[dict[str, Any]] = []
    review_rows: list[dict[str, Any]] = []
    clip_rows: list[dict[str, Any]] = []
    # Demo listings name a commune of their city's area, as the directory offers them (its filters and pages).
    communes = {city.slug: [commune.name for commune in city_communes(city.slug)] for city in CITIES}
    for i in range(listings):
        city = CITIES[i % len(CITIES)]
        section = Section.TRANS.value if i % 5 == 4 else Section.MUJERES.value
        owner = users[i // LISTINGS_PER_OWNER]
        name = rng.choice(NAMES)
        age = rng.randint(18, 45)
        commune = communes[city.slug][0] if rng.random() < 0.5 else rng.choice(communes[city.slug])
        hour = rng.randrange(40, 200, 5) * 1000
        published = now - timedelta(days=rng.uniform(0, 30))
        status = ListingStatus.PUBLICADA.value
        roll = rng.random()
        if roll < 0.02:
            status = ListingStatus.PENDIENTE.value
        elif roll < 0.03:
            status = ListingStatus.PAUSADA.value
        elif roll < 0.035:
            status = ListingStatus.RECHAZADA.value
        visiting = rng.random() < 0.1
        uid = new_uid()
        tier_uid, tier_rank = tier_cycle[(i // len(CITIES)) % len(tier_cycle)]
        rows.append(
            {
                "uid": uid,
                "owner_uid": owner["uid"],
                "section": section,
                "city_slug": city.slug,
                "commune": commune,
                "tier_uid": tier_uid,
                "base_tier_uid": tier_uid,
                "tier_rank": tier_rank,
                "display_name": name,
                "name_slug": slugify(name),
                "age": age,
                "description": _description(rng, name, age, city.name, commune),
                "price_hour_clp": hour,
                "price_half_hour_clp": round(hour * 0.6, -3) if rng.random() < 0.7 else None,
                "price_two_hours_clp": hour * 2 - 10000 if rng.random() < 0.5 else None,
                "price_night_clp": hour * 6 if rng.random() < 0.2 else None,
                "phone": _phone(rng),
                "whatsapp": _phone(rng),
                "verified": (verified := rng.random() < 0.4),
                "verified_at": published if verified else None,
                "porn_actress": rng.random() < 0.08,
                "curvy": rng.random() < 0.25,
                "available_until": now + timedelta(hours=rng.uniform(1, 6)) if rng.random() < 0.15 else None,
                "visiting_from": today - timedelta(days=rng.randint(0, 1)) if visiting else None,
                "visiting_until": today + timedelta(days=rng.randint(1, 4)) if visiting else None,
                "status": status,
                "created_at": published - timedelta(hours=2),
                "updated_at": published,
                "published_at": published if status != ListingStatus.PENDIENTE.value else None,
                "ranked_at": published if status != ListingStatus.PENDIENTE.value else None,
                "wizard_step": WIZARD_DONE,
                "expires_at": published + timedelta(days=60),
            }
        )
        if status == ListingStatus.PENDIENTE.value:
            review_rows.append(
                {
                    "uid": new_uid(),
                    "listing_uid": uid,
                    "reviewer_uid": None,
                    "decision": ReviewDecision.PENDIENTE.value,
                    "reason": "",
                    "created_at": published,
                    "decided_at": None,
                }
            )
        else:
            advertisers[i // LISTINGS_PER_OWNER]["identity_reviewed_at"] = published
        first = rng.randrange(PHOTO_POOL)
        for position in range(rng.randint(2, 4)):
            path, width, height = photos[(first + position * 5) % PHOTO_POOL]
            photo_rows.append(
                {
                    "uid": new_uid(),
                    "listing_uid": uid,
                    "position": position,
                    "path": path,
                    "width": width,
                    "height": height,
                    "created_at": published,
                }
            )
        city_round, place = divmod(i, len(CITIES))
        if place % CLIP_EVERY == city_round % CLIP_EVERY:
            clip = clips[len(clip_rows) % len(clips)]
            clip_rows.append(
                {
                    "uid": new_uid(),
                    "listing_uid": uid,
                    "position": 0,
                    "status": ClipStatus.LISTA.value,
                    "approved": status != ListingStatus.PENDIENTE.value,  # one in review waits with its listing
                    "original_key": None,
                    "video_key": clip.video_key,
                    "poster_stem": clip.poster_stem,
                    "poster_widths": clip.poster_widths,
                    "duration_s": clip.info.duration_s,
                    "width": clip.info.width,
                    "height": clip.info.height,
                    "failure": "",
                    "created_at": published,
                    "updated_at": published,
                }
            )
        offered = rng.sample(catalogues["services"], rng.randint(2, 5))
        service_rows.extend({"listing_uid": uid, "service_uid": service_uid} for service_uid in offered)
        rows[-1]["service_uids"] = services_text(offered)  # both places, as listing_revisions.set_services

    _bulk(session, Agency, agencies)
    _bulk(session, User, users)
    _bulk(session, Advertiser, advertisers)
    _bulk(session, Listing, rows)
    _bulk(session, ListingPhoto, photo_rows)
    _bulk(session, ListingService, service_rows)
    _bulk(session, ListingReview, review_rows)
    _bulk(session, ListingVideo, clip_rows)  # the database's triggers set publicacion.has_video
    commit(session)
    return listings


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description="Carga datos de demostración.")
    parser.add_argument("--listings", type=int, default=300, help="cuántas publicaciones crear (por defecto 300)")
    parser.add_argument("--if-empty", action="store_true", help="no hacer nada si ya hay publicaciones")
    args = parser.parse_args(argv)
    if args.listings < 1:
        parser.error("--listings debe ser al menos 1")
    with Session(get_engine()) as session:
        if args.if_empty and session.exec(select(func.count()).select_from(Listing)).one():
            print("La base de datos ya tiene publicaciones; no se cargaron datos de demostración.")
            return 0
        started = time.perf_counter()
        count = seed(session=session, listings=args.listings, storage=get_storage())
        elapsed = time.perf_counter() - started
    print(f"{count} publicaciones de demostración creadas en {elapsed:.1f} s ({count / elapsed:,.0f} por segundo).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
