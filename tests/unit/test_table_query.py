"""The query a staff table sends its service: every value cleaned when it is made."""

from __future__ import annotations

from app.services.staff.shared import MAX_QUERY_ROWS, TableQuery
from app.services.staff.table_spec import PAGE_SIZE


def test_a_query_cleans_what_a_client_could_send():
    query = TableQuery(search="  Ana   MARÍA \n" + "x" * 200, sort=["x"], descending="yes", page=-3, page_size=10**9)
    assert query.search.startswith("ana maría x") and len(query.search) == 100
    assert (query.sort, query.descending, query.page, query.page_size) == ("", False, 1, MAX_QUERY_ROWS)
    assert TableQuery(page_size=0).page_size == PAGE_SIZE
    filtered = TableQuery(filters={"estado": "activos", "perfil": "", "x": 3})
    assert filtered.filters == {"estado": "activos"}
    assert (filtered.filter("estado"), filtered.filter("perfil"), filtered.filter("nada")) == ("activos", "", "")
    assert TableQuery(filters="estado=activos").filters == {}
