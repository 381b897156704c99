"""The query a staff table sends its service: every value cleaned when it is made."""

from __future__ import annotations

from typing import ClassVar

import reflex as rx
from reflex_base.registry import RegistrationContext

from app.services.staff.shared import MAX_QUERY_ROWS, TableQuery
from app.services.staff.table_spec import PAGE_SIZE, Column, TableSpec
from app.states.staff.table import StaffTableState


def test_a_query_cleans_what_a_client_could_send():
    query = TableQuery(search="  Ana   MARÍA \n" + "x" * 200, sort=["x"], descending="yes", page=-3, page_size=10**9)
    assert query.search.startswith("ana maría x") and len(query.search) == 100
    assert (query.sort, query.descending, query.page, query.page_size) == ("", False, 1, MAX_QUERY_ROWS)
    assert TableQuery(page_size=0).page_size == PAGE_SIZE
    filtered = TableQuery(filters={"estado": "activos", "perfil": "", "x": 3})
    assert filtered.filters == {"estado": "activos"}
    assert (filtered.filter("estado"), filtered.filter("perfil"), filtered.filter("nada")) == ("activos", "", "")
    assert TableQuery(filters="estado=activos").filters == {}


SPEC = TableSpec(
    entity="prueba", title="Prueba", columns=(Column("name", "Nombre", sortable=True),), default_sort="name"
)


def test_a_mixin_table_gets_no_handlers_and_each_concrete_table_its_own():
    with RegistrationContext.get().fork():

        class SharedHooks(StaffTableState, mixin=True):
            _spec: ClassVar[TableSpec] = SPEC

        class First(SharedHooks, rx.State):
            pass

        class Second(SharedHooks, rx.State):
            pass

        assert "search" not in SharedHooks.__dict__ and "open_admin" not in SharedHooks.__dict__
        for table in (First, Second):
            assert {"open_admin", "open_secretary", "search", "sort", "next_page"} <= set(table.event_handlers)
        assert First.__dict__["search"] is not Second.__dict__["search"]
