"""The directory's card pages and listing details (app.services.directory_cards, read by app.states.public and
app.web.seo_api) from the versioned page cache (app.services.page_cache): a second identical load runs no SQL at all;
a publication, a pause, a take-down, a ban, an approved edit, a renamed service and a tier change made through
the app's services show at the very next load; every input (section, city, tab, page, grouping, page size) is
its own entry, so pages never mix; and what a page does with its cards or detail never reaches the cache."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import timedelta

import pytest
from reflex_base.constants import RouteVar
from sqlalchemy import event
from sqlmodel import Session, select

from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import AdvertiserService, Listing, ProfileId, Section, utc_now
from app.models.filter_tabs import DEFAULT_TAB, TABS_BY_SLUG
from app.services import directory_cards, listing_drafts, listing_revisions, listings, my_listings, page_cache, upgrades
from app.services.staff import catalogues, reviews
from app.services.staff import listings as staff_listings
from app.services.staff import users as staff_users
from app.services.users import create_user
from app.settings import get_settings
from app.states.auth import FLASH_MESSAGES, AuthState
from app.states.public import DirectoryState
from tests.factories import (
    actor_of,
    make_listing,
    make_owner,
    make_staff,
    make_wizard_catalogue,
    tier_upgrade,
    wizard_steps,
)
from tests.handlers import client_states, invoke, run_async
from tests.waits import wait_for_counts

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
        staff = make_staff(session, "revisora@example.cl", ProfileId.SECRETARIA)
    assert _names(_cards()) == ["Antonia", "Camila", "Bernarda"]
    assert "Fernanda" not in [card.display_name for card in run_async(directory_cards.featured(MUJERES))]
    with Session(get_engine()) as session:
        reviews.approve_listing(session=session, actor=actor_of(staff), listing_uid=pending.uid)
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
        diamante = tier_upgrade(session, "diamante", name="Subir a Diamante", price_clp=59990)
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
            actor=actor_of(admin),
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
    assert len({(*tuple(_names(result)), result.page) for result in expected}) == len(inputs)
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
    with pytest.raises(FrozenInstanceError):  # every visitor shares the cached cards: none can change one
        first.cards[0].display_name = "Cambiada"
    assert isinstance(first.cards[0].photos, tuple)
    first.cards.append(first.cards[1])  # the list is the caller's own
    featured = run_async(directory_cards.featured(MUJERES))
    featured.clear()
    assert _cards() == expected
    assert run_async(directory_cards.featured(MUJERES))[0].photos


def _visitor(path: str) -> DirectoryState:
    state, _ = client_states(DirectoryState)
    root = state._get_root_state()
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path, RouteVar.QUERY: {}}, {})
    return state


def test_an_anonymous_load_leaves_the_session_state_unchanged_and_a_flash_notice_is_shown_once(site):
    visitor = _visitor(f"/escorts/{CITY}")
    auth = visitor._get_root_state().get_substate(AuthState.get_full_name().split("."))
    invoke(visitor, "load")
    assert visitor.view == "city"
    assert not auth.dirty_vars  # nothing for the page to store, nor (with Redis) to write back
    auth.flash = "clave-cambiada"
    auth._clean()
    events = invoke(visitor, "load")
    assert auth.flash == "" and "flash" in auth.dirty_vars
    assert any(FLASH_MESSAGES["clave-cambiada"] in str(event) for event in events)


def test_the_city_page_and_its_paging_query_once_for_every_visitor(site, monkeypatch):
    monkeypatch.setenv("PAGE_SIZE", "2")
    get_settings.cache_clear()
    first = _visitor(f"/escorts/{CITY}")
    invoke(first, "load")
    invoke(first, "next_page")
    with Statements() as statements:
        second = _visitor(f"/escorts/{CITY}")
        invoke(second, "load")
        assert [card.display_name for group in second.groups for card in group.cards] == ["Antonia", "Camila"]
        invoke(second, "next_page")
        assert [card.display_name for group in second.groups for card in group.cards] == ["Bernarda"]
        assert (second.page, second.page_count, second.total) == (2, 2, 3)
    assert statements.count == 0
    assert first.tab_slug == second.tab_slug == DEFAULT_TAB.slug


def _go(state: DirectoryState, path: str) -> set[str]:
    """A client-side navigation of the tab to ``path``: the vars its update sends."""
    root = state._get_root_state()
    root.router_data = root._update_router_vars({RouteVar.PATH: path, RouteVar.ORIGIN: path, RouteVar.QUERY: {}}, {})
    state._clean()
    invoke(state, "load")
    return set(state.dirty_vars)


def test_back_from_a_listing_sends_the_view_and_not_the_list_again(site):
    _, shown = site
    tab = _visitor(f"/escorts/{CITY}")
    invoke(tab, "load")
    cards = tab.groups
    detail = listings.listing_path(section=MUJERES, city_slug=CITY, name_slug="antonia", uid=shown["Antonia"].uid)
    opened = _go(tab, detail)
    wait_for_counts()  # the view it counted
    assert tab.view == "detail" and tab.detail.display_name == "Antonia"
    assert {"view", "detail"} <= opened and not opened & {"groups", "cards", "tabs", "chips", "total"}
    back = _go(tab, f"/escorts/{CITY}")
    assert tab.view == "city" and tab.detail is None and tab.groups == cards
    assert {"view", "detail"} <= back
    assert not back & {"groups", "cards", "tabs", "total", "chips", "services", "commune_options", "draft_total"}
    other = _go(tab, f"/escorts/{OTHER_CITY}")
    assert {"groups", "city_slug", "tabs"} <= other
    assert [card.display_name for group in tab.groups for card in group.cards] == ["Elena"]


@pytest.fixture
def antonia(site) -> str:
    """Antonia's uid; her listing offers two services of the catalogue ("Masajes" and "Cena")."""
    _, shown = site
    with Session(get_engine()) as session:
        offered = [AdvertiserService(name=name) for name in ("Masajes", "Cena")]
        session.add_all(offered)
        session.flush()
        listing = session.get(Listing, shown["Antonia"].uid)
        listing_revisions.set_services(session, listing, [s.uid for s in offered])
        session.commit()
    return shown["Antonia"].uid


def _staff(email: str = "revisora@example.cl", profile: ProfileId = ProfileId.SECRETARIA):
    with Session(get_engine(), expire_on_commit=False) as session:
        return make_staff(session, email, profile)


def _detail(uid: str):
    return run_async(directory_cards.detail(uid))


def _uncached_detail(uid: str):
    with Session(get_engine()) as session:
        return listings.public_listing(session=session, uid=uid)


def test_a_second_detail_load_runs_no_sql_and_listings_never_mix(site, antonia):
    _, shown = site
    with Statements() as first:
        detail = _detail(antonia)
    assert first.count > 0
    with Statements() as second:
        assert _detail(antonia) == detail
    assert second.count == 0
    assert detail == _uncached_detail(antonia)
    assert (detail.display_name, detail.services, detail.rates) == (
        "Antonia",
        ("Cena", "Masajes"),
        (("1 hora", "$80.000"),),
    )
    assert _detail(shown["Bernarda"].uid) == _uncached_detail(shown["Bernarda"].uid)
    assert _detail(shown["Bernarda"].uid).display_name == "Bernarda"


def test_a_paused_taken_down_or_banned_listing_is_missing_at_the_next_detail_load(site, antonia):
    owner, shown = site
    staff = _staff()
    assert _detail(antonia).display_name == "Antonia"
    with Session(get_engine()) as session:
        my_listings.pause_listing(session=session, owner_uid=owner.uid, uid=antonia)
    assert _detail(antonia) is None
    with Session(get_engine()) as session:
        my_listings.resume_listing(session=session, owner_uid=owner.uid, uid=antonia)
    assert _detail(antonia).display_name == "Antonia"
    with Session(get_engine()) as session:
        staff_listings.unpublish_listing(session=session, actor=actor_of(staff), uid=antonia, reason="Fotos ajenas")
    assert _detail(antonia) is None
    assert _detail(shown["Bernarda"].uid).display_name == "Bernarda"
    with Session(get_engine()) as session:
        staff_users.set_ban(
            session=session,
            provider=LocalProvider(engine=get_engine()),
            actor=actor_of(staff),
            user_uid=owner.uid,
            banned=True,
        )
    assert _detail(shown["Bernarda"].uid) is None


def test_an_approved_edit_shows_at_the_next_detail_load_and_a_pending_one_does_not(site, antonia):
    owner, _ = site
    with Session(get_engine()) as session:
        catalogue = make_wizard_catalogue(session)
    staff = _staff()
    before = _detail(antonia)
    steps = {**wizard_steps(catalogue, CITY), 2: {"city_slug": CITY, "commune": "Temuco", "section": MUJERES}}
    values = dict(steps[4], display_name="Antonia Nueva")
    with Session(get_engine()) as session:
        for step in (1, 2, 3):  # what sending to review checks: the owner's identity, a commune of Temuco
            listing_drafts.save_step(session=session, owner_uid=owner.uid, uid=antonia, step=step, values=steps[step])
        listing_drafts.save_step(
            session=session, owner_uid=owner.uid, uid=antonia, step=4, values=values, services=catalogue["services"][:1]
        )
        listing_drafts.send_to_review(session=session, owner_uid=owner.uid, uid=antonia)
    assert _detail(antonia) == before
    with Session(get_engine()) as session:
        reviews.approve_listing(session=session, actor=actor_of(staff), listing_uid=antonia)
    after = _detail(antonia)
    assert (after.display_name, after.description, after.services) == (
        "Antonia Nueva",
        values["description"],
        ("Servicio 0",),
    )
    assert after == _uncached_detail(antonia)


def test_a_renamed_service_shows_at_the_next_detail_load(site, antonia):
    admin = _staff("admin@example.cl", ProfileId.ADMINISTRADOR)
    assert _detail(antonia).services == ("Cena", "Masajes")
    with Session(get_engine()) as session:
        masajes = session.exec(select(AdvertiserService).where(AdvertiserService.name == "Masajes")).one()
        catalogues.update_entry(
            session=session,
            actor=actor_of(admin),
            catalogue=catalogues.ADVERTISER_SERVICES,
            uid=masajes.uid,
            data={"name": "Masaje relajante"},
        )
    assert _detail(antonia).services == ("Cena", "Masaje relajante")


def test_what_a_page_does_with_its_detail_never_reaches_the_cache(site, antonia):
    expected = _uncached_detail(antonia)
    for _round in range(2):  # the first detail is the one stored, the second one served from the cache
        detail = _detail(antonia)
        with pytest.raises(FrozenInstanceError):
            detail.display_name = "Cambiada"
        assert all(isinstance(value, tuple) for value in (detail.photos, detail.services, detail.rates, detail.clips))
    assert _detail(antonia) == expected


def test_the_detail_page_says_no_disponible_at_once_after_a_pause(site, antonia):
    owner, _ = site
    url = _detail(antonia).url
    first = _visitor(url)
    invoke(first, "load")
    assert (first.view, first.heading, first.detail.uid) == ("detail", "Antonia", antonia)
    with Session(get_engine()) as session:
        my_listings.pause_listing(session=session, owner_uid=owner.uid, uid=antonia)
    second = _visitor(url)
    invoke(second, "load")
    assert (second.view, second.heading) == ("missing", "Publicación no disponible")
    wait_for_counts()
