"""The staff tables' event handlers: written in each table's class, marked from its spec."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import replace

import pytest

import app.states.staff
from app.models import ProfileId
from app.services.staff.table_spec import Column, TableSpec
from app.states.auth import ACCESS_ATTR, requires
from app.states.staff.table import TABLE_HANDLERS, StaffTableState, _mark_handlers

SPEC = TableSpec(
    entity="prueba", title="Prueba", columns=(Column("name", "Nombre", sortable=True),), default_sort="name"
)
STAFF = frozenset({"administrador", "secretaria"})


def _concrete_tables() -> list[type]:
    for module in pkgutil.iter_modules(app.states.staff.__path__):
        importlib.import_module(f"app.states.staff.{module.name}")
    found, pending = [], [StaffTableState]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            if not sub.__dict__.get("_mixin", False):
                found.append(sub)
    return found


def test_every_table_handler_stands_on_a_line_of_its_own_class():
    """``grep "def search"`` finds UsersTableState.search: no handler is a copy made at import time."""
    tables = _concrete_tables()
    assert len(tables) >= 10
    for table in tables:
        for name in TABLE_HANDLERS:
            handler = table.event_handlers.get(name)
            if handler is not None:
                assert inspect.unwrap(handler.fn).__code__.co_qualname == f"{table.__name__}.{name}"


def _table(spec: TableSpec, names, **extra) -> type:
    async def handler(self):
        return None

    return type("Prueba", (), {"_spec": spec, **dict.fromkeys(names, handler), **extra})


def test_each_handler_is_marked_with_the_profiles_its_spec_allows():
    table = _table(SPEC, TABLE_HANDLERS)
    _mark_handlers(table)
    assert getattr(table.open_admin, ACCESS_ATTR) == {"administrador"}
    assert getattr(table.open_secretary, ACCESS_ATTR) == {"secretaria"}
    assert getattr(table.search, ACCESS_ATTR) == STAFF
    assert getattr(table.ask_delete, ACCESS_ATTR) == {"administrador"}


def test_a_handler_marked_by_hand_stays_as_it_is():
    async def open_admin(self):
        return None

    marked = requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)(open_admin)
    table = _table(SPEC, set(TABLE_HANDLERS) - {"open_admin"}, open_admin=marked)
    _mark_handlers(table)
    assert table.open_admin is marked


def test_a_table_must_define_every_handler_its_spec_offers_and_no_other():
    with pytest.raises(TypeError, match="lacks the handler export_csv"):
        _mark_handlers(_table(SPEC, set(TABLE_HANDLERS) - {"export_csv"}))
    admins_only = replace(SPEC, profiles=(ProfileId.ADMINISTRADOR,))
    with pytest.raises(TypeError, match="open_secretary: its spec lets nobody call it"):
        _mark_handlers(_table(admins_only, TABLE_HANDLERS))
