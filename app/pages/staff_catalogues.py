"""/admin/categoriaProfesor, categoriaAgencia, tipoProfesor, servicioProfesor, servicioApp and
perfilUsuario: each catalogue on the one staff table (the tiers with buttons to reorder them)."""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from app.components.staff_table import Row, staff_table
from app.states.staff.catalogues import CATALOGUE_STATES, TiersTableState
from app.states.staff.table import StaffTableState


def _tier_moves(row: Row) -> list[rx.Component]:
    return [
        rx.el.button(
            "Subir",
            type="button",
            on_click=TiersTableState.move_up(row["uid"]),
            class_name="btn",
            aria_label="Subir " + row["name"].to(str),
        ),
        rx.el.button(
            "Bajar",
            type="button",
            on_click=TiersTableState.move_down(row["uid"]),
            class_name="btn",
            aria_label="Bajar " + row["name"].to(str),
        ),
    ]


def _catalogue_page(state: type[StaffTableState]) -> Callable[[], rx.Component]:
    row_actions = _tier_moves if state is TiersTableState else None

    def component() -> rx.Component:
        return staff_table(state, row_actions=row_actions)

    return component


CATALOGUE_PAGES: dict[str, Callable[[], rx.Component]] = {
    key: _catalogue_page(state) for key, state in CATALOGUE_STATES.items()
}
"""Each catalogue's page component, by catalogue key (its path under /admin)."""
