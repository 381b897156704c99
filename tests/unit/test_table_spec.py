"""A staff table's spec is one pure object: the form's limits come from the service's form, the service
sorts exactly the columns the table offers, and filters admit only what the spec offers."""

from __future__ import annotations

import pytest
from pydantic import Field

from app.services.staff.catalogues import CATALOGUES
from app.services.staff.shared import StaffForm
from app.services.staff.table_spec import (
    Column,
    Filter,
    FormField,
    TableSpec,
    form_fields,
    sort_columns,
)


class _Form(StaffForm):
    name: str = Field(min_length=1, max_length=60)
    note: str = Field(default="", max_length=500)
    order: int = Field(ge=1, le=999)
    active: bool = True


SPEC = TableSpec(
    entity="prueba",
    title="Prueba",
    columns=(Column("name", "Nombre", sortable=True), Column("order", "Orden", sortable=True), Column("note", "Nota")),
    default_sort="name",
    filters=(
        Filter("estado", "Estado", (("si", "Sí"), ("no", "No"))),
        Filter("tipo", "Tipo", from_data=True),
        Filter("desde", "Desde", kind="date"),
    ),
)


def test_form_fields_take_the_limits_of_the_service_form():
    name, note, order, active, extra = form_fields(
        _Form,
        FormField("name", "Nombre"),
        FormField("note", "Nota", kind="textarea"),
        FormField("order", "Orden", kind="number"),
        FormField("active", "Activo", kind="checkbox"),
        FormField("other", "Otro", max_length=12, required=True),
    )
    assert (name.max_length, name.required) == (60, True)
    assert (note.max_length, note.required) == (500, False)
    assert (order.max_length, order.required) == (200, True)  # a number has no length rule: the default stays
    assert active.required is False
    assert (extra.max_length, extra.required) == (12, True)  # not in the form: as declared
    assert name.clean("x" * 61) == (None, "Escribe como máximo 60 caracteres.")


def test_a_service_sorts_exactly_the_sortable_columns_of_its_table():
    columns = {"name": "name_column", "order": "order_column"}
    assert sort_columns(SPEC, columns) is columns
    with pytest.raises(ValueError, match="prueba"):
        sort_columns(SPEC, {"name": "name_column"})
    with pytest.raises(ValueError, match="prueba"):
        sort_columns(SPEC, {**columns, "created_at": "created_column"})


def test_a_filter_value_is_one_the_spec_offers():
    assert SPEC.filter_value("estado", "si") == "si"
    assert SPEC.filter_value("estado", "quizas") == ""
    assert SPEC.filter_value("estado", ["si"]) == ""
    assert SPEC.filter_value("tipo", "uid-123") == "uid-123"  # records from the database: the query matches them
    assert SPEC.filter_value("desde", "2026-11-26") == "2026-11-26"
    assert SPEC.filter_value("desde", "26/11/2026") == ""
    assert SPEC.filter_value("nada", "si") == ""


def test_every_catalogue_sorts_its_table_by_columns_of_its_model_and_checks_its_form():
    for key, catalogue in CATALOGUES.items():
        assert all(hasattr(catalogue.model, name) for name in catalogue.table.sort_keys), key
        assert {f.key for f in catalogue.table.form_fields} <= set(catalogue.create_form.model_fields), key


def test_a_column_breaks_its_values_anywhere_between_words_or_never():
    assert Column("note", "Nota").wrap == "anywhere"
    for wrap in ("words", "never"):
        assert TableSpec(entity="prueba", title="Prueba", columns=(Column("note", "Nota", wrap=wrap),), default_sort="")
    with pytest.raises(ValueError, match="prueba: unknown column wrap"):
        TableSpec(entity="prueba", title="Prueba", columns=(Column("note", "Nota", wrap="nowrap"),), default_sort="")
