"""The wizard's photos still processing (app.states.advertiser.wizard.PendingPhotosState) on PostgreSQL: the owner
sees a placeholder for each photo processing and the message of each refused one, which they dismiss; once one
is processed the wizard reads its photos again; someone else's listing shows nothing; the watch asks for fresh
readings only while a photo processes and the tab shows the wizard."""

from __future__ import annotations

import pytest
from reflex.istate.data import RouterData
from reflex_base.constants import RouteVar
from sqlmodel import Session

import app.states.advertiser.watching as watching
import app.states.advertiser.wizard as wizard_module
from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import ListingStatus, PendingPhoto, PendingPhotoStatus, ProfileId
from app.routes import ADVERTISER_HOME, ADVERTISER_NEW_LISTING
from app.states.advertiser.wizard import PendingPhotosState
from tests.factories import make_account, make_listing, open_session
from tests.handlers import client_states, invoke

pytestmark = pytest.mark.integration


@pytest.fixture
def owner(app_database):
    """(session token, listing uid) of an advertiser with a draft listing."""
    with Session(get_engine(), expire_on_commit=False) as session:
        user = make_account(session, LocalProvider(engine=get_engine()), "fotos@correo.cl", profile=ProfileId.PROFESOR)
        listing = make_listing(session, user, status=ListingStatus.BORRADOR.value, photos=0)
        return open_session(session, user.uid), listing.uid


def _add(listing_uid: str, status: PendingPhotoStatus, failure: str = "") -> str:
    """A pending photo as the upload (procesando) or the worker (rechazada) wrote it."""
    with Session(get_engine(), expire_on_commit=False) as session:
        pending = PendingPhoto(listing_uid=listing_uid, status=status, file_name="playa.jpg", failure=failure)
        session.add(pending)
        session.commit()
        return pending.uid


def _processed(pending_uid: str) -> None:
    """What the worker does once the photo is added: its pending row goes."""
    with Session(get_engine()) as session:
        session.delete(session.get(PendingPhoto, pending_uid))
        session.commit()


def _state(token: str) -> PendingPhotosState:
    state, _ = client_states(PendingPhotosState, token)
    return state


def _names(events: list) -> list[str]:
    return [getattr(getattr(event, "fn", None), "__name__", "") or event.handler.fn.__name__ for event in events]


def test_processing_photos_are_watched_and_the_wizard_reads_its_photos_once_one_is_done(owner):
    token, listing_uid = owner
    first = _add(listing_uid, PendingPhotoStatus.PROCESANDO)
    _add(listing_uid, PendingPhotoStatus.PROCESANDO)
    state = _state(token)
    assert _names(invoke(state, "open_listing", listing_uid=listing_uid)) == ["reload_photos", "watch"]
    assert state.processing_count == 2
    assert invoke(state, "refresh") == []  # nothing finished: the wizard's photos are not read again
    _processed(first)
    assert _names(invoke(state, "refresh")) == ["reload_photos"]
    assert state.processing_count == 1


def test_a_refused_photo_shows_its_message_until_dismissed(owner):
    token, listing_uid = owner
    refused = _add(listing_uid, PendingPhotoStatus.RECHAZADA, "El archivo no es una foto válida.")
    state = _state(token)
    assert _names(invoke(state, "open_listing", listing_uid=listing_uid)) == ["reload_photos"]  # no watch
    assert [(p.file_name, p.failure) for p in state.pending] == [("playa.jpg", "El archivo no es una foto válida.")]
    assert invoke(state, "dismiss", pending_uid=refused) == []
    assert state.pending == []


def test_someone_elses_listing_shows_nothing_and_dismisses_nothing(owner):
    _, listing_uid = owner
    refused = _add(listing_uid, PendingPhotoStatus.RECHAZADA, "El archivo está vacío.")
    with Session(get_engine(), expire_on_commit=False) as session:
        other = make_account(session, LocalProvider(engine=get_engine()), "otra@correo.cl", profile=ProfileId.PROFESOR)
        other_token = open_session(session, other.uid)
    state = _state(other_token)
    events = invoke(state, "open_listing", listing_uid=listing_uid)
    assert state.pending == [] and any("No encontramos" in str(event) for event in events)
    events = invoke(state, "dismiss", pending_uid=refused)
    assert any("No encontramos esa foto" in str(event) for event in events)
    with Session(get_engine()) as session:
        assert session.get(PendingPhoto, refused) is not None


def test_the_block_mounted_again_after_an_upload_reads_them_and_watches(owner):
    token, listing_uid = owner
    state = _state(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    _add(listing_uid, PendingPhotoStatus.PROCESANDO)  # what WizardState.upload_photos received
    assert _names(invoke(state, "open_listing", listing_uid=listing_uid)) == ["reload_photos", "watch"]
    assert state.processing_count == 1


def _on_page(state: PendingPhotosState, path: str) -> None:
    state.router = RouterData.from_router_data({RouteVar.ORIGIN: path, RouteVar.HEADERS: {"origin": "http://x"}})


def test_the_watch_asks_for_readings_only_while_one_processes_on_the_wizard(owner, monkeypatch):
    token, listing_uid = owner
    _add(listing_uid, PendingPhotoStatus.PROCESANDO)
    state = _state(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 3:  # the third wait ends after a reading found none processing
            state.pending = []

    monkeypatch.setattr(watching.asyncio, "sleep", fake_sleep)
    _on_page(state, ADVERTISER_HOME)
    assert invoke(state, "watch") == [] and slept == [wizard_module.WATCH_SECONDS]
    slept.clear()
    _on_page(state, f"{ADVERTISER_NEW_LISTING}?id={listing_uid}")
    assert _names(invoke(state, "watch")) == ["refresh", "refresh"]
    assert slept == [wizard_module.WATCH_SECONDS] * 3
