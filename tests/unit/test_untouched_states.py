"""A new tab's hydrate without building the defaults of untouched states (app.web.untouched_states) gives what
Reflex's own gives, on every state of the app, untouched or not, and leaves untouched states as they were."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import reflex.state as reflex_state
from reflex.state import BaseState, State, _diff_against_initial_state, _resolve_delta, state_snapshot_hashes
from reflex_base.constants import RouteVar

import app.route_table  # noqa: F401  # every state of the app registered, as the app has them
from app.states.advertiser.wizard import WizardState
from app.states.auth import AuthState
from app.states.public import AGE_COOKIE, AgeGateState, DirectoryState
from app.states.staff.users import UsersTableState
from app.web import untouched_states


@pytest.fixture
def reflex_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reflex 0.10.1's own three, whatever this process installed."""
    monkeypatch.setattr(BaseState, "dict", untouched_states._reflex_dict)
    monkeypatch.setattr(BaseState, "_reset_client_storage", untouched_states._reflex_reset_client_storage)
    monkeypatch.setattr(reflex_state, "_serialize_var", untouched_states._reflex_serialize_var)


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """This app's three, restored to whatever they were after the test."""
    monkeypatch.setattr(BaseState, "dict", untouched_states._dict)
    monkeypatch.setattr(BaseState, "_reset_client_storage", untouched_states._reset_client_storage)
    monkeypatch.setattr(reflex_state, "_serialize_var", untouched_states._serialize_var)


def _tree() -> State:
    return State(_reflex_internal_init=True)


def _substate(root: State, cls: type[BaseState]) -> BaseState:
    return root.get_substate(cls.get_full_name().split("."))


def _states(root: BaseState) -> Iterator[BaseState]:
    yield root
    for substate in root.substates.values():
        yield from _states(substate)


def _json(snapshot: dict) -> str:
    return json.dumps(snapshot, sort_keys=True, default=str)


def _touch(root: State) -> None:
    """What a signed-in staff member's tab has done: a table read and changed, a var set, the directory shown;
    and its browser sent the 18+ cookie, which only the router holds (AgeGateState itself is untouched)."""
    headers = {"cookie": f"{AGE_COOKIE}=1"}
    root.router_data = root._update_router_vars({RouteVar.PATH: "/", RouteVar.HEADERS: headers}, {})
    table = _substate(root, UsersTableState)
    table.rows.append({"uid": "u1", "name": "Ana"})  # read (its default created), then changed through Reflex's proxy
    table.page = 3
    _substate(root, DirectoryState).city_name = "Temuco"
    _substate(root, WizardState).step = 2  # its step_title follows
    _substate(root, AuthState).user = "staff"  # kept in the browser


def _hydrate(root: State) -> dict:
    """The hydrate's snapshot and its comparison with the compiled defaults, as Reflex's hydrate_and_load runs them."""

    async def run() -> dict:
        initial = await _resolve_delta(_tree().dict(initial=True))
        snapshot = await _resolve_delta(root.dict())
        return {
            "snapshot": snapshot,
            "diff": await _diff_against_initial_state(State, snapshot, state_snapshot_hashes(initial)),
        }

    return asyncio.run(run())


@pytest.mark.parametrize("touched", [False, True], ids=["new tab", "used tab"])
def test_the_snapshot_and_its_comparison_are_reflexs_own(request: pytest.FixtureRequest, touched: bool):
    results = {}
    for patch in ("reflex_own", "installed"):
        request.getfixturevalue(patch)
        root = _tree()
        if touched:
            _touch(root)
        results[patch] = _hydrate(root)
    assert _json(results["installed"]["snapshot"]) == _json(results["reflex_own"]["snapshot"])
    assert _json(results["installed"]["diff"]) == _json(results["reflex_own"]["diff"])
    if touched:
        table = results["installed"]["snapshot"][UsersTableState.get_full_name()]
        assert table["page_rx_state_"] == 3 and table["rows_rx_state_"] == [{"uid": "u1", "name": "Ana"}]
        assert results["installed"]["diff"][DirectoryState.get_full_name()]["city_name_rx_state_"] == "Temuco"
        assert results["installed"]["snapshot"][WizardState.get_full_name()]["step_title_rx_state_"]
        assert results["installed"]["snapshot"][AgeGateState.get_full_name()]["accepted_rx_state_"] is True
    else:
        assert UsersTableState.get_full_name() not in results["installed"]["diff"]


@pytest.mark.usefixtures("installed")
def test_an_untouched_state_is_left_as_it_was_created():
    root = _tree()
    table = _substate(root, UsersTableState)
    root.dict()
    assert table.__dict__.keys().isdisjoint(UsersTableState.base_vars)
    assert not table.dirty_vars
    # A later read still gets the default, and a later change is in the next snapshot.
    assert table.rows == []
    table.page = 2
    assert root.dict()[UsersTableState.get_full_name()]["page_rx_state_"] == 2


@pytest.mark.usefixtures("installed")
def test_a_shared_default_entry_is_never_handed_to_a_state():
    """Two snapshots of new tabs, one changed in place: neither the other nor a third sees it."""
    first, second = _tree().dict(), _tree().dict()
    name = UsersTableState.get_full_name()
    first[name]["rows_rx_state_"].append({"uid": "x"})
    first[name]["page_rx_state_"] = 9
    assert second[name]["rows_rx_state_"] == [] and second[name]["page_rx_state_"] == 1
    assert _tree().dict()[name]["rows_rx_state_"] == []


def test_a_state_whose_computed_var_reads_the_router_is_always_reflexs_own():
    """AgeGateState's ``accepted`` reads the request's cookie: its snapshot is never the class's. The wizard's
    computed vars read its own vars alone: an untouched wizard's entry is its class's."""
    assert untouched_states._class_defaults(AgeGateState).entry is None
    assert untouched_states._class_defaults(WizardState).entry is not None
    assert untouched_states._class_defaults(UsersTableState).entry is not None


def test_the_browsers_vars_are_reset_as_reflex_resets_them(request: pytest.FixtureRequest):
    """Each state's dirty vars after the reset are Reflex's own, the kept var is back to its default, and an
    untouched table is still untouched."""
    dirty = {}
    for patch in ("reflex_own", "installed"):
        request.getfixturevalue(patch)
        root = _tree()
        auth = _substate(root, AuthState)
        auth.user = "someone"
        auth._clean()
        root._reset_client_storage()
        assert auth.user == ""
        dirty[patch] = {state.get_full_name(): sorted(state.dirty_vars) for state in _states(root) if state.dirty_vars}
    assert dirty["installed"] == dirty["reflex_own"]
    assert AuthState.get_full_name() in dirty["installed"]
    assert _substate(root, UsersTableState).__dict__.keys().isdisjoint(UsersTableState.base_vars)
