"""The frozen values a state stores (app.core.stored_values): they load back from a pickle only with exactly their
own fields, so a tab's state stored before they changed shape is refused as a whole, and Reflex starts it anew."""

from __future__ import annotations

import copyreg
import pickle
from dataclasses import asdict

import pytest
from reflex.state import State
from reflex_base.utils.exceptions import StateSchemaMismatchError

from app.app import app as reflex_app  # noqa: F401  # registers every state
from app.models import ListingCard
from app.services.directory_view import TierGroup
from app.states.public import DirectoryState
from tests.factories import card_view, detail_view


class _Stored:
    """Pickles as an instance of ``cls`` whose pickled state is ``state``: what a stored state of an earlier shape
    holds."""

    def __init__(self, cls: type, state: dict) -> None:
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (copyreg._reconstructor, (self.cls, object, None), self.state)


def test_cards_details_and_groups_come_back_from_a_pickle_equal():
    values = [card_view(), detail_view(), TierGroup(name="Platino", slug="platino", cards=(card_view(),))]
    assert pickle.loads(pickle.dumps(values)) == values


@pytest.mark.parametrize(
    "state",
    [
        # as a pydantic model pickled it, before 2026-11-29
        {"__dict__": asdict(card_view()), "__pydantic_fields_set__": set(), "__pydantic_extra__": None},
        {key: value for key, value in asdict(card_view()).items() if key != "photos"},  # a field since added
        {**asdict(card_view()), "rating": 5},  # a field since removed
    ],
    ids=["pydantic", "missing", "extra"],
)
def test_a_card_of_another_shape_does_not_load(state):
    with pytest.raises(TypeError, match="ListingCard of another shape"):
        pickle.loads(pickle.dumps(_Stored(ListingCard, state)))


def test_a_stored_directory_state_holding_one_is_refused_as_a_schema_mismatch():
    directory = State(_reflex_internal_init=True).get_substate(DirectoryState.get_full_name().split("."))
    directory.__dict__["cards"] = [card_view()]
    assert type(directory)._deserialize(directory._serialize()).cards == [card_view()]
    pydantic_form = {"__dict__": asdict(card_view()), "__pydantic_fields_set__": set()}
    directory.__dict__["cards"] = [_Stored(ListingCard, pydantic_form)]
    with pytest.raises(StateSchemaMismatchError):
        type(directory)._deserialize(directory._serialize())
