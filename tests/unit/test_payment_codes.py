"""Payment references: short, unambiguous, and read back however a person types them."""

from __future__ import annotations

import re

from app.core.payment_codes import ALPHABET, LENGTH, new_payment_code, normalize_payment_code

SHAPE = re.compile(rf"^[{ALPHABET}]{{4}}-[{ALPHABET}]{{4}}$")


def test_a_reference_is_two_groups_of_four_unambiguous_characters():
    for _ in range(200):
        assert SHAPE.match(new_payment_code())
    assert not set("01258OILSZBUV") & set(ALPHABET)


def test_references_come_from_a_space_where_a_repeat_is_rare():
    # 23**8 ≈ 7.8e10 references: ten thousand requests repeat one with a chance under 1 in 1,000 (birthday
    # bound), and the service draws again when one is taken (upgrades._unused_payment_code). Counting repeats
    # in a random sample instead would fail now and then by design.
    space = len(ALPHABET) ** LENGTH
    assert space > 7 * 10**10
    assert 10_000**2 / (2 * space) < 0.001
    assert len({new_payment_code() for _ in range(50)}) > 1


def test_a_typed_reference_is_read_in_any_case_with_or_without_separators():
    assert normalize_payment_code("k7qm-4rtx") == "K7QM-4RTX"
    assert normalize_payment_code(" K7QM 4RTX ") == "K7QM-4RTX"
    assert normalize_payment_code("k7qm4rtx") == "K7QM-4RTX"


def test_text_that_cannot_be_a_reference_is_refused():
    for text in ("", "K7QM-4RT", "K7QM-4RTXX", "K0QM-4RTX", "juana@correo.cl", None, 12345678, "K7QM-4RTX" * 10):
        assert normalize_payment_code(text) is None
