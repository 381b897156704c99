"""/admin/usuarios and /bbitamia/usuarios: the users table with ban and deactivate buttons.

The administrator's table also resets a staff member's second factor (issue 20 §1).
"""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from app.components.staff_table import Row, staff_table
from app.models import STAFF_PROFILES, ProfileId
from app.states.staff.users import UsersTableState


def _row_actions(row: Row) -> list[rx.Component]:
    """Ban and deactivation buttons, only where the viewer may press them (the row says: ``puede_*``)."""
    return [
        rx.cond(
            row["puede_suspender"] == "true",
            rx.cond(
                row["ban"] == "true",
                rx.el.button(
                    "Quitar suspensión", type="button", on_click=UsersTableState.unban(row["uid"]), class_name="btn"
                ),
                rx.el.button("Suspender", type="button", on_click=UsersTableState.ban(row["uid"]), class_name="btn"),
            ),
        ),
        rx.cond(
            row["puede_desactivar"] == "true",
            rx.cond(
                row["activo"] == "true",
                rx.el.button(
                    "Desactivar", type="button", on_click=UsersTableState.deactivate(row["uid"]), class_name="btn"
                ),
                rx.el.button(
                    "Reactivar", type="button", on_click=UsersTableState.reactivate(row["uid"]), class_name="btn"
                ),
            ),
        ),
    ]


def _admin_row_actions(row: Row) -> list[rx.Component]:
    staff = rx.Var.create(sorted(p.value for p in STAFF_PROFILES)).contains(row["perfil_uid"])
    return [
        *_row_actions(row),
        rx.cond(
            staff,
            rx.el.button(
                "Restablecer segundo factor",
                type="button",
                on_click=UsersTableState.reset_second_factor(row["uid"]),
                class_name="btn",
            ),
        ),
    ]


def _users_page(area: ProfileId) -> Callable[[], rx.Component]:
    actions = _admin_row_actions if area == ProfileId.ADMINISTRADOR else _row_actions

    def component() -> rx.Component:
        return staff_table(UsersTableState, row_actions=actions)

    return component


admin_users_page = _users_page(ProfileId.ADMINISTRADOR)
secretary_users_page = _users_page(ProfileId.SECRETARIA)
