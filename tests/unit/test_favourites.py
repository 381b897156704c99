"""The pure parts of favourites: which lists a browser may send, and one heart markup for the app and the
server-rendered Favoritas list."""

from __future__ import annotations

import pytest

from app.core.errors import InvalidInputError
from app.models.listings import DISPLAY_NAME_MAX
from app.services.favourites import MAX_FAVOURITES, clean_names, clean_uids
from app.web.rendering import render
from tests.factories import card_view


def test_a_list_of_uids_is_kept_in_order_without_duplicates():
    assert clean_uids(["b2", "a1", "b2"]) == ["b2", "a1"]
    assert clean_uids([]) == []
    assert len(clean_uids([f"u{i}" for i in range(MAX_FAVOURITES)])) == MAX_FAVOURITES


@pytest.mark.parametrize(
    "raw",
    [None, "abc", {"ids": []}, [1], [None], [""], ["a b"], ["a/b"], ["x" * 41], ["<b>"], ["u"] * (MAX_FAVOURITES + 1)],
)
def test_anything_else_is_refused(raw):
    with pytest.raises(InvalidInputError) as refused:
        clean_uids(raw)
    assert refused.value.message  # Spanish text for the visitor


def test_the_names_a_device_kept_are_those_of_its_list_as_text():
    names = {"a1": " Amanda ", "b2": "", "c3": 7, "d4": "x" * (DISPLAY_NAME_MAX + 1), "e5": "Ema", "zz": "Otra"}
    assert clean_names(names, ["a1", "b2", "c3", "d4", "e5"]) == {"a1": "Amanda", "e5": "Ema"}
    assert clean_names(None, ["a1"]) == {}


@pytest.mark.parametrize("raw", ["Amanda", ["a1"], 3])
def test_names_not_in_an_object_are_refused(raw):
    with pytest.raises(InvalidInputError) as refused:
        clean_names(raw, ["a1"])
    assert refused.value.message


def test_the_favourites_list_draws_hearts_and_gone_listings_escaped():
    card = card_view(uid="abc123", display_name="Ana <b>")
    html = render("favourites.html", cards=[card], gone=["zzz999", "yyy888"], names={"yyy888": "Bea <i>"})
    assert (
        '<button type="button" class="fav-heart" aria-pressed="false" aria-label="Guardar en favoritas: Ana &lt;b&gt;"'
        ' data-favorita="abc123" data-favorita-nombre="Ana &lt;b&gt;">' in html
    )
    assert 'data-favorita="zzz999"' in html and "Esta publicación ya no está disponible." in html
    # A listing gone that the device kept a name for is named by it.
    assert "Bea &lt;i&gt; — ya no está disponible" in html
    assert 'aria-label="Guardar en favoritas: Bea &lt;i&gt;" data-favorita="yyy888"' in html
    assert "<b>" not in html and "<i>" not in html
    empty = render("favourites.html", cards=[], gone=[], names={})
    assert "Aún no tienes favoritas" in empty
