"""Favourites on the real databases: the account copy only for those who choose it, each user's rows their
own, turning it off deletes them, the advertiser's count says how many and never who; the Favoritas page's
card route answers from public data with nothing kept or logged; the handlers keep the list out of the state."""

from __future__ import annotations

import json
import logging

import pytest
from sqlmodel import Session, select
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.core.errors import ConflictError, InvalidInputError
from app.db import make_engine
from app.models import Favourite, FavouritesInAccount, ListingStatus, ProfileId, User
from app.services import favourites, my_listings
from app.services.users import create_user
from app.settings import get_settings
from app.states.favourites import FavouritesState
from app.web.api import build_api
from tests.factories import actor_of, make_listing, make_owner, open_session
from tests.handlers import client_states, invoke, script_of

pytestmark = pytest.mark.integration


def _visitor(db: Session, email: str) -> User:
    public = create_user(
        session=db, data={"email": email, "display_name": "Visitante", "profile_uid": ProfileId.CLIENTE.value}
    )
    return db.get(User, public.uid)


@pytest.fixture
def listings(db: Session) -> dict[str, str]:
    owner = make_owner(db, "duena-favoritas@example.cl")
    made = {
        "ana": make_listing(db, owner, name="Ana", city="temuco"),
        "bea": make_listing(db, owner, name="Bea", city="temuco"),
        "pausada": make_listing(db, owner, name="Pausada", city="temuco", status=ListingStatus.PAUSADA.value),
    }
    return {key: listing.uid for key, listing in made.items()}


def _rows(db: Session, user: User) -> list[str]:
    db.expire_all()
    return sorted(db.exec(select(Favourite.listing_uid).where(Favourite.user_uid == user.uid)).all())


def test_nothing_is_kept_in_an_account_until_its_user_chooses_it(db, listings):
    visitor = _visitor(db, "sin-cuenta@correo.cl")
    actor = actor_of(visitor)
    assert favourites.account_favourites(session=db, actor=actor) == favourites.AccountFavourites(False, [])
    with pytest.raises(ConflictError):
        favourites.replace_account_list(session=db, actor=actor, uids=[listings["ana"]])
    assert favourites.merge_into_account(session=db, actor=actor, uids=[listings["ana"]]) is None
    assert _rows(db, visitor) == [] and db.get(FavouritesInAccount, visitor.uid) is None


def test_keeping_merges_the_device_list_and_turning_it_off_deletes_every_row(db, listings):
    visitor, other = _visitor(db, "con-cuenta@correo.cl"), _visitor(db, "otra@correo.cl")
    actor = actor_of(visitor)
    favourites.keep_in_account(session=db, actor=actor_of(other), uids=[listings["ana"]])

    kept = favourites.keep_in_account(session=db, actor=actor, uids=[listings["bea"], "NoExiste123"])
    assert kept == [listings["bea"]]  # a uid that names no listing is not stored
    merged = favourites.merge_into_account(session=db, actor=actor, uids=[listings["pausada"]])
    assert merged == [listings["pausada"], listings["bea"]]
    assert favourites.account_favourites(session=db, actor=actor).uids == merged

    assert favourites.replace_account_list(session=db, actor=actor, uids=[listings["ana"]]) == [listings["ana"]]
    assert _rows(db, visitor) == [listings["ana"]]

    favourites.stop_keeping(session=db, actor=actor)
    assert _rows(db, visitor) == [] and db.get(FavouritesInAccount, visitor.uid) is None
    # The other user's copy is theirs alone: untouched.
    assert _rows(db, other) == [listings["ana"]]
    assert favourites.account_favourites(session=db, actor=actor_of(other)).uids == [listings["ana"]]


def test_bad_lists_are_refused_and_change_nothing(db, listings):
    visitor = _visitor(db, "lista-mala@correo.cl")
    actor = actor_of(visitor)
    favourites.keep_in_account(session=db, actor=actor, uids=[listings["ana"]])
    for bad in ("ana", [1], ["a b"], ["x" * 41], [listings["bea"]] * 2 + ["<script>"], ["a"] * 201):
        with pytest.raises(InvalidInputError):
            favourites.replace_account_list(session=db, actor=actor, uids=bad)
    assert _rows(db, visitor) == [listings["ana"]]
    assert favourites.clean_uids([listings["ana"], listings["ana"]]) == [listings["ana"]]


def test_the_advertiser_sees_how_many_accounts_keep_a_listing_never_who(db, listings):
    owner_uid = db.exec(select(User.uid).where(User.email == "duena-favoritas@example.cl")).one()
    for n in range(3):
        favourites.keep_in_account(
            session=db, actor=actor_of(_visitor(db, f"fan{n}@correo.cl")), uids=[listings["ana"]]
        )
    counts = favourites.saves_by_listing(session=db, listing_uids=list(listings.values()))
    assert counts == {listings["ana"]: 3}
    rows = {row.uid: row for row in my_listings.list_my_listings(session=db, owner_uid=owner_uid)}
    assert rows[listings["ana"]].saves == 3 and rows[listings["bea"]].saves == 0
    shown = rows[listings["ana"]].model_dump_json()
    assert "fan0" not in shown and "correo.cl" not in shown


def test_a_deleted_listing_leaves_the_account_lists(db, listings, storage):
    visitor = _visitor(db, "borrada@correo.cl")
    favourites.keep_in_account(session=db, actor=actor_of(visitor), uids=[listings["ana"], listings["bea"]])
    owner_uid = db.exec(select(User.uid).where(User.email == "duena-favoritas@example.cl")).one()
    my_listings.delete_listing(session=db, storage=storage, owner_uid=owner_uid, uid=listings["bea"])
    assert _rows(db, visitor) == [listings["ana"]]


def test_saved_cards_keep_the_order_and_name_the_gone_ones(db, listings):
    uids = [listings["bea"], listings["pausada"], "NoExiste123", listings["ana"]]
    saved = favourites.saved_cards(session=db, uids=uids)
    assert [card.display_name for card in saved.cards] == ["Bea", "Ana"]
    assert saved.gone == [listings["pausada"], "NoExiste123"]


@pytest.fixture
def client(app_database, listings, tmp_path, monkeypatch) -> TestClient:
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    get_settings.cache_clear()
    with TestClient(build_api(reflex_app), base_url="http://localhost") as test_client:
        yield test_client


def test_the_card_route_answers_public_cards_and_keeps_nothing(client, listings, caplog):
    caplog.set_level(logging.DEBUG)
    ids = [listings["ana"], listings["pausada"]]
    response = client.post("/favoritas/tarjetas", json={"ids": ids})
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store" and "set-cookie" not in response.headers
    html = response.text
    assert '<h3 class="card-name">Ana</h3>' in html and "Pausada" not in html
    assert f'data-favorita="{listings["ana"]}"' in html and 'aria-pressed="false"' in html
    assert "Esta publicación ya no está disponible." in html and f'data-favorita="{listings["pausada"]}"' in html
    assert not any(uid in record.getMessage() for record in caplog.records for uid in ids)
    # The name the device kept names the one gone.
    named = client.post("/favoritas/tarjetas", json={"ids": ids, "names": {listings["pausada"]: "Pausada <b>"}})
    assert "Pausada &lt;b&gt; — ya no está disponible" in named.text

    empty = client.post("/favoritas/tarjetas", json={"ids": []})
    assert "Aún no tienes favoritas" in empty.text


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        (b'{"ids": ["a b"]}', "application/json", 400),
        (b"no es json", "application/json", 400),
        (b'["sin-objeto"]', "application/json", 400),
        (b"ids=abc", "application/x-www-form-urlencoded", 415),
        (b'{"ids": ["a1"], "names": ["Ana"]}', "application/json", 400),
        (json.dumps({"ids": ["a" * 40] * 2000}).encode(), "application/json", 413),
    ],
)
def test_the_card_route_refuses_bad_input(client, body, content_type, status):
    response = client.post("/favoritas/tarjetas", content=body, headers={"Content-Type": content_type})
    assert response.status_code == status and response.text  # a Spanish message
    assert client.get("/favoritas/tarjetas").status_code in (404, 405)


def test_the_handlers_move_the_list_as_arguments_never_into_the_state(app_database, listings):
    engine = make_engine(app_database)
    with Session(engine, expire_on_commit=False) as session:
        visitor = _visitor(session, "handlers@correo.cl")
        token = open_session(session, visitor.uid)
    state, _ = client_states(FavouritesState, token)

    events = invoke(state, "toggle_in_account")  # off: asks the browser for its list
    assert "window.favoritas.reading()" in script_of(events) and not state.in_account
    events = invoke(state, "keep_in_account", uids=[listings["ana"]])
    assert state.in_account and listings["ana"] in script_of(events)
    invoke(state, "store", uids=[listings["ana"], listings["bea"]])
    events = invoke(state, "load_account")
    assert "joining" in script_of(events)
    events = invoke(state, "join_device", uids=None)
    assert listings["bea"] in script_of(events)
    stored = str(state.dict())  # everything the tab's state would persist
    assert listings["ana"] not in stored and listings["bea"] not in stored

    invoke(state, "toggle_in_account")  # on: deleted from the account
    assert not state.in_account
    with Session(engine) as session:
        assert session.exec(select(Favourite).where(Favourite.user_uid == visitor.uid)).all() == []
    engine.dispose()
