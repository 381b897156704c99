"""The directory's card pages (app.services.directory_cards, read by app.states.public) from the versioned page cache (app.services.page_cache):
a second identical load runs no SQL at all; a publication, a pause and a tier change made through the app's
services show at the very next load; every input (section, city, tab, page, grouping, page size) is its own
entry, so pages never mix; and what a page does with its cards never reaches the cache."""

from __future__ import annotations

from datetime import timedelta

import pytest
from reflex_base.constants import RouteVar
from sqlalchemy import event
from sqlmodel import Session

from app.db import get_engine
from app.models import AppService, ProfileId, Section, utc_now
from app.services import directory_cards, listings, my_listings, page_cache, reviews, upgrades
from app.services.filter_tabs import DEFAULT_TAB, TABS_BY_SLUG
from app.services.users import create_user
from app.settings import get_settings
from app.states.public import DirectoryState
from tests.factories import make_listing, make_owner, tier_of
from tests.handlers import client_states, invoke, run_async

pytestmark = pytest.mark.integration

CITY = "temuco"
OTHER_CITY = "valdivia"
MUJERES = Section.MUJERES.value
TRANS = Section.TRANS.value


@pytest.fixture
def site(app_database, monkeypatch):
    """This test's database without Redis, an empty cache, and an owner with three listings in Temuco
    (Antonia diamante and verified, Bernarda and Camila platino, Camila new), one trans there and one in Valdivia."""
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()
    monkeypatch.setattr(page_cache, "pages", page_cache.PageCache())
    now = utc_now()
    with Session(get_engine(), expire_on_commit=False) as session:
        owner = make_owner(session, "duena@example.cl")
        shown = {
            name: make_listing(
                session, owner, name=name, city=CITY, tier=tier, verified=verified, published_at=now - timedelta(days=d)
            )
            for name, tier, verified, d in (
                ("Antonia", "diamante", True, 12),
                ("Bernarda", "platino", False, 11),
                ("Camila", "platino", False, 2),
            )
        }
        shown["Dafne"] = make_listing(session, owner, name="Dafne", city=CITY, section=TRANS)
        shown["Elena"] = make_listing(session, owner, name="Elena", city=OTHER_CITY)
    return owner, shown


class Statements:
    """Counts the SQL statements the app's engine runs while inside ``with``."""

    def __init__(self) -> None:
        self.count = 0

    def _seen(self, *_args) -> None:
        self.count += 1

    def __enter__(self) -> Statements:
        event.listen(get_engine(), "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(get_engine(), "before_cursor_execute", self._seen)


def _cards(section: str = MUJERES, city: str = CITY, tab: str = "todas", page: int = 1, grouped: bool = True):
    return run_async(directory_cards.city_page(section, city, TABS_BY_SLUG[tab], page, grouped))


def _uncached(section: str = MUJERES, city: str = CITY, tab: str = "todas", page: int = 1, grouped: bool = True):
    with Session(get_engine()) as session:
        return listings.city_cards(
            session=session, section=section, city_slug=city, tab=TABS_BY_SLUG[tab], page=page, group_by_tier=grouped
        )


def _names(result: listings.CardPage) -> list[str]:
    return [card.display_name for card in result.cards]


def test_a_second_identical_load_runs_no_sql(site):
    with Statements() as first:
        cards = _cards()
        featured = run_async(directory_cards.featured(MUJERES))
    assert first.count > 0
    with Statements() as second:
        assert _cards() == cards
        assert run_async(directory_cards.featured(MUJERES)) == featured
    assert second.count == 0
    assert cards == _uncached()
    assert _names(cards) == ["Antonia", "Camila", "Bernarda"]


def test_a_published_listing_shows_at_the_next_load(site):
    owner, _ = site
    with Session(get_engine(), expire_on_commit=False) as session:
        pending = make_listing(session, owner, name="Fernanda", city=CITY, status="pendiente")
        staff = create_user(
            session=session,
            data={"email": "revisora@example.cl", "display_name": "Equipo", "profile_uid": "secretaria"},
        )
    assert _names(_cards()) == ["Antonia", "Camila", "Bernarda"]
    assert "Fernanda" not in [card.display_name for card in run_async(directory_cards.featured(MUJERES))]
    with Session(get_engine()) as session:
        reviews.approve_listing(session=session, reviewer_uid=staff.uid, listing_uid=pending.uid)
    assert "Fernanda" in _names(_cards())
    assert "Fernanda" in [card.display_name for card in run_async(directory_cards.featured(MUJERES))]


def test_a_paused_listing_leaves_at_the_next_load_and_comes_back(site):
    owner, shown = site
    assert "Antonia" in _names(_cards()) and "Antonia" in _names(_cards(tab="verificadas"))
    assert "Antonia" in [card.display_name for card in run_async(directory_cards.featured(MUJERES))]
    with Session(get_engine()) as session:
        my_listings.pause_listing(session=session, owner_uid=owner.uid, uid=shown["Antonia"].uid)
    assert _names(_cards()) == ["Camila", "Bernarda"]
    assert _names(_cards(tab="verificadas")) == []
    assert "Antonia" not in [card.display_name for card in run_async(directory_cards.featured(MUJERES))]
    with Session(get_engine()) as session:
        my_listings.resume_listing(session=session, owner_uid=owner.uid, uid=shown["Antonia"].uid)
    assert _names(_cards()) == ["Antonia", "Camila", "Bernarda"]


def test_a_tier_upgrade_shows_at_the_next_load(site):
    owner, shown = site
    with Session(get_engine(), expire_on_commit=False) as session:
        diamante = AppService(
            name="Subir a Diamante",
            price_clp=59990,
            duration_days=30,
            effect="nivel",
            tier_uid=tier_of(session, "diamante").uid,
        )
        session.add(diamante)
        session.commit()
        admin = create_user(
            session=session,
            data={"email": "admin@example.cl", "display_name": "Admin", "profile_uid": ProfileId.ADMINISTRADOR.value},
        )
        asked = upgrades.request_upgrade(
            session=session, owner_uid=owner.uid, listing_uid=shown["Bernarda"].uid, app_service_uid=diamante.uid
        )
    tiers = [(card.display_name, card.tier_slug) for card in _cards().cards]
    assert tiers == [("Antonia", "diamante"), ("Camila", "platino"), ("Bernarda", "platino")]
    now = utc_now()
    with Session(get_engine()) as session:
        upgrades.approve_upgrade(
            session=session,
            reviewer_uid=admin.uid,
            upgrade_uid=asked.uid,
            starts_at=now - timedelta(hours=1),
            ends_at=now + timedelta(days=30),
            payment_reference="Transferencia 123",
        )
    after = _cards()
    assert {card.display_name: card.tier_slug for card in after.cards} == {
        "Antonia": "diamante",
        "Bernarda": "diamante",
        "Camila": "platino",
    }
    assert _names(after)[-1] == "Camila"
    assert after == _uncached()


def test_sections_cities_tabs_pages_and_grouping_never_mix(site, monkeypatch):
    monkeypatch.setenv("PAGE_SIZE", "2")
    get_settings.cache_clear()
    inputs = [
        {},
        {"page": 2},
        {"grouped": False},
        {"grouped": False, "page": 2},
        {"tab": "verificadas"},
        {"tab": "lo-nuevo"},
        {"section": TRANS},
        {"city": OTHER_CITY},
    ]
    expected = [_uncached(**given) for given in inputs]
    assert len({tuple(_names(result)) + (result.page,) for result in expected}) == len(inputs)
    for _round in range(2):  # the second round is served from the cache
        for given, wanted in zip(inputs, expected, strict=True):
            assert _cards(**given) == wanted, given
    monkeypatch.setenv("PAGE_SIZE", "24")  # another page size is another entry
    get_settings.cache_clear()
    assert _names(_cards()) == ["Antonia", "Camila", "Bernarda"]
    assert _cards().page_count == 1


def test_what_a_page_does_with_its_cards_never_reaches_the_cache(site):
    first = _cards()
    expected = _uncached()
    first.cards[0].photos.append("/media/otra.webp")
    first.cards[0].display_name = "Cambiada"
    first.cards.append(first.cards[1])
    featured = run_async(directory_cards.featured(MUJERES))
    featured[0].photos.clear()
    featured.clear()
    assert _cards() == expected
    assert run_async(directory_cards.featured(MUJERES))[0].photos


def _city_page(path: str) -> DirectoryState:
    state, _ = client_states(DirectoryState)
    root = state._get_root_state()
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path, RouteVar.QUERY: {}}, {})
    return state


def test_the_city_page_and_its_paging_query_once_for_every_visitor(site, monkeypatch):
    monkeypatch.setenv("PAGE_SIZE", "2")
    get_settings.cache_clear()
    first = _city_page(f"/escorts/{CITY}")
    invoke(first, "load")
    invoke(first, "next_page")
    with Statements() as statements:
        second = _city_page(f"/escorts/{CITY}")
        invoke(second, "load")
        assert [card.display_name for group in second.groups for card in group.cards] == ["Antonia", "Camila"]
        invoke(second, "next_page")
        assert [card.display_name for group in second.groups for card in group.cards] == ["Bernarda"]
        assert (second.page, second.page_count, second.total) == (2, 2, 3)
    assert statements.count == 0
    assert first.tab_slug == second.tab_slug == DEFAULT_TAB.slug
