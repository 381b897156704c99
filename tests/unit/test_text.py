"""Unit tests for app.core.text (SPEC section 5 e-mail and integer parsing, plus slugify)."""

import pytest

from app.core.text import is_valid_email, parse_int, slugify


class TestEmail:
    @pytest.mark.parametrize(
        "text",
        ["user@example.com", "a.b+tag@mail.example.cl", "x@y.z", "JUAN@EMPRESA.CL", "ñandú@correo.cl"],
    )
    def test_valid(self, text):
        assert is_valid_email(text) is True

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "user",
            "user@",
            "@example.com",
            "user@example",
            "user@.",
            "user@example.",
            "user@@example.com",
            "user @example.com",
            "user@exa mple.com",
            " user@example.com",
            "user@example.com ",
            "user@example.com\n",
        ],
    )
    def test_invalid(self, text):
        assert is_valid_email(text) is False

    @pytest.mark.parametrize("value", [None, 123, ["a@b.cl"], b"a@b.cl"])
    def test_non_str(self, value):
        assert is_valid_email(value) is False


class TestParseInt:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("1500", 1500),
            ("1.500", 1500),
            ("$ 25.000 CLP", 25000),
            ("  42 ", 42),
            ("007", 7),
            ("0", 0),
            ("-5", 5),
            ("12,5", 125),
            ("+56 9 1234 5678", 56912345678),
        ],
    )
    def test_keeps_only_digits(self, text, expected):
        assert parse_int(text) == expected

    @pytest.mark.parametrize("text", ["", "abc", "$", " - ", "１２３"])
    def test_no_digits_gives_none(self, text):
        assert parse_int(text) is None

    def test_int_returns_itself(self):
        assert parse_int(1500) == 1500
        assert parse_int(-3) == -3
        assert parse_int(0) == 0

    @pytest.mark.parametrize("value", [None, True, False, 12.5, [1], b"12"])
    def test_other_types_give_none(self, value):
        assert parse_int(value) is None


class TestSlugify:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("Viña del Mar", "vina-del-mar"),
            ("Ñuble", "nuble"),
            ("Los Ángeles", "los-angeles"),
            ("Concepción", "concepcion"),
            ("Marchigüe", "marchigue"),
            ("Libertador O'Higgins", "libertador-o-higgins"),
            ("  --Hola,   Mundo!!  ", "hola-mundo"),
            ("Región   XIII", "region-xiii"),
            ("abc123", "abc123"),
            ("", ""),
            ("¿¡!?", ""),
        ],
    )
    def test_slugs(self, text, expected):
        assert slugify(text) == expected

    def test_non_str(self):
        assert slugify(None) == ""
        assert slugify(12) == ""
