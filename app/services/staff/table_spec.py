"""A staff table as one pure object: its columns, sort keys, filters, form fields and who may do what.

Each staff table declares one :class:`TableSpec` next to its list service (``app.services.staff.users``
declares ``USERS_SPEC``…). The service reads it for its sort whitelist, default sort and filter values;
the Reflex state (``app.states.staff.table``) reads the same object for its columns, its checks of what a
client sends, its form and the access marks of its handlers. Nothing here imports Reflex or touches a
database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from annotated_types import MaxLen, MinLen
from pydantic import BaseModel

from app.models import ProfileId

ADMIN = ProfileId.ADMINISTRADOR
SECRETARY = ProfileId.SECRETARIA
PAGE_SIZE = 50
"""The rows a table page shows at most (and a query's default page size)."""
MAX_SEARCH = 100
FIELD_KINDS = frozenset({"text", "select", "checkbox", "number", "textarea", "display"})
FILTER_KINDS = frozenset({"select", "date"})
# Where a column's values may break across lines: anywhere (long text such as an e-mail), only between
# words (names, periods), or never (a short value read as one: a reference, an amount, a date).
WRAP_KINDS = frozenset({"anywhere", "words", "never"})
# What a table offers; each handler belongs to one of them.
ACTIONS = frozenset({"view", "create", "edit", "delete", "export"})
CREATE, EDIT = "crear", "editar"
REQUIRED_MESSAGE = "Completa este campo."
OPTION_MESSAGE = "Elige una opción de la lista."
NUMBER_MESSAGE = "Escribe un número entero."


@dataclass(frozen=True)
class Column:
    """One column: the row key it shows, its heading, and whether the table sorts by it.

    ``wrap``: where its values may break across lines (one of WRAP_KINDS).
    """

    key: str
    label: str
    sortable: bool = False
    wrap: str = "anywhere"


@dataclass(frozen=True)
class Filter:
    """A filter above the table: a select of (value, label) options, or a date ("" = no filter).

    ``from_data``: the select's options are read from the database when the page loads
    (the state's ``_options`` hook), not fixed here."""

    key: str
    label: str
    options: tuple[tuple[str, str], ...] = ()
    kind: str = "select"
    from_data: bool = False

    def clean(self, value: Any, read_options: Sequence[Sequence[str]] = ()) -> str:
        """The value if this filter admits it, else "" (no filter).

        A ``from_data`` select admits the options the table's ``_options`` hook read (``read_options``).
        """
        if not isinstance(value, str):
            return ""
        if self.kind == "date":
            try:
                return date.fromisoformat(value).isoformat() if len(value) == 10 else ""
            except ValueError:
                return ""
        options = read_options if self.from_data else self.options
        return value if value in {option[0] for option in options} else ""


@dataclass(frozen=True)
class FormField:
    """One field of the create/edit dialog; ``kind`` is text, select, checkbox, number, textarea, or
    display (the record's value shown as text in the edit dialog, never sent back).

    ``on_create``/``on_edit``: whether the field shows in that dialog. ``from_data``: a select
    whose options are records read from the database (the state's ``_options`` hook), such as
    the agency of an advertiser; its value is the record's uid.
    """

    key: str
    label: str
    kind: str = "text"
    options: tuple[tuple[str, str], ...] = ()
    required: bool = False
    max_length: int = 200
    on_create: bool = True
    on_edit: bool = True
    from_data: bool = False

    def clean(self, raw: Any, read_options: Sequence[Sequence[str]] = ()) -> tuple[Any, str]:
        """(the typed value, "" ) or (None, the Spanish message for this field).

        A ``from_data`` select admits the options the table's ``_options`` hook read (``read_options``)."""
        if self.kind == "checkbox":
            return raw not in (None, "", False, "false", "off"), ""
        text = " ".join(raw.split()) if isinstance(raw, str) and self.kind != "textarea" else raw
        text = text.strip() if isinstance(text, str) else ""
        if len(text) > self.max_length:
            return None, f"Escribe como máximo {self.max_length} caracteres."
        if not text:
            return (None if self.kind == "number" else ""), (REQUIRED_MESSAGE if self.required else "")
        options = read_options if self.from_data else self.options
        if self.kind == "select" and text not in {option[0] for option in options}:
            return None, OPTION_MESSAGE
        if self.kind == "number":
            if not text.isascii() or not text.lstrip("-").isdigit() or len(text) > 12:
                return None, NUMBER_MESSAGE
            return int(text), ""
        return text, ""


@dataclass(frozen=True)
class TableSpec:
    """A staff table as data: what it shows, how it is searched, sorted and filtered, and its form.

    ``profiles``: who may open it (and edit, create…); ``actions``: what it offers besides
    viewing (create, edit, delete, export); ``admin_only_actions``: those only an administrator
    may use (the services refuse them to a secretary as well).
    """

    entity: str
    title: str
    columns: tuple[Column, ...]
    default_sort: str
    default_desc: bool = False
    filters: tuple[Filter, ...] = ()
    form_fields: tuple[FormField, ...] = ()
    search_label: str = "Buscar"
    intro: str = ""
    """What the table is for, under its title: static, so the page's document shows it before the app (app.web.preview)."""
    page_size: int = PAGE_SIZE
    profiles: tuple[ProfileId, ...] = (ADMIN, SECRETARY)
    actions: frozenset[str] = frozenset({"create", "edit", "delete", "export"})
    admin_only_actions: frozenset[str] = frozenset({"create", "delete", "export"})
    csv_name: str = ""
    row_label_key: str = field(default="")

    def __post_init__(self) -> None:
        if not self.profiles or not set(self.profiles) <= {ADMIN, SECRETARY}:
            raise ValueError(f"{self.entity}: a staff table is for staff profiles only")
        if not 1 <= self.page_size <= PAGE_SIZE:
            raise ValueError(f"{self.entity}: page_size must be 1..{PAGE_SIZE}")
        if (self.default_sort or self.sort_keys) and self.default_sort not in self.sort_keys:
            raise ValueError(f"{self.entity}: default_sort must be a sortable column ('' only when none is)")
        if not self.actions <= ACTIONS - {"view"} or not self.admin_only_actions <= ACTIONS - {"view"}:
            raise ValueError(f"{self.entity}: unknown action")
        if "export" in self.actions and "export" not in self.admin_only_actions:
            raise ValueError(f"{self.entity}: CSV export is for the administrator only")
        if any(f.kind not in FIELD_KINDS for f in self.form_fields) or any(
            f.kind not in FILTER_KINDS for f in self.filters
        ):
            raise ValueError(f"{self.entity}: unknown field or filter kind")
        if any(column.wrap not in WRAP_KINDS for column in self.columns):
            raise ValueError(f"{self.entity}: unknown column wrap")
        fields: tuple[FormField | Filter, ...] = (*self.form_fields, *self.filters)
        if any(f.from_data and f.kind != "select" for f in fields):
            raise ValueError(f"{self.entity}: only a select reads its options from the database")

    @property
    def reads_options(self) -> bool:
        """Whether a filter or a form field reads its options from the database."""
        fields: tuple[Filter | FormField, ...] = (*self.filters, *self.form_fields)
        return any(f.from_data for f in fields)

    @property
    def sort_keys(self) -> frozenset[str]:
        """The whitelist of sort keys: the sortable columns."""
        return frozenset(c.key for c in self.columns if c.sortable)

    def profiles_for(self, action: str) -> tuple[ProfileId, ...]:
        """The profiles that may use ``action`` (view, create, edit, delete, export) of this table."""
        if action in self.admin_only_actions:
            return tuple(p for p in self.profiles if p == ADMIN)
        return self.profiles

    def offers(self, action: str) -> bool:
        """Whether this table has ``action`` at all (viewing always)."""
        return action == "view" or action in self.actions

    def fields_for(self, mode: str) -> tuple[FormField, ...]:
        """The form fields of the create (``crear``) or edit (``editar``) dialog."""
        return tuple(f for f in self.form_fields if (f.on_create if mode == CREATE else f.on_edit))

    def clean_search(self, text: Any) -> str:
        """The search text: one line, spaces collapsed, at most 100 characters."""
        return " ".join(text.split())[:MAX_SEARCH] if isinstance(text, str) else ""

    def clean_sort(self, key: Any) -> str:
        """``key`` when it is a sortable column, else the default sort."""
        return key if isinstance(key, str) and key in self.sort_keys else self.default_sort

    def filter_value(self, key: str, value: Any) -> str:
        """``value`` of filter ``key`` when that filter admits it, else "" (no filter). A ``from_data``
        select's value passes as it is: the query matches it against the records it names."""
        found = next((f for f in self.filters if f.key == key), None)
        if found is None:
            return ""
        if found.from_data:
            return value if isinstance(value, str) else ""
        return found.clean(value)

    def clean_form(
        self, data: Any, mode: str, read_options: dict[str, list[list[str]]] | None = None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """(typed values of the mode's fields, field errors by key); other keys are dropped.

        ``read_options``: the options of the ``from_data`` selects, by field key."""
        data = data if isinstance(data, dict) else {}
        read_options = read_options or {}
        values, errors = {}, {}
        for form_field in self.fields_for(mode):
            if form_field.kind == "display":
                continue
            value, error = form_field.clean(data.get(form_field.key), read_options.get(form_field.key, ()))
            if error:
                errors[form_field.key] = error
            else:
                values[form_field.key] = value
        return values, errors


def form_fields(form: type[BaseModel], *fields: FormField) -> tuple[FormField, ...]:
    """``fields`` with the length limit and the "required" of the same-named fields of ``form``, the
    pydantic form the service validates with: the dialog and the service then check one set of limits.

    A field ``form`` does not name keeps its own; a select or a checkbox keeps its length limit
    (its value is checked against its options).
    """
    limited = []
    for form_field in fields:
        declared = form.model_fields.get(form_field.key)
        if declared is None or form_field.kind == "display":
            limited.append(form_field)
            continue
        lengths: dict[type, Any] = {type(rule): rule for rule in declared.metadata if isinstance(rule, MaxLen | MinLen)}
        max_length = lengths[MaxLen].max_length if MaxLen in lengths and form_field.kind != "select" else None
        required = form_field.kind != "checkbox" and (
            declared.is_required() or (MinLen in lengths and lengths[MinLen].min_length > 0)
        )
        limited.append(replace(form_field, max_length=max_length or form_field.max_length, required=required))
    return tuple(limited)


def sort_columns(spec: TableSpec, columns: Mapping[str, Any]) -> Mapping[str, Any]:
    """``columns`` (sort key -> what the query orders by) when it covers exactly the spec's sortable
    columns; a table whose service cannot sort a column it offers fails at import, not at a click."""
    if set(columns) != spec.sort_keys:
        raise ValueError(
            f"{spec.entity}: the service sorts {sorted(columns)}, the table offers {sorted(spec.sort_keys)}"
        )
    return columns
