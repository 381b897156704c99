"""/admin/publicacion and /bbitamia/publicacion: every listing on the staff table, with take-down
(a dialog asking the reason the owner will read) and republish buttons."""

from __future__ import annotations

import reflex as rx

from app.components.forms import form_alert
from app.components.staff_table import Row, staff_table
from app.models.listings import REASON_MAX
from app.states.staff.listings import StaffListingsState

REASON_ID = "despublicar-motivo"


def _row_actions(row: Row) -> list[rx.Component]:
    return [
        rx.cond(
            row["can_unpublish"] == "true",
            rx.el.button(
                "Despublicar", type="button", on_click=StaffListingsState.ask_unpublish(row["uid"]), class_name="btn"
            ),
        ),
        rx.cond(
            row["can_republish"] == "true",
            rx.el.button(
                "Republicar", type="button", on_click=StaffListingsState.republish(row["uid"]), class_name="btn"
            ),
        ),
    ]


def _unpublish_dialog() -> rx.Component:
    state = StaffListingsState
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Despublicar «", state.unpublish_label, "»"),
            rx.dialog.description("La publicación deja de verse. El anunciante verá el motivo en sus publicaciones."),
            rx.el.form(
                rx.el.div(
                    rx.el.label("Motivo", html_for=REASON_ID),
                    rx.el.textarea(id=REASON_ID, name="reason", required=True, max_length=REASON_MAX),
                    class_name="field",
                ),
                form_alert(state.unpublish_error),
                rx.el.div(
                    rx.el.button("Despublicar", type="submit", class_name="btn btn-primary"),
                    rx.dialog.close(rx.el.button("Cancelar", type="button", class_name="btn")),
                    class_name="dialog-actions",
                ),
                on_submit=state.unpublish,
                reset_on_submit=True,
                no_validate=True,
                class_name="staff-form",
            ),
            class_name="staff-dialog",
        ),
        open=state.unpublish_uid != "",
        on_open_change=state.close_unpublish,
    )


def staff_listings_page() -> rx.Component:
    """The listings table (of either staff area) with its unpublish dialog."""
    return rx.fragment(staff_table(StaffListingsState, row_actions=_row_actions), _unpublish_dialog())
