"""Unit tests for app.core.money: format_currency (SPEC sections 8 and 9) and parse_clp (issue 33)."""

from decimal import ROUND_HALF_UP, Context, Decimal, localcontext

import pytest
from babel.numbers import get_decimal_symbol, get_group_symbol

from app.core.money import format_currency, parse_clp


def test_babel_es_cl_symbols_are_dot_and_comma():
    assert get_group_symbol("es_CL") == "."
    assert get_decimal_symbol("es_CL") == ","


@pytest.mark.parametrize(
    "value, expected",
    [
        (0, "$0"),
        (5, "$5"),
        (999, "$999"),
        (1000, "$1.000"),
        (1234, "$1.234"),
        (25000, "$25.000"),
        (1234567, "$1.234.567"),
        (1000000000, "$1.000.000.000"),
        (10**30, "$1" + ".000" * 10),
    ],
)
def test_thousands_separator(value, expected):
    assert format_currency(value) == expected


def test_decimals_use_comma():
    assert format_currency(1234.5, decimals=2) == "$1.234,50"
    assert format_currency(1234567.891, decimals=2) == "$1.234.567,89"
    assert format_currency(0.5, decimals=1) == "$0,5"
    assert format_currency(7, decimals=3) == "$7,000"


def test_no_decimals_by_default_rounds_half_up():
    assert format_currency(1234.5) == "$1.235"
    assert format_currency(2.5) == "$3"
    assert format_currency(1234.49) == "$1.234"


def test_half_up_with_decimals_like_money():
    assert format_currency(1.005, decimals=2) == "$1,01"
    assert format_currency(Decimal("0.125"), decimals=2) == "$0,13"
    assert format_currency(Decimal("0.135"), decimals=2) == "$0,14"


def test_symbol_options():
    assert format_currency(1500, symbol="") == "1.500"
    assert format_currency(1500, symbol=None) == "1.500"
    assert format_currency(1500, symbol="US$") == "US$1.500"
    assert format_currency(1500, symbol="CLP ") == "CLP 1.500"


def test_negative_numbers():
    assert format_currency(-1234) == "-$1.234"
    assert format_currency(-1234.5, decimals=2) == "-$1.234,50"
    assert format_currency(-2.5) == "-$3"
    assert format_currency(-1500, symbol="") == "-1.500"


def test_negative_rounding_to_zero_has_no_sign():
    assert format_currency(-0.4) == "$0"
    assert format_currency(Decimal("-0")) == "$0"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1500", "$1.500"),
        (" 1500 ", "$1.500"),
        ("-1500", "-$1.500"),
        ("+1500", "$1.500"),
        ("1234.5", "$1.235"),
        (".5", "$1"),
        ("0", "$0"),
    ],
)
def test_numeric_strings(value, expected):
    assert format_currency(value) == expected


def test_decimal_and_float_inputs():
    assert format_currency(Decimal("1234567.5"), decimals=2) == "$1.234.567,50"
    assert format_currency(1500.0) == "$1.500"


@pytest.mark.parametrize(
    "value",
    [
        None,
        "abc",
        "",
        "   ",
        "1.500,00",
        "1,500",
        "$1500",
        "1e3",
        "NaN",
        "inf",
        "Infinity",
        float("nan"),
        float("inf"),
        float("-inf"),
        Decimal("NaN"),
        Decimal("Infinity"),
        True,
        False,
        [1500],
        {"value": 1},
        object(),
    ],
)
def test_non_numeric_gives_error(value):
    assert format_currency(value) == "ERROR"


@pytest.mark.parametrize("decimals", [-1, 1.5, "2", None, True])
def test_bad_decimals_raise(decimals):
    with pytest.raises(ValueError):
        format_currency(1, decimals=decimals)


@pytest.mark.parametrize("decimals", [0, 1, 2, 4])
def test_digits_match_babels_own_pattern_formatting(decimals):
    """Python's grouping with Babel's symbols writes exactly what Babel's ``#,##0[.00]`` pattern writes."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    values = [Decimal(0), Decimal("0.5"), Decimal("999.995"), Decimal("1234567.891"), Decimal(10) ** 25 + 7]
    values += [Decimal(n) / 7 for n in range(-50_000, 50_000, 997)]
    for value in values:
        with localcontext(Context(prec=60)):
            rounded = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
            expected = format_decimal(abs(rounded), format=pattern, locale="es_CL")
        assert format_currency(value, symbol="", decimals=decimals).lstrip("-") == expected


@pytest.mark.parametrize(
    "text, pesos",
    [
        ("130000", 130000),
        ("130.000", 130000),
        ("$130.000", 130000),
        ("$ 130.000", 130000),
        ("130 000", 130000),
        ("130\u00a0000", 130000),  # a no-break space, as a copied price may have
        ("1.300.000", 1300000),
        (" 60.000 ", 60000),
        ("130 mil", 130000),
        ("130mil", 130000),
        ("130 MIL", 130000),
        ("$130 mil", 130000),
        ("130k", 130000),
        ("130 lucas", 130000),
        ("1 luca", 1000),
        ("130.000 pesos", 130000),
        ("130.000 CLP", 130000),
        ("0", 0),
    ],
)
def test_parse_clp_reads_pesos_as_people_type_them(text, pesos):
    assert parse_clp(text) == pesos


@pytest.mark.parametrize(
    "text",
    [
        "",
        "$",
        "mil",
        "abc",
        "sesenta",
        "130,5",  # a decimal comma: pesos are whole
        "130,000",
        "5.5",
        "130.00",
        "13.0000",
        "1.2345",
        "1.300 000.",
        "-5",
        "+5",
        "1_000",
        "\u0663",  # an Arabic-Indic digit
        "130 mil mil",
        "1" * 13,
    ],
)
def test_parse_clp_refuses_what_is_not_whole_pesos(text):
    with pytest.raises(ValueError):
        parse_clp(text)


def test_parse_clp_reads_what_format_currency_writes():
    for pesos in (0, 999, 1000, 60000, 130000, 99_999_999):
        assert parse_clp(format_currency(pesos)) == pesos
