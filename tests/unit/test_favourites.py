"""The pure parts of favourites: which lists a browser may send, and one heart markup for the app and the
server-rendered Favoritas list."""

from __future__ import annotations

import pytest

from app.core.errors import InvalidInputError
from app.services.favourites import MAX_FAVOURITES, clean_uids
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


def test_the_favourites_list_draws_hearts_and_gone_listings_escaped():
    card = card_view(uid="abc123", display_name="Ana <b>")
    html = render("favourites.html", cards=[card], gone=["zzz999"])
    assert (
        '<button type="button" class="fav-heart" aria-pressed="false" aria-label="Guardar en favoritas: Ana &lt;b&gt;"'
        ' data-favorita="abc123">' in html
    )
    assert 'data-favorita="zzz999"' in html and "Esta publicación ya no está disponible." in html
    assert "<b>" not in html
    empty = render("favourites.html", cards=[], gone=[])
    assert "Aún no tienes favoritas" in empty
