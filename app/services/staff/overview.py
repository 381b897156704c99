"""The administrator's overview (/admin/escorts): the directory's figures at a glance.

Every figure comes from a grouped ``COUNT`` (or ``MIN``) in the database; the only
rows read are the ten most recent reports. The listings are read once, grouped by
(status, city, tier): the answer has at most statuses × cities × tiers rows
however many listings there are, and the status, city and tier charts all come
from it (one sequential scan, about 20 ms for 50,000 listings on PostgreSQL).
The recent reports come from ``reporte.created_at`` (indexed) and the new ones'
count from ``reporte.status`` (indexed). The review queue is counted exactly as
its page counts it (``review_queue.queue_size``); verification and upgrade
requests are counts over their own, much smaller tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import case, func
from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.dates import format_date
from app.core.errors import ForbiddenError
from app.core.geo import city_by_slug
from app.core.money import format_currency
from app.models import (
    LISTING_STATUS_LABELS,
    Listing,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    ProfileId,
    Tier,
    UpgradeStatus,
    VerificationStatus,
    utc_now,
)
from app.models.reports import REPORT_KIND_LABELS, Report, ReportStatus
from app.routes import ADMIN_REPORTS, ADMIN_REVIEW_QUEUE, ADMIN_UPGRADES
from app.services.reports import URGENT_KINDS
from app.services.staff.reports import REPORT_STATUS_LABELS
from app.services.staff.review_queue import queue_size
from app.services.staff.shared import ensure_staff
from app.settings import get_settings

ADMIN_ONLY_MESSAGE = "Solo un administrador puede ver este resumen."
TOP_CITIES = 10
RECENT_REPORTS = 10
# (seconds in the unit, singular, plural), largest first.
_AGE_UNITS = ((86400, "día", "días"), (3600, "hora", "horas"), (60, "minuto", "minutos"))


class Bar(BaseModel):
    """One bar of a chart: what it counts, how many (also as shown, "1.234"), its length in % of the longest."""

    label: str
    count: int
    figure: str
    percent: int


class Headline(BaseModel):
    """One key figure at the top: its name, the number as shown, a note, the page that deals with it;
    ``alert`` draws the eye."""

    label: str
    figure: str
    note: str = ""
    href: str = ""
    alert: bool = False


class RecentReport(BaseModel):
    """One recent report as the overview lists it (never the sender's contact or hash)."""

    uid: str
    kind_label: str
    urgent: bool
    status_label: str
    listing: str
    received: str
    age: str


class StaffOverview(BaseModel):
    """Everything the overview shows."""

    total_listings: int = 0
    published: int = 0
    by_status: list[Bar] = []
    by_city: list[Bar] = []
    cities_with_listings: int = 0
    by_tier: list[Bar] = []
    queue_size: int = 0
    queue_oldest_age: str = ""
    pending_verifications: int = 0
    pending_upgrades: int = 0
    new_reports: int = 0
    urgent_new_reports: int = 0
    recent_reports: list[RecentReport] = []
    headlines: list[Headline] = []


def headlines(overview: StaffOverview) -> list[Headline]:
    """The key figures of an overview, in the order the page shows them."""
    urgent = overview.urgent_new_reports
    return [
        Headline(
            label="Publicaciones",
            figure=number(overview.total_listings),
            note=f"{counted(overview.published, 'publicada', 'publicadas')} en "
            f"{counted(overview.cities_with_listings, 'ciudad', 'ciudades')}",
        ),
        Headline(
            label="Por revisar",
            figure=number(overview.queue_size),
            note=f"La más antigua llegó {overview.queue_oldest_age}" if overview.queue_size else "Nada en espera",
            href=ADMIN_REVIEW_QUEUE,
            alert=overview.queue_size > 0,
        ),
        Headline(
            label="Verificaciones pendientes", figure=number(overview.pending_verifications), href=ADMIN_REVIEW_QUEUE
        ),
        Headline(label="Mejoras por aprobar", figure=number(overview.pending_upgrades), href=ADMIN_UPGRADES),
        Headline(
            label="Reportes nuevos",
            figure=number(overview.new_reports),
            note=f"{number(urgent)} de posible trata o menores de edad" if urgent else "",
            href=ADMIN_REPORTS,
            alert=urgent > 0,
        ),
    ]


def time_ago(moment: datetime, now: datetime) -> str:
    """How long ago ``moment`` was, in Spanish: "hace un momento", "hace 1 minuto", "hace 3 horas", "hace 2 días"."""
    seconds = max(0, int((now - moment).total_seconds()))
    for size, one, many in _AGE_UNITS:
        if seconds >= size:
            count = seconds // size
            return f"hace {count} {one if count == 1 else many}"
    return "hace un momento"


def number(count: int) -> str:
    """A count as people read it here: 50000 -> "50.000"."""
    return format_currency(count, symbol="")


def counted(count: int, one: str, many: str) -> str:
    """A count with its noun: "1 ciudad", "12 ciudades"."""
    return f"{number(count)} {one if count == 1 else many}"


def bars(counts: Iterable[tuple[str, int]]) -> list[Bar]:
    """Chart bars in the given order, each as long as its share of the largest count (at least 1 % if not 0)."""
    pairs = list(counts)
    peak = max((count for _, count in pairs), default=0) or 1
    return [
        Bar(
            label=label,
            count=count,
            figure=number(count),
            percent=max(1, round(count * 100 / peak)) if count else 0,
        )
        for label, count in pairs
    ]


def _count(session: Session, column: Any, *conditions: Any) -> int:
    return session.exec(select(func.count(column)).where(*conditions)).one()


@dataclass(frozen=True)
class _ListingCounts:
    by_status: dict[ListingStatus, int]
    published_by_city: Counter[str]
    published_by_tier: Counter[str]


def _listing_counts(session: Session) -> _ListingCounts:
    """One scan of the listings, grouped by status, city and tier: at most statuses × cities × tiers rows."""
    rows = session.exec(
        select(Listing.status, Listing.city_slug, Listing.tier_uid, func.count()).group_by(
            col(Listing.status), col(Listing.city_slug), col(Listing.tier_uid)
        )
    ).all()
    counts = _ListingCounts(by_status=Counter(), published_by_city=Counter(), published_by_tier=Counter())
    for status, city_slug, tier_uid, count in rows:
        counts.by_status[ListingStatus(status)] += count
        if status == ListingStatus.PUBLICADA:
            if city_slug:
                counts.published_by_city[city_slug] += count
            if tier_uid:
                counts.published_by_tier[tier_uid] += count
    return counts


def _city_bars(published_by_city: Counter[str]) -> list[Bar]:
    """The TOP_CITIES cities with the most published listings, busiest first (ties by slug)."""
    top = sorted(published_by_city.items(), key=lambda item: (-item[1], item[0]))[:TOP_CITIES]
    return bars(((city.name if (city := city_by_slug(slug)) else slug), count) for slug, count in top)


def _tier_bars(session: Session, published_by_tier: Counter[str]) -> list[Bar]:
    """Every tier in its order on the city page, with its published listings."""
    tiers = session.exec(select(col(Tier.uid), col(Tier.name)).order_by(col(Tier.display_order), col(Tier.name))).all()
    return bars((name, published_by_tier[uid]) for uid, name in tiers)


def _new_reports(session: Session) -> tuple[int, int]:
    """New reports, and how many of them are about trafficking or a minor."""
    urgent = case((col(Report.kind).in_(URGENT_KINDS), 1), else_=0)
    total, urgent_total = session.exec(
        select(func.count(), func.coalesce(func.sum(urgent), 0)).where(Report.status == ReportStatus.NUEVO)
    ).one()
    return total, urgent_total


def _review_queue(session: Session, now: datetime) -> tuple[int, str]:
    """The queue page's total (listings, edits and verification requests) and its oldest item's age."""
    size, oldest = queue_size(session)
    return size, time_ago(oldest, now) if oldest is not None else ""


def _recent_reports(session: Session, now: datetime) -> list[RecentReport]:
    rows = session.exec(
        select(  # type: ignore[call-overload]  # sqlmodel types select() for at most four columns
            col(Report.uid),
            col(Report.kind),
            col(Report.status),
            col(Report.created_at),
            col(Listing.display_name),
            col(Listing.city_slug),
        )
        .outerjoin(Listing, Listing.uid == Report.listing_uid)
        .order_by(col(Report.created_at).desc(), col(Report.uid).desc())
        .limit(RECENT_REPORTS)
    ).all()
    zone = ZoneInfo(get_settings().timezone)
    recent = []
    for uid, kind, status, created_at, name, slug in rows:
        city = city_by_slug(slug)
        listing = " · ".join(part for part in (name or "", city.name if city else "") if part)
        recent.append(
            RecentReport(
                uid=uid,
                kind_label=REPORT_KIND_LABELS.get(kind, kind),
                urgent=kind in URGENT_KINDS,
                status_label=REPORT_STATUS_LABELS.get(status, status),
                listing=listing or "Sin publicación indicada",
                received=format_date(created_at.astimezone(zone), "DD/MM/YYYY HH:mm"),
                age=time_ago(created_at, now),
            )
        )
    return recent


def staff_overview(*, session: Session, actor: Actor, now: datetime | None = None) -> StaffOverview:
    """The administrator's overview; ForbiddenError for anyone else (a secretary too)."""
    viewer = ensure_staff(session, actor.uid, ADMIN_ONLY_MESSAGE)
    if viewer.profile_uid != ProfileId.ADMINISTRADOR:
        raise ForbiddenError(ADMIN_ONLY_MESSAGE)
    now = now or utc_now()
    listings = _listing_counts(session)
    by_status = listings.by_status
    queue_size, queue_oldest = _review_queue(session, now)
    new_reports, urgent_new_reports = _new_reports(session)
    overview = StaffOverview(
        total_listings=sum(by_status.values()),
        published=by_status[ListingStatus.PUBLICADA],
        by_status=bars((label, by_status[status]) for status, label in LISTING_STATUS_LABELS.items()),
        by_city=_city_bars(listings.published_by_city),
        cities_with_listings=len(listings.published_by_city),
        by_tier=_tier_bars(session, listings.published_by_tier),
        queue_size=queue_size,
        queue_oldest_age=queue_oldest,
        pending_verifications=_count(
            session, ListingVerification.uid, ListingVerification.status == VerificationStatus.SOLICITADA
        ),
        pending_upgrades=_count(session, ListingUpgrade.uid, ListingUpgrade.status == UpgradeStatus.SOLICITADA),
        new_reports=new_reports,
        urgent_new_reports=urgent_new_reports,
        recent_reports=_recent_reports(session, now),
    )
    overview.headlines = headlines(overview)
    return overview
