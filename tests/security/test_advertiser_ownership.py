"""A second advertiser cannot reach the first one's listings through any handler of the advertiser pages.

Each handler of MyListingsState and WizardState that takes a listing or photo
id is called, as the Reflex backend would, by another advertiser with the
first one's ids: each answers with the same "not found" notice, changes
nothing in the database and puts none of the listing's data in the caller's
state. The owner making the same call gets through, so the refusal is about
ownership, not a broken call.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import Session, SQLModel, select

from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import ListingPhoto, ListingStatus, ProfileId
from app.services.listing_photos import PHOTO_NOT_FOUND
from app.services.ownership import NOT_FOUND_MESSAGE
from app.states.advertiser.my_listings import MyListingsState
from app.states.advertiser.wizard import WizardState
from tests.factories import make_account, make_listing, open_session
from tests.handlers import client_states, invoke


def _snapshot() -> dict[str, list]:
    with Session(get_engine()) as session:
        return {
            table.name: sorted(map(repr, session.execute(text(f'SELECT * FROM "{table.name}"')).all()))
            for table in SQLModel.metadata.sorted_tables
        }


@pytest.fixture
def world(app_database, tmp_path, monkeypatch) -> dict:
    """Ana's published listing (with photos) and a session for Ana and one for Berta, both advertisers."""
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    provider = LocalProvider(engine=get_engine())
    with Session(get_engine(), expire_on_commit=False) as session:
        ana = make_account(session, provider, "ana@correo.cl", profile=ProfileId.PROFESOR)
        berta = make_account(session, provider, "berta@correo.cl", profile=ProfileId.PROFESOR)
        listing = make_listing(session, ana, name="Ana Dueña")
        photo = session.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid)).first()
        return {
            "uid": listing.uid,
            "photo": photo.uid,
            "ana": open_session(session, ana.uid),
            "berta": open_session(session, berta.uid),
        }


def _calls(world: dict) -> list[tuple[type, str, dict, str]]:
    """(state, handler, arguments, the notice expected) for every handler taking a listing or photo id."""
    uid, photo = world["uid"], world["photo"]
    return [
        (MyListingsState, "pause", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "resume", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "renew", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "delete", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "make_available_now", {"form_data": {"uid": uid, "hours": "2"}}, NOT_FOUND_MESSAGE),
        (MyListingsState, "copy_to_city", {"form_data": {"uid": uid, "city_slug": "temuco"}}, NOT_FOUND_MESSAGE),
        (MyListingsState, "open_upgrades", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "open_verification", {"uid": uid}, NOT_FOUND_MESSAGE),
        (MyListingsState, "open_stats", {"uid": uid}, NOT_FOUND_MESSAGE),
        (WizardState, "move_photo", {"photo_uid": photo, "offset": 1}, PHOTO_NOT_FOUND),
        (WizardState, "make_cover", {"photo_uid": photo}, PHOTO_NOT_FOUND),
        (WizardState, "delete_photo", {"photo_uid": photo}, PHOTO_NOT_FOUND),
    ]


def test_another_advertiser_gets_not_found_and_changes_nothing(world):
    for state_cls, name, kwargs, notice in _calls(world):
        state, _ = client_states(state_cls, world["berta"])
        before = _snapshot()
        events = invoke(state, name, **kwargs)
        assert _snapshot() == before, f"{name} changed the database for another advertiser"
        assert notice in repr(events), f"{name}: {events}"
        values = repr({var: getattr(state, var) for var in state.base_vars})
        assert "Ana Dueña" not in values and world["uid"] not in values, f"{name} leaked the listing: {values}"


def test_the_owner_gets_through(world):
    state, _ = client_states(MyListingsState, world["ana"])
    invoke(state, "pause", uid=world["uid"])
    assert [row.status for row in state.rows] == [ListingStatus.PAUSADA.value]
    invoke(state, "open_stats", uid=world["uid"])
    assert state.dialog == "estadisticas" and state.dialog_uid == world["uid"]
