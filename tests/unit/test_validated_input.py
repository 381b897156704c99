"""The one translation of a pydantic refusal into InvalidInputError: message, field and fallbacks."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, field_validator

from app.core.errors import FORM_REFUSED, InvalidInputError, validated_input


class Form(BaseModel):
    name: str = Field(max_length=5)
    age: int = 0

    @field_validator("age")
    @classmethod
    def _adult(cls, value: int) -> int:
        if value and value < 18:
            raise ValueError("Debes ser mayor de edad.")
        return value


def _refusal(data: object, **options) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as refused:
        validated_input(Form, data, **options)
    return refused.value


def test_valid_data_comes_back_as_the_model():
    assert validated_input(Form, {"name": "Ana", "age": 30}) == Form(name="Ana", age=30)


def test_the_validators_own_spanish_text_names_its_field():
    refusal = _refusal({"name": "Ana", "age": 12})
    assert (refusal.message, refusal.field) == ("Debes ser mayor de edad.", "age")


def test_other_refusals_take_the_message_of_their_type_or_the_fallback():
    assert _refusal({"name": "Anastasia"}).message == FORM_REFUSED
    assert _refusal({"name": "Anastasia"}, fallback="Revisa este campo.").message == "Revisa este campo."
    typed = _refusal({"name": "Anastasia"}, messages={"string_too_long": "Hasta {max_length} letras."})
    assert (typed.message, typed.field) == ("Hasta 5 letras.", "name")


def test_a_refusal_of_the_whole_input_names_no_field():
    assert _refusal("no es un formulario").field is None
