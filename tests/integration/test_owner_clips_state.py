"""The wizard's clip block (app.states.advertiser.clips) on PostgreSQL: the owner sees each clip's state, retries a
failed one, deletes any; someone else's listing shows nothing; the watch asks for fresh readings only while a
clip processes and the tab shows the wizard, and stops once none is processing."""

from __future__ import annotations

import pytest
from reflex.istate.data import RouterData
from reflex_base.constants import RouteVar
from sqlmodel import Session

import app.states.advertiser.clips as clips_module
import app.states.advertiser.watching as watching
from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import ClipStatus, ListingStatus, ListingVideo, ProfileId
from app.routes import ADVERTISER_HOME, ADVERTISER_NEW_LISTING, CLIP_UPLOAD_PREFIX
from app.services.listing_videos import CLIP_NOT_FOUND
from app.states.advertiser.clips import ClipsState
from tests.factories import make_account, make_listing, open_session, ready_clip
from tests.handlers import client_states, invoke

pytestmark = pytest.mark.integration


@pytest.fixture
def owner(app_database):
    """(session token, listing uid) of an advertiser with a draft listing."""
    with Session(get_engine(), expire_on_commit=False) as session:
        user = make_account(session, LocalProvider(engine=get_engine()), "clips@correo.cl", profile=ProfileId.PROFESOR)
        listing = make_listing(session, user, status=ListingStatus.BORRADOR.value)
        return open_session(session, user.uid), listing.uid


def _add(listing_uid: str, *, status: ClipStatus, approved: bool = False, failure: str = "") -> str:
    with Session(get_engine(), expire_on_commit=False) as session:
        clip = ready_clip(listing_uid, approved=approved, status=status)
        clip.failure = failure
        clip.original_key = "videos/original" if status == ClipStatus.FALLIDA else None
        session.add(clip)
        session.commit()
        return clip.uid


def _set_status(clip_uid: str, status: ClipStatus) -> None:
    with Session(get_engine()) as session:
        clip = session.get(ListingVideo, clip_uid)
        clip.status = status
        session.add(clip)
        session.commit()


def _clips(token: str) -> ClipsState:
    state, _ = client_states(ClipsState, token)
    return state


def _names(events: list) -> list[str]:
    return [getattr(getattr(event, "fn", None), "__name__", "") or event.handler.fn.__name__ for event in events]


def test_the_owner_sees_each_clips_state_and_the_upload_address(owner):
    token, listing_uid = owner
    ready = _add(listing_uid, status=ClipStatus.LISTA)
    failed = _add(listing_uid, status=ClipStatus.FALLIDA, failure="El archivo no es un video.")
    state = _clips(token)
    events = invoke(state, "open_listing", listing_uid=listing_uid)
    assert events == []  # nothing processing: no watch
    assert {clip.uid: clip.status for clip in state.clips} == {ready: ClipStatus.LISTA, failed: ClipStatus.FALLIDA}
    assert [clip.failure for clip in state.clips if clip.uid == failed] == ["El archivo no es un video."]
    assert state.upload_url == f"{CLIP_UPLOAD_PREFIX}/{listing_uid}"
    assert state.full is True and state.processing is False


def test_someone_elses_listing_shows_nothing_and_no_upload_address(owner, app_database):
    _, listing_uid = owner
    _add(listing_uid, status=ClipStatus.LISTA)
    with Session(get_engine(), expire_on_commit=False) as session:
        other = make_account(session, LocalProvider(engine=get_engine()), "otra@correo.cl", profile=ProfileId.PROFESOR)
        other_token = open_session(session, other.uid)
    state = _clips(other_token)
    events = invoke(state, "open_listing", listing_uid=listing_uid)
    assert state.clips == [] and state.upload_url == ""
    assert any(CLIP_NOT_FOUND in str(event) or "No encontramos" in str(event) for event in events)
    invoke(state, "open_listing", listing_uid=["not", "a", "uid"])
    assert state.clips == [] and state.upload_url == ""


def test_retry_sends_a_failed_clip_back_to_processing_and_watches_it(owner):
    token, listing_uid = owner
    failed = _add(listing_uid, status=ClipStatus.FALLIDA, failure="No pudimos procesar el video.")
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    events = invoke(state, "retry", clip_uid=failed)
    assert [clip.status for clip in state.clips] == [ClipStatus.PROCESANDO] and state.processing is True
    assert "watch" in _names(events)


def test_delete_takes_any_clip_away(owner):
    token, listing_uid = owner
    processing = _add(listing_uid, status=ClipStatus.PROCESANDO)
    ready = _add(listing_uid, status=ClipStatus.LISTA)
    state = _clips(token)
    assert "watch" in _names(invoke(state, "open_listing", listing_uid=listing_uid))
    invoke(state, "delete", clip_uid=processing)
    assert [clip.uid for clip in state.clips] == [ready] and state.full is False
    invoke(state, "delete", clip_uid=ready)
    assert state.clips == []


def test_an_upload_reads_the_clips_again_and_watches_the_new_one(owner):
    token, listing_uid = owner
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    assert state.clips == []
    _add(listing_uid, status=ClipStatus.PROCESANDO)  # what the upload route wrote
    events = invoke(state, "uploaded")
    assert [clip.status for clip in state.clips] == [ClipStatus.PROCESANDO] and "watch" in _names(events)


def _on_page(state: ClipsState, path: str) -> None:
    state.router = RouterData.from_router_data({RouteVar.ORIGIN: path, RouteVar.HEADERS: {"origin": "http://x"}})


@pytest.fixture
def sleeps(monkeypatch) -> list:
    """The watch's sleeps, not slept: each calls the next action of ``sleeps.actions`` (if any) instead."""
    slept: list = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) in actions:
            actions[len(slept)]()

    actions: dict = {}
    monkeypatch.setattr(watching.asyncio, "sleep", fake_sleep)
    return [slept, actions]


def test_refresh_reads_the_clips_of_the_listing_shown(owner):
    token, listing_uid = owner
    clip_uid = _add(listing_uid, status=ClipStatus.PROCESANDO)
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    _set_status(clip_uid, ClipStatus.LISTA)
    assert invoke(state, "refresh") == []
    assert [clip.status for clip in state.clips] == [ClipStatus.LISTA] and state.processing is False


def test_the_watch_asks_for_readings_until_no_clip_processes(owner, sleeps):
    token, listing_uid = owner
    _add(listing_uid, status=ClipStatus.PROCESANDO)
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    _on_page(state, f"{ADVERTISER_NEW_LISTING}?id={listing_uid}")
    slept, actions = sleeps
    # The third wait ends after a reading found the clip ready.
    actions[3] = lambda: setattr(
        state, "clips", [c.model_copy(update={"status": ClipStatus.LISTA}) for c in state.clips]
    )
    events = invoke(state, "watch")
    assert _names(events) == ["refresh", "refresh"]
    assert slept == [clips_module.WATCH_SECONDS] * 3


def test_the_watch_stops_when_the_tab_left_the_wizard_or_a_newer_watch_started(owner, sleeps):
    token, listing_uid = owner
    _add(listing_uid, status=ClipStatus.PROCESANDO)
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    slept, actions = sleeps
    _on_page(state, ADVERTISER_HOME)
    assert invoke(state, "watch") == [] and len(slept) == 1
    _on_page(state, f"{ADVERTISER_NEW_LISTING}?id={listing_uid}")
    actions[3] = lambda: setattr(state, "_watch_id", "a-newer-watch")
    assert _names(invoke(state, "watch")) == ["refresh"] and len(slept) == 3


def test_the_watch_gives_up_after_its_rounds(owner, sleeps, monkeypatch):
    token, listing_uid = owner
    _add(listing_uid, status=ClipStatus.PROCESANDO)
    state = _clips(token)
    invoke(state, "open_listing", listing_uid=listing_uid)
    _on_page(state, f"{ADVERTISER_NEW_LISTING}?id={listing_uid}")
    monkeypatch.setattr(clips_module, "WATCH_ROUNDS", 4)
    assert _names(invoke(state, "watch")) == ["refresh"] * 4
