"""Listing statistics: detail-page views and contact clicks, as daily counters per listing.

One row per listing per Chilean day (``ListingDailyStats``), never one row per
view. A visitor (the keyed hash of their address, app.services.abuse.client_key)
counts at most once per day, per listing and per kind: the "already counted"
check is a limit of one hit in the shared abuse counters (Redis or memory),
keyed by kind, listing, visitor and day. The listing's owner and staff are
never counted. The pages hand their hits over in batches (:func:`record_many`):
each listing and kind of a batch is one ``INSERT ... ON CONFLICT DO UPDATE``
that adds its count to a column, so concurrent batches never lose an increment.

Indexes: every query here reads a range of the primary key (listing_uid, day).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import case, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.errors import InvalidInputError
from app.db import commit
from app.models import STAFF_PROFILES, Listing, ListingDailyStats, ListingStatus, User
from app.services.abuse import Rule, limiter
from app.services.ownership import owned_listing

VIEW = "view"
WHATSAPP = "whatsapp"
CALL = "call"
# The counter column of each kind.
KIND_COLUMNS = {VIEW: "views", WHATSAPP: "whatsapp_clicks", CALL: "call_clicks"}
# Once per visitor per day: the key holds the day, and a Chilean day lasts at most 25 hours (DST).
ONCE_A_DAY = Rule("estadistica", 1, 26 * 3600)
MAX_SERIES_DAYS = 366


class StatTotals(BaseModel):
    """Views and contact clicks (WhatsApp + call) of one listing over the last 7 and 30 days."""

    views_7: int = 0
    views_30: int = 0
    clicks_7: int = 0
    clicks_30: int = 0


class DayStat(BaseModel):
    """One day of a listing's chart: its label ("21/11"), views and contact clicks."""

    day: str
    views: int
    clicks: int


def _counted_before(*, kind: str, listing_uid: str, visitor: str, today: date) -> bool:
    """Take this visitor's one count of the day for (kind, listing); True if it was already taken."""
    key = "/".join((kind, listing_uid, visitor, today.isoformat()))
    return not limiter().take(ONCE_A_DAY, key)


def _increment(session: Session, *, listing_uid: str, today: date, column: str, by: int = 1) -> None:
    """Add ``by`` to ``column`` of the listing's row for ``today`` (created with it), atomically."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    counters = {name: by if name == column else 0 for name in KIND_COLUMNS.values()}
    statement = insert(ListingDailyStats).values(listing_uid=listing_uid, day=today, **counters)
    table = ListingDailyStats.__table__  # type: ignore[attr-defined]  # a table class has one
    statement = statement.on_conflict_do_update(
        index_elements=[table.c.listing_uid, table.c.day], set_={column: table.c[column] + by}
    )
    session.execute(statement)


@dataclass(frozen=True)
class Hit:
    """One view or contact click to count: the listing, the kind, the keyed visitor hash, the signed-in caller."""

    listing_uid: str
    kind: str
    visitor: str
    actor: Actor | None = None


def record(*, session: Session, listing_uid: str, kind: str, visitor: str, actor: Actor | None, today: date) -> bool:
    """Count one ``kind`` ("view", "whatsapp", "call") of a public listing; True if it was counted.

    Not counted: a listing that is not published, its owner, staff
    (administrador, secretaria), and a visitor already counted today for this
    listing and kind. ``visitor`` is the keyed client hash, never an address;
    ``actor`` the signed-in caller (None when anonymous), whose profile is read
    from the database. Commits.
    """
    if kind not in KIND_COLUMNS:
        raise InvalidInputError("No reconocemos ese tipo de estadística.", field="kind")
    return record_many(session=session, hits=[Hit(listing_uid, kind, visitor, actor)], today=today) == 1


def record_many(*, session: Session, hits: list[Hit], today: date) -> int:
    """Count ``hits`` as :func:`record` counts each (an unknown kind is skipped), in one transaction: the listings
    and the callers' profiles read once, one increment per listing and kind. Returns how many were counted."""
    wanted = [
        hit
        for hit in hits
        if hit.kind in KIND_COLUMNS and isinstance(hit.listing_uid, str) and 0 < len(hit.listing_uid) <= 40
    ]
    if not wanted:
        return 0
    # Rows whose columns are read by name, which SQLAlchemy's typing does not follow.
    rows: Any = session.exec(
        select(Listing.uid, Listing.owner_uid).where(
            col(Listing.uid).in_({hit.listing_uid for hit in wanted}), Listing.status == ListingStatus.PUBLICADA
        )
    ).all()
    owners = {row.uid: row.owner_uid for row in rows}
    callers = {hit.actor.uid for hit in wanted if hit.actor is not None}
    staff = set(
        session.exec(
            select(User.uid).where(
                col(User.uid).in_(callers), col(User.profile_uid).in_([profile.value for profile in STAFF_PROFILES])
            )
        ).all()
        if callers
        else ()
    )
    increments: Counter[tuple[str, str]] = Counter()
    for hit in wanted:
        owner = owners.get(hit.listing_uid)
        caller = hit.actor.uid if hit.actor is not None else None
        if owner is None or caller == owner or caller in staff:
            continue
        if not _counted_before(kind=hit.kind, listing_uid=hit.listing_uid, visitor=hit.visitor, today=today):
            increments[(hit.listing_uid, KIND_COLUMNS[hit.kind])] += 1
    for (listing_uid, column), by in sorted(increments.items()):  # one order: concurrent batches never deadlock
        _increment(session, listing_uid=listing_uid, today=today, column=column, by=by)
    commit(session)
    return sum(increments.values())


def totals_for(*, session: Session, listing_uids: list[str], today: date) -> dict[str, StatTotals]:
    """Totals of the last 7 and 30 days (today included) per listing; listings without counts get zeros."""
    totals = {uid: StatTotals() for uid in listing_uids}
    if not totals:
        return totals
    stats = ListingDailyStats
    recent = col(stats.day) >= today - timedelta(days=6)
    clicks = col(stats.whatsapp_clicks) + col(stats.call_clicks)
    rows = session.exec(
        select(  # type: ignore[call-overload]  # sqlmodel types select() for at most four columns
            stats.listing_uid,
            func.sum(case((recent, col(stats.views)), else_=0)),
            func.sum(col(stats.views)),
            func.sum(case((recent, clicks), else_=0)),
            func.sum(clicks),
        )
        .where(
            col(stats.listing_uid).in_(list(totals)),
            col(stats.day) >= today - timedelta(days=29),
            col(stats.day) <= today,
        )
        .group_by(stats.listing_uid)
    ).all()
    for uid, views_7, views_30, clicks_7, clicks_30 in rows:
        totals[uid] = StatTotals(
            views_7=int(views_7), views_30=int(views_30), clicks_7=int(clicks_7), clicks_30=int(clicks_30)
        )
    return totals


def daily_series(*, session: Session, owner_uid: str, listing_uid: str, today: date, days: int = 30) -> list[DayStat]:
    """The owner's listing, day by day over the last ``days`` days (oldest first, days without counts at zero).

    Someone else's listing, or a missing one, raises NotFoundError.
    """
    if not 1 <= days <= MAX_SERIES_DAYS:
        raise InvalidInputError("Elige un período de entre 1 y 366 días.", field="days")
    listing = owned_listing(session=session, owner_uid=owner_uid, uid=listing_uid)
    first = today - timedelta(days=days - 1)
    stats = ListingDailyStats
    rows = session.exec(
        select(stats).where(stats.listing_uid == listing.uid, stats.day >= first, stats.day <= today)
    ).all()
    by_day = {row.day: row for row in rows}
    series = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        row = by_day.get(day)
        series.append(
            DayStat(
                day=f"{day.day:02d}/{day.month:02d}",
                views=row.views if row else 0,
                clicks=row.whatsapp_clicks + row.call_clicks if row else 0,
            )
        )
    return series
