"""The administrator's overview (/admin/escorts): the directory's figures at a glance.

Every figure is one grouped ``COUNT`` (or ``MIN``) in the database, so the page
costs the same with 50 or 50,000 listings; the only rows read are the ten most
recent reports. Indexes: the status and city counts read the leading columns
of ``ix_publicacion_city_tier`` (status, section, city_slug, tier_rank); the
reports come from ``reporte.created_at`` (indexed) and their status count from
``reporte.status``. The review queue, verification and upgrade requests are
counted by a scan of their small tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import and_, distinct, func
from sqlmodel import Session, select

from app.core.dates import format_date
from app.core.geo import city_by_slug
from app.core.money import format_currency
from app.models import (
    LISTING_STATUS_LABELS,
    Listing,
    ListingReview,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    ProfileId,
    ReviewDecision,
    Tier,
    UpgradeStatus,
    VerificationStatus,
    utc_now,
)
from app.models.reports import REPORT_KIND_LABELS, Report, ReportStatus
from app.routes import ADMIN_REPORTS, ADMIN_REVIEW_QUEUE, ADMIN_UPGRADES
from app.services.errors import ForbiddenError
from app.services.reports import URGENT_KINDS
from app.services.staff import ensure_staff
from app.services.staff_reports import REPORT_STATUS_LABELS
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


def _count(session: Session, column, *conditions) -> int:
    return session.exec(select(func.count(column)).where(*conditions)).one()


def _listing_counts(session: Session) -> dict[ListingStatus, int]:
    rows = session.exec(select(Listing.status, func.count()).group_by(Listing.status)).all()
    return {ListingStatus(status): count for status, count in rows}


def _city_counts(session: Session) -> tuple[list[Bar], int]:
    published = Listing.status == ListingStatus.PUBLICADA
    total = func.count()
    rows = session.exec(
        select(Listing.city_slug, total)
        .where(published, Listing.city_slug.is_not(None))
        .group_by(Listing.city_slug)
        .order_by(total.desc(), Listing.city_slug)
        .limit(TOP_CITIES)
    ).all()
    cities = _count(session, distinct(Listing.city_slug), published)
    return bars(((city.name if (city := city_by_slug(slug)) else slug), count) for slug, count in rows), cities


def _tier_counts(session: Session) -> list[Bar]:
    published = and_(Listing.tier_uid == Tier.uid, Listing.status == ListingStatus.PUBLICADA)
    rows = session.exec(
        select(Tier.name, func.count(Listing.uid))
        .select_from(Tier)
        .outerjoin(Listing, published)
        .group_by(Tier.uid, Tier.name, Tier.display_order)
        .order_by(Tier.display_order, Tier.name)
    ).all()
    return bars(rows)


def _review_queue(session: Session, now: datetime) -> tuple[int, str]:
    pending = ListingReview.decision == ReviewDecision.PENDIENTE
    size, oldest = session.exec(
        select(func.count(distinct(ListingReview.listing_uid)), func.min(ListingReview.created_at)).where(pending)
    ).one()
    return size, time_ago(oldest, now) if oldest is not None else ""


def _recent_reports(session: Session, now: datetime) -> list[RecentReport]:
    rows = session.exec(
        select(Report, Listing.display_name, Listing.city_slug)
        .outerjoin(Listing, Listing.uid == Report.listing_uid)
        .order_by(Report.created_at.desc(), Report.uid.desc())
        .limit(RECENT_REPORTS)
    ).all()
    zone = ZoneInfo(get_settings().timezone)
    recent = []
    for report, name, slug in rows:
        city = city_by_slug(slug)
        listing = " · ".join(part for part in (name or "", city.name if city else "") if part)
        recent.append(
            RecentReport(
                uid=report.uid,
                kind_label=REPORT_KIND_LABELS.get(report.kind, report.kind),
                urgent=report.kind in URGENT_KINDS,
                status_label=REPORT_STATUS_LABELS.get(report.status, report.status),
                listing=listing or "Sin publicación indicada",
                received=format_date(report.created_at.astimezone(zone), "DD/MM/YYYY HH:mm"),
                age=time_ago(report.created_at, now),
            )
        )
    return recent


def staff_overview(*, session: Session, viewer_uid: str, now: datetime | None = None) -> StaffOverview:
    """The administrator's overview; ForbiddenError for anyone else (a secretary too)."""
    viewer = ensure_staff(session, viewer_uid, ADMIN_ONLY_MESSAGE)
    if viewer.profile_uid != ProfileId.ADMINISTRADOR:
        raise ForbiddenError(ADMIN_ONLY_MESSAGE)
    now = now or utc_now()
    by_status = _listing_counts(session)
    by_city, cities = _city_counts(session)
    queue_size, queue_oldest = _review_queue(session, now)
    is_new = Report.status == ReportStatus.NUEVO
    overview = StaffOverview(
        total_listings=sum(by_status.values()),
        published=by_status.get(ListingStatus.PUBLICADA, 0),
        by_status=bars((label, by_status.get(status, 0)) for status, label in LISTING_STATUS_LABELS.items()),
        by_city=by_city,
        cities_with_listings=cities,
        by_tier=_tier_counts(session),
        queue_size=queue_size,
        queue_oldest_age=queue_oldest,
        pending_verifications=_count(
            session, ListingVerification.uid, ListingVerification.status == VerificationStatus.SOLICITADA
        ),
        pending_upgrades=_count(session, ListingUpgrade.uid, ListingUpgrade.status == UpgradeStatus.SOLICITADA),
        new_reports=_count(session, Report.uid, is_new),
        urgent_new_reports=_count(session, Report.uid, is_new, Report.kind.in_(URGENT_KINDS)),
        recent_reports=_recent_reports(session, now),
    )
    overview.headlines = headlines(overview)
    return overview
