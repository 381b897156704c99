"""The administrator's overview (/admin/escorts) on both databases: the figures of a small seeded directory,
grouped counts that cost the same whatever the number of listings, and only administrators let in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event
from sqlmodel import Session

from app.core.errors import ForbiddenError
from app.models import (
    AppService,
    ListingReview,
    ListingUpgrade,
    ListingVerification,
    ProfileId,
    Report,
    ReviewDecision,
    Section,
    UpgradeStatus,
    User,
    VerificationStatus,
    utc_now,
)
from app.routes import ADMIN_REVIEW_QUEUE
from app.services.staff import review_queue
from app.services.staff.overview import RECENT_REPORTS, bars, staff_overview, time_ago
from app.services.users import create_user
from app.states.staff.overview import StaffOverviewState
from tests.factories import actor_of, claiming_staff, make_listing, make_owner, open_session
from tests.handlers import client_states, invoke


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


def _user(db: Session, email: str, profile: ProfileId) -> User:
    public = create_user(session=db, data={"email": email, "display_name": email.split("@")[0], "profile_uid": profile})
    return db.get(User, public.uid)


@pytest.fixture
def admin(db) -> User:
    return _user(db, "jefa@example.cl", ProfileId.ADMINISTRADOR)


@pytest.fixture
def directory(db):
    """Listings in every status, three cities and three tiers; a review queue, requests and reports."""
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    other = make_owner(db, "otra@example.cl")
    published = [
        ("santiago-de-chile", "platino"),
        ("santiago-de-chile", "platino"),
        ("santiago-de-chile", "diamante"),
        ("temuco", "ruby"),
        ("temuco", "ruby"),
    ]
    listings = [
        make_listing(db, owner, name=f"Pública {i}", city=city, tier=tier) for i, (city, tier) in enumerate(published)
    ]
    listings.append(make_listing(db, other, name="Trans", city="valparaiso", section=Section.TRANS.value, tier="ruby"))
    pending = [make_listing(db, owner, name=f"Espera {i}", city="temuco", status="pendiente") for i in range(2)]
    others = {
        status: make_listing(db, other, name=status.title(), city="temuco", status=status, tier="diamante")
        for status in ("borrador", "rechazada", "pausada", "expirada")
    }
    make_listing(db, other, name="Vacía", status="borrador", city=None)
    # Two listings wait in the queue; a decided review is not waiting, nor are the pending reviews left on
    # a rejected and an expired listing (the queue page leaves them out too).
    db.add_all(
        [
            ListingReview(listing_uid=pending[0].uid, created_at=now - timedelta(hours=3, minutes=20)),
            ListingReview(listing_uid=pending[1].uid, created_at=now - timedelta(minutes=40)),
            ListingReview(listing_uid=others["rechazada"].uid, created_at=now - timedelta(hours=5)),
            ListingReview(listing_uid=others["expirada"].uid, created_at=now - timedelta(hours=6)),
            ListingReview(
                listing_uid=listings[0].uid,
                decision=ReviewDecision.APROBADA,
                created_at=now - timedelta(days=5),
                decided_at=now - timedelta(days=4),
            ),
        ]
    )
    db.add_all(
        [
            ListingVerification(listing_uid=listings[0].uid, owner_uid=owner.uid),
            ListingVerification(listing_uid=listings[1].uid, owner_uid=owner.uid, status=VerificationStatus.APROBADA),
        ]
    )
    service = AppService(name="VIP", price_clp=19990, duration_days=15, effect="vip")
    db.add(service)
    db.flush()
    for listing, status in ((listings[0], UpgradeStatus.SOLICITADA), (listings[1], UpgradeStatus.ACTIVA)):
        db.add(
            ListingUpgrade(
                listing_uid=listing.uid,
                app_service_uid=service.uid,
                requested_by_uid=owner.uid,
                status=status,
                amount_clp=19990,
            )
        )
    # Twelve reports, one per hour; the newest is about trafficking, the third newest about a minor.
    kinds = ["trata", "otro", "menor"] + ["sin_consentimiento"] * 9
    statuses = ["nuevo", "nuevo", "en_revision"] + ["cerrado"] * 8 + ["nuevo"]
    for hours, (kind, status) in enumerate(zip(kinds, statuses, strict=True)):
        db.add(
            Report(
                kind=kind,
                status=status,
                listing_uid=listings[3].uid if hours == 0 else None,
                message=f"Mensaje {hours}",
                contact="no-mostrar@example.cl",
                created_at=now - timedelta(hours=hours, minutes=5),
            )
        )
    db.commit()
    return now


def _figures(chart) -> list[tuple[str, int]]:
    return [(bar.label, bar.count) for bar in chart]


def test_the_overview_counts_the_directory(db, admin, directory):
    overview = staff_overview(session=db, actor=actor_of(admin), now=directory)
    assert _figures(overview.by_status) == [
        ("Borrador", 2),
        ("En revisión", 2),
        ("Publicada", 6),
        ("Rechazada", 1),
        ("Pausada", 1),
        ("Expirada", 1),
    ]
    assert overview.total_listings == 13 and overview.published == 6
    # Published listings only, the busiest city first; both sections count.
    assert _figures(overview.by_city) == [("Santiago de Chile", 3), ("Temuco", 2), ("Valparaíso", 1)]
    assert overview.cities_with_listings == 3
    # Every tier in its order on the city page, published listings only.
    assert _figures(overview.by_tier) == [("Diamante", 1), ("Ruby", 3), ("Platino", 2), ("Chicas del día", 0)]
    assert [bar.percent for bar in overview.by_tier] == [33, 100, 67, 0]
    # Two listings and one verification request: the queue page's own total.
    assert overview.queue_size == 3 and overview.queue_oldest_age == "hace 3 horas"
    assert overview.queue_size == review_queue.list_queue(session=db, actor=actor_of(admin), now=directory).total
    assert overview.pending_verifications == 1 and overview.pending_upgrades == 1
    assert overview.new_reports == 3 and overview.urgent_new_reports == 1


def test_the_key_figures_say_how_old_the_queue_is_and_where_to_act(db, admin, directory):
    headlines = {h.label: h for h in staff_overview(session=db, actor=actor_of(admin), now=directory).headlines}
    assert headlines["Publicaciones"].figure == "13"
    assert headlines["Publicaciones"].note == "6 publicadas en 3 ciudades"
    queue = headlines["Por revisar"]
    assert (queue.figure, queue.note, queue.href, queue.alert) == (
        "3",
        "La más antigua llegó hace 3 horas",
        ADMIN_REVIEW_QUEUE,
        True,
    )
    assert headlines["Reportes nuevos"].note == "1 de posible trata o menores de edad"
    assert headlines["Reportes nuevos"].alert


def test_the_recent_reports_are_the_newest_ten_with_trafficking_and_minors_marked(db, admin, directory):
    reports = staff_overview(session=db, actor=actor_of(admin), now=directory).recent_reports
    assert len(reports) == RECENT_REPORTS
    assert [r.urgent for r in reports[:4]] == [True, False, True, False]
    assert reports[0].kind_label == "Posible trata de personas o explotación"
    assert reports[0].listing == "Pública 3 · Temuco"
    assert reports[1].listing == "Sin publicación indicada"
    assert [r.status_label for r in reports[:3]] == ["Nueva", "Nueva", "En curso"]
    assert reports[0].age == "hace 5 minutos" and reports[2].age == "hace 2 horas"
    assert "no-mostrar@example.cl" not in str(reports) and "Mensaje" not in str(reports)


def test_an_empty_directory_has_zeros_and_no_queue_age(db, admin):
    overview = staff_overview(session=db, actor=actor_of(admin))
    assert {bar.count for bar in overview.by_status} == {0}
    assert overview.by_city == [] and overview.recent_reports == []
    assert overview.queue_size == 0 and overview.queue_oldest_age == ""
    assert [h.note for h in overview.headlines if h.label == "Por revisar"] == ["Nada en espera"]


def test_the_cost_does_not_grow_with_the_listings(db, admin, directory):
    """Grouped counts: the same statements, however many listings there are."""
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        statements.append(statement)

    engine = db.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        staff_overview(session=db, actor=actor_of(admin))
        before = len(statements)
        owner = make_owner(db, "mas@example.cl")
        for i in range(30):
            make_listing(db, owner, name=f"Más {i}", city="osorno", photos=0)
        statements.clear()
        overview = staff_overview(session=db, actor=actor_of(admin))
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(statements) == before
    assert ("Osorno", 30) in _figures(overview.by_city)


@pytest.mark.parametrize("profile", [ProfileId.SECRETARIA, ProfileId.PROFESOR, ProfileId.CLIENTE])
def test_only_an_administrator_sees_the_overview(db, profile):
    caller = _user(db, f"{profile.value}@example.cl", profile)
    with pytest.raises(ForbiddenError):
        staff_overview(session=db, actor=actor_of(caller))
    for nobody in ("", "no-existe", None):
        with pytest.raises(ForbiddenError):
            staff_overview(session=db, actor=claiming_staff(nobody))


def test_a_banned_administrator_is_refused(db):
    banned = _user(db, "vetada@example.cl", ProfileId.ADMINISTRADOR)
    banned.ban = True
    db.add(banned)
    db.commit()
    with pytest.raises(ForbiddenError):
        staff_overview(session=db, actor=actor_of(banned))


def test_the_page_loader_fills_the_overview_for_an_administrator_and_refuses_a_secretary(db, admin, directory):
    state, _ = client_states(StaffOverviewState, open_session(db, admin.uid))
    invoke(state, "open_page")
    assert state.loaded and state.overview.queue_size == 3 and state.overview.published == 6

    secretary = _user(db, "secre@example.cl", ProfileId.SECRETARIA)
    state, _ = client_states(StaffOverviewState, open_session(db, secretary.uid))
    invoke(state, "open_page")
    assert not state.loaded and state.overview.total_listings == 0


def test_time_ago_in_spanish():
    now = utc_now()
    assert time_ago(now, now) == "hace un momento"
    assert time_ago(now - timedelta(seconds=59), now) == "hace un momento"
    assert time_ago(now - timedelta(minutes=1), now) == "hace 1 minuto"
    assert time_ago(now - timedelta(hours=3, minutes=59), now) == "hace 3 horas"
    assert time_ago(now - timedelta(days=1, hours=5), now) == "hace 1 día"
    assert time_ago(now - timedelta(days=12), now) == "hace 12 días"
    assert time_ago(now + timedelta(minutes=5), now) == "hace un momento"  # a clock a little ahead


def test_bars_are_sized_against_the_longest():
    assert [(b.figure, b.percent) for b in bars([("a", 0), ("b", 1), ("c", 1500)])] == [
        ("0", 0),
        ("1", 1),
        ("1.500", 100),
    ]
    assert bars([]) == []
