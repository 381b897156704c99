"""Public listing queries on both databases: visibility, tier order, every
filter tab's rule, sections, paging and the detail."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, col, select

from app.db import make_engine
from app.models import AdvertiserService, Listing, ListingPhoto, ListingService, Section, User, utc_now
from app.models.filter_tabs import FILTER_TABS, TABS_BY_SLUG, tab_by_slug
from app.services import listings
from tests.factories import make_listing, make_owner

CITY = "valparaiso"


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request) -> Session:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    engine = make_engine(url)
    with Session(engine, expire_on_commit=False) as session:
        yield session
    engine.dispose()


def _names(page) -> list[str]:
    return [card.display_name for card in page.cards]


def _tab(db, slug, **kwargs):
    return listings.city_cards(
        session=db, section=Section.MUJERES.value, city_slug=CITY, tab=TABS_BY_SLUG[slug], **kwargs
    )


def test_only_published_listings_of_active_unbanned_owners_are_public(db):
    owner = make_owner(db, "ok@example.cl")
    banned = make_owner(db, "ban@example.cl", ban=True)
    inactive = make_owner(db, "off@example.cl", activo=False)
    visible = make_listing(db, owner, name="Visible", city=CITY)
    for status in ("borrador", "pendiente", "rechazada", "pausada", "expirada"):
        make_listing(db, owner, name=status.title(), city=CITY, status=status)
    hidden_banned = make_listing(db, banned, name="Baneada", city=CITY)
    make_listing(db, inactive, name="Inactiva", city=CITY)
    assert _names(_tab(db, "todas")) == ["Visible"]
    assert [c.display_name for c in listings.featured_cards(session=db, section=Section.MUJERES.value)] == ["Visible"]
    assert listings.public_listing(session=db, uid=visible.uid) is not None
    assert listings.public_listing(session=db, uid=hidden_banned.uid) is None
    assert listings.public_listing(session=db, uid="no-existe") is None


def test_a_listing_follows_its_owner_out_of_sight_and_back_whatever_statement_writes_it(db):
    """publicacion.owner_hidden is the database's to keep (migration 0016's triggers), not the services'."""
    owner = make_owner(db, "ok@example.cl")
    inactive = make_owner(db, "off@example.cl", activo=False)
    listing = make_listing(db, owner, name="Ana", city=CITY)

    def after(statement) -> list[str]:
        db.execute(statement)
        db.commit()
        return _names(_tab(db, "todas"))

    owner_row = update(User).where(col(User.uid) == owner.uid)
    listing_row = update(Listing).where(col(Listing.uid) == listing.uid)
    assert after(owner_row.values(ban=True)) == []
    assert listings.public_listing(session=db, uid=listing.uid) is None
    assert after(owner_row.values(ban=False)) == ["Ana"]
    assert after(owner_row.values(activo=False)) == []
    assert after(owner_row.values(activo=True, display_name="Otra")) == ["Ana"]
    assert after(listing_row.values(owner_uid=inactive.uid)) == []  # given a hidden owner
    assert after(listing_row.values(owner_uid=owner.uid)) == ["Ana"]
    assert after(listing_row.values(owner_hidden=True)) == ["Ana"]  # the column cannot be written against the owner
    assert db.exec(select(Listing.owner_hidden).where(Listing.uid == listing.uid)).one() is False


def test_city_page_groups_by_tier_in_the_fixed_order_newest_first(db):
    owner = make_owner(db, "o@example.cl")
    now = utc_now()
    make_listing(db, owner, name="Chica vieja", tier="chicas-del-dia", city=CITY, published_at=now - timedelta(days=3))
    make_listing(db, owner, name="Chica nueva", tier="chicas-del-dia", city=CITY, published_at=now - timedelta(days=1))
    make_listing(db, owner, name="Platino", tier="platino", city=CITY, published_at=now - timedelta(days=6))
    make_listing(db, owner, name="Ruby", tier="ruby", city=CITY, published_at=now - timedelta(days=5))
    make_listing(db, owner, name="Diamante", tier="diamante", city=CITY, published_at=now - timedelta(days=4))
    make_listing(db, owner, name="Otra ciudad", tier="diamante", city="temuco")
    page = _tab(db, "todas")
    assert _names(page) == ["Diamante", "Ruby", "Platino", "Chica nueva", "Chica vieja"]
    assert [c.tier_name for c in page.cards] == ["Diamante", "Ruby", "Platino", "Chicas del día", "Chicas del día"]
    flat = _tab(db, "todas", group_by_tier=False)
    assert _names(flat) == ["Chica nueva", "Chica vieja", "Diamante", "Ruby", "Platino"]


def test_every_filter_tab_selects_exactly_its_rule(db):
    owner = make_owner(db, "o@example.cl")
    now = utc_now()
    today = listings.clock(now).today
    make_listing(db, owner, name="Base", city=CITY, published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Nueva", city=CITY, published_at=now - timedelta(days=2))
    make_listing(db, owner, name="Diamante", city=CITY, tier="diamante", published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Ruby", city=CITY, tier="ruby", published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Estrella", city=CITY, porn_actress=True, published_at=now - timedelta(days=20))
    make_listing(
        db,
        owner,
        name="Visita",
        city=CITY,
        visiting_from=today - timedelta(days=1),
        visiting_until=today + timedelta(days=1),
        published_at=now - timedelta(days=20),
    )
    make_listing(
        db,
        owner,
        name="Visita pasada",
        city=CITY,
        visiting_from=today - timedelta(days=5),
        visiting_until=today - timedelta(days=1),
        published_at=now - timedelta(days=20),
    )
    make_listing(
        db,
        owner,
        name="Ahora",
        city=CITY,
        available_until=now + timedelta(hours=2),
        published_at=now - timedelta(days=20),
    )
    make_listing(
        db,
        owner,
        name="Antes",
        city=CITY,
        available_until=now - timedelta(minutes=1),
        published_at=now - timedelta(days=20),
    )
    make_listing(db, owner, name="Verificada", city=CITY, verified=True, published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Curvilínea", city=CITY, curvy=True, published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Madura", city=CITY, age=41, published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Treintañera", city=CITY, age=34, published_at=now - timedelta(days=20))
    make_listing(db, owner, name="Con video", city=CITY, has_video=True, published_at=now - timedelta(days=20))
    expected = {
        "lo-nuevo": {"Nueva"},
        "vip": {"Diamante", "Ruby"},
        "estrellas-xxx": {"Estrella"},
        "de-pasada": {"Visita"},
        "disponible-ahora": {"Ahora"},
        "verificadas": {"Verificada"},
        "culonas": {"Curvilínea"},
        "maduras": {"Madura"},
        "video": {"Con video"},
    }
    assert {tab.slug for tab in FILTER_TABS} == set(expected) | {"todas"}
    for slug, names in expected.items():
        page = _tab(db, slug, now=now)
        assert set(_names(page)) == names, slug
        assert page.total == len(names), slug
    assert _tab(db, "todas", now=now).total == 14


def test_sections_are_separate(db):
    owner = make_owner(db, "o@example.cl")
    make_listing(db, owner, name="Mujer", city=CITY)
    trans = make_listing(db, owner, name="Trans", city=CITY, section=Section.TRANS.value)
    trans_page = listings.city_cards(session=db, section=Section.TRANS.value, city_slug=CITY, tab=TABS_BY_SLUG["todas"])
    assert _names(trans_page) == ["Trans"]
    assert _names(_tab(db, "todas")) == ["Mujer"]
    assert trans_page.cards[0].url == f"/escorts/trans/{CITY}/trans-{trans.uid}"


def test_paging_returns_disjoint_pages_and_the_page_count(db):
    owner = make_owner(db, "o@example.cl")
    now = utc_now()
    for i in range(5):
        make_listing(db, owner, name=f"N{i}", city=CITY, published_at=now - timedelta(hours=i))
    pages = [_tab(db, "todas", page=p, page_size=2) for p in (1, 2, 3)]
    assert [_names(p) for p in pages] == [["N0", "N1"], ["N2", "N3"], ["N4"]]
    assert all(p.total == 5 and p.page_count == 3 for p in pages)
    assert _names(_tab(db, "todas", page=0, page_size=2)) == ["N0", "N1"]
    past_the_end = _tab(db, "todas", page=4, page_size=2)
    assert past_the_end.cards == [] and past_the_end.total == 5 and past_the_end.page_count == 3


def test_card_and_detail_content(db):
    owner = make_owner(db, "o@example.cl")
    now = utc_now()
    today = listings.clock(now).today
    listing = make_listing(
        db,
        owner,
        name="Antonella",
        city=CITY,
        price_hour_clp=85000,
        price_half_hour_clp=50000,
        photos=3,
        whatsapp="+56 9 8765 4321",
        verified=True,
        visiting_from=today,
        visiting_until=today + timedelta(days=2),
        available_until=now + timedelta(hours=1),
    )
    service = AdvertiserService(name="Masajes relajantes")
    db.add(service)
    db.flush()
    db.add(ListingService(listing_uid=listing.uid, service_uid=service.uid))
    db.commit()
    card = _tab(db, "todas", now=now).cards[0]
    assert card.price == "$85.000"
    assert card.url == f"/escorts/{CITY}/antonella/{listing.uid}"
    assert len(card.photos) == 3 and card.photos[0].startswith("/media/photos/")
    assert card.verified and card.available_now
    detail = listings.public_listing(session=db, uid=listing.uid, now=now)
    assert (detail.section, detail.city_slug, detail.city_name) == ("mujeres", CITY, "Valparaíso")
    assert detail.services == ("Masajes relajantes",)
    assert detail.rates == (("30 minutos", "$50.000"), ("1 hora", "$85.000"))
    assert detail.whatsapp_url.startswith("https://wa.me/56987654321?text=Hola%20Antonella")
    assert detail.tel_url == "tel:+56912345678"
    assert detail.visiting.startswith("De pasada del ")
    assert detail.available_until.startswith("Disponible ahora, hasta las ")


def test_a_card_and_the_detail_show_the_approved_photos_cover_first(db):
    owner = make_owner(db, "o@example.cl")
    listing = make_listing(db, owner, name="Ana", city=CITY, photos=0)
    make_listing(db, owner, name="Sin fotos", city=CITY, photos=0)
    for position, path, approved in (
        (11, "photos/k.jpg", True),  # inserted out of order; 11 sorts after 2 as a number, not as text
        (0, "photos/cover.jpg", True),
        (1, "photos/waiting.jpg", False),  # added to a published listing, not reviewed yet
        (2, "photos/with space.jpg", True),
    ):
        db.add(ListingPhoto(listing_uid=listing.uid, position=position, path=path, approved=approved))
    db.commit()
    expected = ("/media/photos/cover.jpg", "/media/photos/with%20space.jpg", "/media/photos/k.jpg")
    cards = {card.display_name: card.photos for card in _tab(db, "todas").cards}
    assert cards == {"Ana": expected, "Sin fotos": ()}
    assert [card.photos for card in listings.public_cards(session=db, uids=[listing.uid])] == [expected]
    assert listings.public_listing(session=db, uid=listing.uid).photos == expected


def test_unknown_tab_slug_is_none():
    assert tab_by_slug("no-existe") is None
    assert tab_by_slug(None) is None


def test_visiting_dates_use_the_chilean_calendar_day(db):
    owner = make_owner(db, "o@example.cl")
    # 02:00 UTC on 2026-11-21 is still 2026-11-20 in Santiago (UTC-3 in summer).
    from datetime import UTC, datetime

    late = datetime(2026, 11, 21, 2, 0, tzinfo=UTC)
    make_listing(db, owner, name="Ayer", city=CITY, visiting_from=date(2026, 11, 19), visiting_until=date(2026, 11, 20))
    assert listings.clock(late).today == date(2026, 11, 20)
    assert _names(_tab(db, "de-pasada", now=late)) == ["Ayer"]
