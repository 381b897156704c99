"""The listing lifecycle table, checked over every pair of statuses for every kind of actor."""

from __future__ import annotations

import itertools

import pytest

from app.core.errors import ConflictError, TransitionNotAllowedError
from app.models import LISTING_TRANSITIONS, ActorKind, ListingStatus
from app.models.listings import OWNER_MOVES
from app.services.listing_lifecycle import allowed_targets, can_transition, ensure_transition, owner_may, owner_statuses

B, PE, PU, R, PA, E = (
    ListingStatus.BORRADOR,
    ListingStatus.PENDIENTE,
    ListingStatus.PUBLICADA,
    ListingStatus.RECHAZADA,
    ListingStatus.PAUSADA,
    ListingStatus.EXPIRADA,
)
OWNER, STAFF, SYSTEM = ActorKind.OWNER, ActorKind.STAFF, ActorKind.SYSTEM

# Written out by hand, independent of the table under test: (current, new) -> who may.
EXPECTED: dict[tuple[ListingStatus, ListingStatus], set[ActorKind]] = {
    (B, PE): {OWNER},  # the owner sends a draft to review
    (PE, PU): {STAFF},  # staff approve
    (PE, R): {STAFF},  # staff reject
    (PU, PA): {OWNER},  # pause
    (PA, PU): {OWNER},  # resume
    (PU, E): {SYSTEM},  # the expiry date passed
    (PA, E): {SYSTEM},  # ... also while paused
    (E, PE): {OWNER},  # renew: back to review
    (R, PE): {OWNER},  # edit and resend
    (PU, R): {STAFF},  # take down
    (PA, R): {STAFF},  # take down
    (R, PU): {STAFF},  # republish after a take down
}

ALL_CASES = list(itertools.product(ListingStatus, ListingStatus, ActorKind))


def test_every_status_and_actor_kind_is_covered():
    assert len(ALL_CASES) == 6 * 6 * 3
    assert {s.value for s in ListingStatus} == {
        "borrador",
        "pendiente",
        "publicada",
        "rechazada",
        "pausada",
        "expirada",
    }
    assert {a.value for a in ActorKind} == {"owner", "staff", "system"}


@pytest.mark.parametrize(("current", "new", "actor"), ALL_CASES, ids=lambda v: str(v))
def test_can_transition_matches_the_expected_table(current, new, actor):
    expected = actor in EXPECTED.get((current, new), set())
    assert can_transition(current, new, actor) is expected
    # Plain stored strings answer the same as enum members.
    assert can_transition(current.value, new.value, actor.value) is expected


@pytest.mark.parametrize(("current", "new", "actor"), ALL_CASES, ids=lambda v: str(v))
def test_ensure_transition_raises_exactly_when_not_allowed(current, new, actor):
    if actor in EXPECTED.get((current, new), set()):
        assert ensure_transition(current.value, new.value, actor) is new
    else:
        with pytest.raises(TransitionNotAllowedError) as caught:
            ensure_transition(current, new, actor)
        assert (caught.value.current, caught.value.new, caught.value.actor_kind) == (current, new, actor)


def test_the_table_holds_nothing_else():
    assert {pair: set(kinds) for pair, kinds in LISTING_TRANSITIONS.items()} == EXPECTED


def test_staying_in_the_same_status_is_never_a_move():
    for status, actor in itertools.product(ListingStatus, ActorKind):
        assert not can_transition(status, status, actor)


def test_editing_a_published_listing_keeps_it_published():
    # The edit waits for review as a revision; the published version stays visible.
    assert not any(can_transition(PU, PE, actor) for actor in ActorKind)
    assert not any(can_transition(PU, B, actor) for actor in ActorKind)


def test_every_status_can_be_left_and_reached_except_the_draft_is_only_left():
    reached = {new for (_, new) in EXPECTED}
    left = {current for (current, _) in EXPECTED}
    assert left == set(ListingStatus)
    assert reached == set(ListingStatus) - {B}


def test_unknown_values_are_never_allowed():
    assert not can_transition("borrador", "pendiente", "admin")
    assert not can_transition("borrador", "archivada", OWNER)
    assert not can_transition("BORRADOR", "pendiente", OWNER)
    with pytest.raises(TransitionNotAllowedError) as caught:
        ensure_transition("fantasma", "publicada", STAFF)
    assert "desconocido" in caught.value.message


def test_refusal_is_a_conflict_with_a_spanish_message():
    with pytest.raises(ConflictError) as caught:
        ensure_transition(PU, PE, OWNER)
    assert caught.value.message == "Esta publicación no puede pasar de «Publicada» a «En revisión»."
    assert caught.value.code == "transition-not-allowed"


def test_allowed_targets_lists_the_buttons_of_each_role():
    assert allowed_targets(PU, OWNER) == [PA]
    assert allowed_targets(PU, STAFF) == [R]
    assert allowed_targets(PU, SYSTEM) == [E]
    assert allowed_targets(PE, STAFF) == [PU, R]
    assert allowed_targets(PE, OWNER) == []
    assert allowed_targets(R, STAFF) == [PU]
    assert allowed_targets(R, OWNER) == [PE]
    assert allowed_targets(B, OWNER) == [PE]


# The owner's buttons on "my listings", written out by hand: action -> the statuses that offer it.
OWNER_BUTTONS: dict[str, set[ListingStatus]] = {
    "continue": {B},
    "edit": {PE, PU, R, PA, E},
    "pause": {PU},
    "resume": {PA},
    "renew": {E},
    "available_now": {PU},
    "copy": {PE, PU, R, PA, E},
    "upgrade": {PU, PA},
    "verify": {PE, PU, R, PA, E},
}


@pytest.mark.parametrize("action", sorted(OWNER_BUTTONS))
def test_the_owner_buttons_of_each_status(action):
    assert {status for status in ListingStatus if owner_may(action, status)} == OWNER_BUTTONS[action]
    assert owner_statuses(action) == OWNER_BUTTONS[action]
    assert not owner_may(action, "archivada")


def test_each_owner_move_is_a_move_the_table_gives_the_owner():
    for source, target in OWNER_MOVES.values():
        assert OWNER in LISTING_TRANSITIONS[(source, target)]


def test_a_move_the_table_takes_from_the_owner_takes_the_button_too(monkeypatch):
    monkeypatch.setitem(LISTING_TRANSITIONS, (PU, PA), frozenset({STAFF}))
    assert not owner_may("pause", PU)
    assert owner_may("resume", PA)
