"""Unit tests for app.core.rut (SPEC section 5 RUT rules and section 8 ERROR result)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.rut import clean_rut, format_rut, is_valid_rut, rut_check_digit

bodies = st.from_regex(r"[0-9]{7,8}", fullmatch=True)


class TestCleanRut:
    def test_strips_dots_and_lowercases(self):
        assert clean_rut("12.345.678-K") == "12345678-k"

    def test_strips_whitespace(self):
        assert clean_rut("  12 345 678-5\t") == "12345678-5"

    def test_keeps_hyphen_and_other_chars(self):
        assert clean_rut("12,345,678_5") == "12,345,678_5"

    @pytest.mark.parametrize("value", [None, 12345678, 1.5, b"12345678-5", ["1"]])
    def test_non_str_gives_empty(self, value):
        assert clean_rut(value) == ""


class TestCheckDigit:
    @pytest.mark.parametrize(
        "body, expected",
        [
            ("12345678", "5"),  # 8*2+7*3+6*4+5*5+4*6+3*7+2*2+1*3 = 138; 11 - 138 % 11 = 5
            ("11111111", "1"),
            ("22222222", "2"),
            ("7654321", "6"),  # 126 -> 11 - 5 = 6 (7-digit body)
            ("10000013", "k"),  # 3*2 + 1*3 + 1*3 = 12 -> 11 - 1 = 10 -> k
            ("1000005", "k"),  # 5*2 + 1*2 = 12 -> 10 -> k (7-digit body)
            ("10000004", "0"),  # 4*2 + 1*3 = 11 -> 11 - 0 = 11 -> 0
            ("1000013", "0"),  # 3*2 + 1*3 + 1*2 = 11 -> 0 (7-digit body)
            ("99999999", "9"),
        ],
    )
    def test_known_values(self, body, expected):
        assert rut_check_digit(body) == expected

    def test_weights_repeat_after_seven(self):
        # Only the 7th digit from the right is non-zero: weight wraps to 2 -> 1*2 = 2 -> 9.
        assert rut_check_digit("1000000") == "9"
        # 8th digit from the right has weight 3 -> 11 - 3 = 8.
        assert rut_check_digit("10000000") == "8"

    @pytest.mark.parametrize("body", ["", "1234567a", "12.345.678", "-1234567", " 1234567", "１２３４５６７"])
    def test_non_digit_body_raises(self, body):
        with pytest.raises(ValueError):
            rut_check_digit(body)

    @pytest.mark.parametrize("body", [None, 12345678])
    def test_non_str_body_raises(self, body):
        with pytest.raises(ValueError):
            rut_check_digit(body)


class TestIsValidRut:
    @pytest.mark.parametrize(
        "text",
        [
            "12345678-5",
            "12.345.678-5",
            "7654321-6",
            "7.654.321-6",
            "10000013-k",
            "10000013-K",
            "10.000.013-K",
            "1000005-k",
            "10000004-0",
            " 12.345.678-5 ",
        ],
    )
    def test_valid(self, text):
        assert is_valid_rut(text) is True

    @pytest.mark.parametrize(
        "text",
        [
            "12345678-4",  # wrong check digit
            "10000013-0",  # wrong check digit (should be k)
            "10000004-k",  # wrong check digit (should be 0)
            "123456785",  # hyphen missing
            "12345678k",
            "123456-0",  # 6 digits
            "123456789-2",  # 9 digits
            "12345678-",  # no check digit
            "12345678-55",
            "12345678-x",
            "12345678--5",
            "-12345678-5",
            "12,345,678-5",
            "",
            "abc",
        ],
    )
    def test_invalid(self, text):
        assert is_valid_rut(text) is False

    @pytest.mark.parametrize("value", [None, 123456785, 12345678.5])
    def test_non_str_invalid(self, value):
        assert is_valid_rut(value) is False


class TestFormatRut:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("12345678-5", "12.345.678-5"),
            ("12.345.678-5", "12.345.678-5"),
            ("7654321-6", "7.654.321-6"),
            ("10000013-K", "10.000.013-k"),
            (" 1000005-k ", "1.000.005-k"),
            ("01234567-4", "01.234.567-4"),
        ],
    )
    def test_formats(self, text, expected):
        assert format_rut(text) == expected

    def test_shape_only_wrong_check_digit_still_formatted(self):
        # Documented decision: format_rut checks the shape, not the check digit.
        assert is_valid_rut("12345678-4") is False
        assert format_rut("12345678-4") == "12.345.678-4"

    @pytest.mark.parametrize(
        "text",
        ["123456785", "123456-0", "123456789-2", "12345678-x", "", "abc", "12345678-", "12-345-678-5"],
    )
    def test_malformed_gives_error(self, text):
        assert format_rut(text) == "ERROR"

    @pytest.mark.parametrize("value", [None, 123456785, ["12345678-5"]])
    def test_non_str_gives_error(self, value):
        assert format_rut(value) == "ERROR"


@given(bodies)
def test_computed_check_digit_is_valid(body):
    assert is_valid_rut(f"{body}-{rut_check_digit(body)}")


@given(bodies)
def test_check_digit_is_digit_or_k(body):
    assert rut_check_digit(body) in set("0123456789k")


@given(bodies)
def test_format_then_clean_round_trips(body):
    rut = f"{body}-{rut_check_digit(body)}"
    formatted = format_rut(rut)
    assert formatted != "ERROR"
    assert clean_rut(formatted) == rut
    assert is_valid_rut(formatted)
    # Thousands groups: every group after the first has exactly 3 digits.
    groups = formatted.split("-")[0].split(".")
    assert all(len(g) == 3 for g in groups[1:]) and 1 <= len(groups[0]) <= 3


@given(bodies, st.sampled_from(list("0123456789k")))
def test_any_other_check_digit_is_invalid(body, digit):
    correct = rut_check_digit(body)
    assert is_valid_rut(f"{body}-{digit}") is (digit == correct)
