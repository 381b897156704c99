"""Public listing queries: the city page, featured listings and the detail.

Only listings that are ``publicada`` and whose owner is active and not banned
are ever returned from here. Queries page in the database (limit/offset) and
return at most one page of cards, never a whole city.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Text, bindparam, cast, func, literal_column
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from app.core.dates import format_date
from app.core.geo import city_by_slug
from app.core.money import format_currency
from app.models import (
    AdvertiserService,
    ClipStatus,
    Listing,
    ListingCard,
    ListingDetail,
    ListingPhoto,
    ListingService,
    ListingStatus,
    ListingVideo,
    PublicClip,
    Section,
    Tier,
    utc_now,
)
from app.models.filter_tabs import Clock, FilterTab
from app.models.listing_filters import NO_FILTERS, FilterShape, ListingFilters
from app.settings import get_settings

MEDIA_URL_PREFIX = "/media/"
FEATURED_LIMIT = 12
# A city page counts its matches up to here and no further ("más de 1.000 avisos"): at 500,000 listings a city
# has ~19,000, and counting them all was most of the page's query time (docs/performance.md).
COUNT_CAP = 1000
# A filtered page stops sooner ("más de 200 avisos"): its count walks the city's entries in the filter's range, and
# a sparse filter (two services, ~6% of a city) walked 17,000 of them to reach 1,000 (docs/performance.md).
FILTERED_COUNT_CAP = 200
# What urllib.parse.quote leaves as it is (with "/" kept): such a path needs no quoting.
_URL_SAFE_PATH = re.compile(r"[A-Za-z0-9_.~/-]*")
# A clip's poster is its stored width up to this one (what a phone's full-width player needs).
POSTER_WIDTH = 800


@dataclass(frozen=True)
class CardPage:
    """One page of cards plus what the pager needs.

    ``total`` is exact when ``exact``; otherwise the count stopped there (more match: past ``cap`` and past this
    page), and ``page_count`` is the pages known to exist, always more than ``page``.
    """

    cards: list[ListingCard]
    total: int
    page: int
    page_size: int
    exact: bool = True
    cap: int = COUNT_CAP

    @property
    def page_count(self) -> int:
        """Number of pages (at least 1, so an empty city still has page 1); a lower bound unless ``exact``."""
        return max(1, -(-self.total // self.page_size))

    @property
    def has_next(self) -> bool:
        """True when a page follows this one."""
        return self.page < self.page_count


def count_limit(page: int, page_size: int, cap: int) -> int:
    """How many matches a city page counts at most: past ``cap`` and past its own page, by one (the one that says
    more match, and that a next page exists)."""
    return max(cap, page * page_size) + 1


def clock(now: datetime | None = None) -> Clock:
    """The evaluation moment: ``now`` (aware, UTC) and today's Chilean date."""
    now = now or utc_now()
    today = now.astimezone(ZoneInfo(get_settings().timezone)).date()
    return Clock(now=now, today=today)


def listing_path(*, section: str, city_slug: str | None, name_slug: str | None, uid: str) -> str:
    """The canonical detail URL of a listing."""
    if section == Section.TRANS:
        return f"/escorts/trans/{city_slug}/{name_slug}-{uid}"
    return f"/escorts/{city_slug}/{name_slug}/{uid}"


def photo_url(path: str) -> str:
    """Public URL of a stored photo (a storage key of only characters ``quote`` keeps is used as it is)."""
    return MEDIA_URL_PREFIX + (path if _URL_SAFE_PATH.fullmatch(path) else quote(path))


def poster_url(stem: str, widths: list[int]) -> str:
    """The URL of a clip's poster, stored as ``{stem}-{width}.webp`` (listing_photos.variant_key): its widest width
    up to POSTER_WIDTH, or its narrowest when all are wider; "" without any."""
    if not widths:
        return ""
    fitting = [width for width in widths if width <= POSTER_WIDTH]
    return photo_url(f"{stem}-{max(fitting) if fitting else min(widths)}.webp")


def public_conditions(section: str | ColumnElement[str] | None) -> list[ColumnElement[bool]]:
    """The one definition of a public listing: published, and the owner is neither banned nor inactive (the
    listing's ``owner_hidden``, which the database keeps in step with its owner); in ``section`` (a value or a
    bound parameter) unless it is None."""
    conditions = [col(Listing.status) == ListingStatus.PUBLICADA.value, col(Listing.owner_hidden) == False]  # noqa: E712
    if section is not None:
        conditions.append(col(Listing.section) == section)
    return conditions


def _public_select(*columns: Any) -> Any:  # sqlmodel types a select of a column list as Any
    return select(*columns).join(Tier, Tier.uid == Listing.tier_uid)


# What a card shows, read as plain columns: loading whole Listing objects (description, revision, 30-odd columns,
# the session's identity map) cost more than the page's SQL (docs/performance.md).
_CARD_COLUMNS: tuple[Any, ...] = (
    col(Listing.uid),
    col(Listing.section),
    col(Listing.city_slug),
    col(Listing.commune),
    col(Listing.display_name),
    col(Listing.age),
    col(Listing.verified),
    col(Listing.has_video),
    col(Listing.porn_actress),
    col(Listing.available_until),
    col(Listing.price_hour_clp),
    col(Listing.name_slug),
    col(Tier.name).label("tier_name"),
    col(Tier.slug).label("tier_slug"),
)


# A card's or a detail's photos ride on its row (one statement, not two): each approved photo as its position, a
# space and its storage key, joined by a character no key holds; sorted in Python, as SQLite's group_concat takes
# no ORDER BY.
_PHOTO_SEPARATOR = "\x1f"
# The separator as SQL text: given as a string, aggregate_strings makes it a literal_execute parameter, which
# re-renders the whole statement's SQL at every execution (a fifth of a city page's query in Python).
_SEPARATOR_SQL: ColumnElement[str] = literal_column(f"'{_PHOTO_SEPARATOR}'", Text())
_PHOTO_PAIRS = (
    select(
        func.aggregate_strings(
            cast(col(ListingPhoto.position), Text).concat(" ").concat(col(ListingPhoto.path)),
            _SEPARATOR_SQL,  # type: ignore[arg-type]  # typed as str; any SQL expression compiles
        )
    )
    .where(col(ListingPhoto.listing_uid) == col(Listing.uid), col(ListingPhoto.approved) == True)  # noqa: E712
    .scalar_subquery()
    .label("photo_pairs")
)
_CARD_ROW: tuple[Any, ...] = (*_CARD_COLUMNS, _PHOTO_PAIRS)

# A detail's clips ride on its row too: each approved, ready clip as "position width height video_key poster_stem
# poster_widths" (keys hold no space, the widths are comma separated), joined like the photos.
_CLIP_ROWS = (
    select(
        func.aggregate_strings(
            cast(col(ListingVideo.position), Text)
            .concat(" ")
            .concat(cast(col(ListingVideo.width), Text))
            .concat(" ")
            .concat(cast(col(ListingVideo.height), Text))
            .concat(" ")
            .concat(col(ListingVideo.video_key))
            .concat(" ")
            .concat(col(ListingVideo.poster_stem))
            .concat(" ")
            .concat(col(ListingVideo.poster_widths)),
            _SEPARATOR_SQL,  # type: ignore[arg-type]  # as above
        )
    )
    .where(
        col(ListingVideo.listing_uid) == col(Listing.uid),
        col(ListingVideo.approved) == True,  # noqa: E712
        col(ListingVideo.status) == ClipStatus.LISTA.value,
        col(ListingVideo.video_key).is_not(None),
        col(ListingVideo.poster_stem).is_not(None),
    )
    .scalar_subquery()
    .label("clip_rows")
)


# A detail's services ride on its row too: their names, joined like the photos (sorted in Python).
_SERVICE_NAMES = (
    select(func.aggregate_strings(col(AdvertiserService.name), _SEPARATOR_SQL))  # type: ignore[arg-type]
    .join(ListingService, col(ListingService.service_uid) == col(AdvertiserService.uid))
    .where(col(ListingService.listing_uid) == col(Listing.uid))
    .scalar_subquery()
    .label("service_names")
)


# A detail's statement, built once with the uid as its parameter: SQLAlchemy keeps its cache key and compiled form
# on the object, so each detail the page cache misses skips building the statement and walking it for its key
# (0.61 -> 0.38 ms of Python a detail, bench/bench_queries.py; docs/performance.md, 2026-11-29).
_PUBLIC_DETAIL = _public_select(Listing, Tier, _PHOTO_PAIRS, _CLIP_ROWS, _SERVICE_NAMES).where(
    *public_conditions(None), col(Listing.uid) == bindparam("uid")
)


def _card_select(*columns: Any) -> Any:  # as _public_select
    """The public cards' columns (after ``columns``), from listings joined to their tier."""
    return select(*columns, *_CARD_ROW).select_from(Listing).join(Tier, col(Tier.uid) == col(Listing.tier_uid))


def _photo_urls(pairs: str | None) -> list[str]:
    """The public photo URLs in a row's ``photo_pairs``, cover first."""
    if not pairs:
        return []
    found = (pair.partition(" ") for pair in pairs.split(_PHOTO_SEPARATOR))
    return [photo_url(path) for _position, path in sorted((int(position), path) for position, _, path in found)]


def _clips(rows: str | None, name: str) -> list[PublicClip]:
    """The public clips in a row's ``clip_rows``, in order, each named for the visitor ("Video de Ana (1 de 2)")."""
    if not rows:
        return []
    clips = sorted((row.split(" ", 5) for row in rows.split(_PHOTO_SEPARATOR)), key=lambda parts: int(parts[0]))
    return [
        PublicClip(
            video_url=photo_url(video),
            poster_url=poster_url(stem, [int(part) for part in widths.split(",") if part.isdigit()]),
            width=int(width),
            height=int(height),
            label=f"Video de {name} ({number} de {len(clips)})",
        )
        for number, (_position, width, height, video, stem, widths) in enumerate(clips, start=1)
    ]


def _card_fields(listing: Any, tier_name: str, tier_slug: str, photos: list[str], moment: Clock) -> dict[str, Any]:
    """A card's fields from ``listing``: a Listing, or a row of ``_CARD_COLUMNS``."""
    return {
        "uid": listing.uid,
        "commune": listing.commune,
        "display_name": listing.display_name,
        "age": listing.age,
        "tier_name": tier_name,
        "tier_slug": tier_slug,
        "verified": listing.verified,
        "has_video": listing.has_video,
        "porn_actress": listing.porn_actress,
        "available_now": bool(listing.available_until and listing.available_until > moment.now),
        "price": format_currency(listing.price_hour_clp),
        "url": listing_path(
            section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid
        ),
        "photos": tuple(photos),
    }


def _cards(rows: Sequence[Any], moment: Clock) -> list[ListingCard]:
    """The cards of rows of ``_card_select``, with their photos."""
    return [
        ListingCard(**_card_fields(row, row.tier_name, row.tier_slug, _photo_urls(row.photo_pairs), moment))
        for row in rows
    ]


@dataclass(frozen=True)
class _CityStatements:
    """A city page's statements for one tab, order and shape of filters, every value a bound parameter."""

    page: Any  # its cards, with the count riding on each row
    count: SelectOfScalar[int]  # the count alone


# How many city page statements are kept: the filter tabs x two orders x the shapes of filters people use (of
# 5,760 in all; one that fell out is built again when it is next needed).
CITY_STATEMENTS = 256


@functools.lru_cache(maxsize=CITY_STATEMENTS)
def _city_statements(tab: FilterTab, group_by_tier: bool, shape: FilterShape) -> _CityStatements:
    """The statements of a city page on ``tab`` narrowed by filters of ``shape``; their parameters are
    :func:`_city_params`'. Built once and kept: SQLAlchemy keeps a statement's cache key on the object, so a page
    the page cache misses skips building its statement and walking it for that key (docs/performance.md,
    2026-11-29 18:55)."""
    conditions = [*public_conditions(bindparam("section")), col(Listing.city_slug) == bindparam("city_slug")]
    extra = tab.condition()
    if extra is not None:
        conditions.append(extra)
    conditions += shape.conditions()
    matches = select(col(Listing.uid)).where(*conditions).limit(bindparam("count_limit")).subquery()
    count = select(func.count()).select_from(matches)
    if group_by_tier:
        order = [col(Listing.tier_rank), col(Listing.ranked_at).desc(), col(Listing.uid).desc()]
    else:
        order = [col(Listing.published_at).desc(), col(Listing.uid).desc()]
    page = (
        _card_select(count.scalar_subquery().label("total"))
        .where(*conditions)
        .order_by(*order)
        .offset(bindparam("offset"))
        .limit(bindparam("page_size"))
    )
    return _CityStatements(page=page, count=count)


def _city_params(
    section: str, city_slug: str, filters: ListingFilters, moment: Clock, *, count_limit: int
) -> dict[str, object]:
    """The values of a city page's statements' parameters (all but the page's offset and size)."""
    return {
        "section": section,
        "city_slug": city_slug,
        "count_limit": count_limit,
        **moment.params(),
        **filters.params(),
    }


def city_cards(
    *,
    session: Session,
    section: str,
    city_slug: str,
    tab: FilterTab,
    page: int = 1,
    page_size: int | None = None,
    group_by_tier: bool = True,
    filters: ListingFilters = NO_FILTERS,
    now: datetime | None = None,
) -> CardPage:
    """One page of a city's public cards for a filter tab, narrowed by ``filters`` (comuna, rate, age, services).

    Grouped by tier (Diamante, Ruby, Platino, Chicas del día), newest (or most
    recently bumped, ``ranked_at``) first within a tier; with ``group_by_tier`` false, newest first overall (the
    /all page).
    """
    moment = clock(now)
    page_size = page_size or get_settings().page_size
    page = max(1, page)
    cap = FILTERED_COUNT_CAP if filters.active else COUNT_CAP
    limit = count_limit(page, page_size, cap)
    statements = _city_statements(tab, group_by_tier, filters.shape)
    params = _city_params(section, city_slug, filters, moment, count_limit=limit)
    # The count rides on the page's rows (one round trip; the database runs it once); an empty page asks it alone.
    rows = session.exec(
        statements.page, params={**params, "offset": (page - 1) * page_size, "page_size": page_size}
    ).all()
    total = rows[0].total if rows else session.exec(statements.count, params=params).one()
    return CardPage(
        cards=_cards(rows, moment),
        total=total,
        page=page,
        page_size=page_size,
        exact=total < limit,
        cap=cap,
    )


def city_total(
    *,
    session: Session,
    section: str,
    city_slug: str,
    tab: FilterTab,
    filters: ListingFilters = NO_FILTERS,
    now: datetime | None = None,
) -> CardPage:
    """How many of a city's public listings on ``tab`` match ``filters``: :func:`city_cards`'s first page without
    its cards, from a count alone (the filter form's count, which shows none of them)."""
    page_size = get_settings().page_size
    cap = FILTERED_COUNT_CAP if filters.active else COUNT_CAP
    limit = count_limit(1, page_size, cap)
    statement = _city_statements(tab, True, filters.shape).count
    total = session.exec(
        statement, params=_city_params(section, city_slug, filters, clock(now), count_limit=limit)
    ).one()
    return CardPage(cards=[], total=total, page=1, page_size=page_size, exact=total < limit, cap=cap)


def service_names(session: Session, listing_uid: str) -> list[str]:
    """The names of the services a listing offers, in alphabetical order."""
    return list(
        session.exec(
            select(AdvertiserService.name)
            .join(ListingService, col(ListingService.service_uid) == col(AdvertiserService.uid))
            .where(ListingService.listing_uid == listing_uid)
            .order_by(AdvertiserService.name)
        )
    )


def featured_cards(
    *, session: Session, section: str, limit: int = FEATURED_LIMIT, now: datetime | None = None
) -> list[ListingCard]:
    """The home page's featured listings: highest tier first, then newest."""
    moment = clock(now)
    rows = session.exec(
        _card_select()
        .where(*public_conditions(section))
        .order_by(col(Listing.tier_rank), col(Listing.ranked_at).desc(), col(Listing.uid).desc())
        .limit(limit)
    ).all()
    return _cards(rows, moment)


def public_cards(*, session: Session, uids: list[str], now: datetime | None = None) -> list[ListingCard]:
    """The cards of those of ``uids`` that are public, in no particular order (the others are left out)."""
    if not uids:
        return []
    moment = clock(now)
    rows = session.exec(_card_select().where(*public_conditions(None), col(Listing.uid).in_(uids))).all()
    return _cards(rows, moment)


def _rates(listing: Listing) -> list[tuple[str, str]]:
    rates = [
        ("30 minutos", listing.price_half_hour_clp),
        ("1 hora", listing.price_hour_clp),
        ("2 horas", listing.price_two_hours_clp),
        ("Noche completa", listing.price_night_clp),
    ]
    return [(label, format_currency(value)) for label, value in rates if value is not None]


def _digits(phone: str) -> str:
    return "".join(ch for ch in phone if ch.isdigit())


def public_listing(*, session: Session, uid: str, now: datetime | None = None) -> ListingDetail | None:
    """The detail of a public listing, or None if it is absent or not public."""
    if not isinstance(uid, str) or not uid or len(uid) > 40:
        return None
    moment = clock(now)
    row = session.exec(_PUBLIC_DETAIL, params={"uid": uid}).first()
    if row is None:
        return None
    listing, tier, photo_pairs, clip_rows, names = row
    photos = _photo_urls(photo_pairs)
    services = sorted(names.split(_PHOTO_SEPARATOR)) if names else []
    visiting = ""
    if listing.visiting_from and listing.visiting_until and listing.visiting_until >= moment.today:
        visiting = (
            f"De pasada del {format_date(listing.visiting_from, 'D [de] MMMM')}"
            f" al {format_date(listing.visiting_until, 'D [de] MMMM')}"
        )
    available = ""
    if listing.available_until and listing.available_until > moment.now:
        local = listing.available_until.astimezone(ZoneInfo(get_settings().timezone))
        available = f"Disponible ahora, hasta las {format_date(local, 'HH:mm')}"
    whatsapp = _digits(listing.whatsapp)
    phone = _digits(listing.phone)
    text = quote(f"Hola {listing.display_name}, vi tu aviso en {get_settings().site_name}.")
    city = city_by_slug(listing.city_slug)
    return ListingDetail(
        **_card_fields(listing, tier.name, tier.slug, photos, moment),
        section=listing.section,
        city_slug=listing.city_slug,
        city_name=city.name if city else listing.city_slug,
        description=listing.description,
        services=tuple(services),
        rates=tuple(_rates(listing)),
        phone=listing.phone,
        whatsapp_url=f"https://wa.me/{whatsapp}?text={text}" if whatsapp else "",
        tel_url=f"tel:+{phone}" if phone else "",
        available_until=available,
        visiting=visiting,
        published=format_date(listing.published_at, "D [de] MMMM [de] YYYY") if listing.published_at else "",
        verified_on=format_date(listing.verified_at, "D [de] MMMM [de] YYYY")
        if listing.verified and listing.verified_at
        else "",
        clips=tuple(_clips(clip_rows, listing.display_name)),
    )
