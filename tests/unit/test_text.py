"""Unit tests for app.core.text (SPEC section 5 e-mail and integer parsing, plus slugify)."""

import pytest

from app.core.text import is_valid_email, slugify


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
