"""/admin/mejorasPublicacion: the upgrade requests on the staff table, with the approve and deny dialogs."""

from __future__ import annotations

from typing import Any

import reflex as rx

from app.components.forms import date_field, form_alert, text_field, textarea_field
from app.components.staff_table import Row, staff_table
from app.models.listings import PAYMENT_REFERENCE_MAX, REASON_MAX
from app.states.staff.upgrades import APPROVE, DENY, PENDING, StaffUpgradesState

S = StaffUpgradesState
APPROVE_FORM = "aprobar-mejora"
DENY_FORM = "rechazar-mejora"


def _row_actions(row: Row) -> list[rx.Component]:
    return [
        rx.cond(
            row["status"] == PENDING,
            rx.fragment(
                rx.el.button(
                    "Aprobar",
                    type="button",
                    on_click=S.open_approve(row["uid"]),
                    class_name="btn btn-primary",
                    aria_label="Aprobar la mejora de " + row["listing_name"].to(str),
                ),
                rx.el.button(
                    "Rechazar",
                    type="button",
                    on_click=S.open_deny(row["uid"]),
                    class_name="btn",
                    aria_label="Rechazar la mejora de " + row["listing_name"].to(str),
                ),
            ),
        )
    ]


def _day(label: str, name: str, value: rx.Var[Any] | str) -> rx.Component:
    return date_field(
        APPROVE_FORM,
        label,
        name,
        on_pick=lambda day: S.pick_day(name, day),
        default_value=value,
        # A day picked in the calendar changes the value: the input remounts showing it.
        key=value,
        errors=S.field_errors,
        required=True,
    )


def _actions(label: str) -> rx.Component:
    return rx.el.div(
        rx.el.button(
            rx.cond(S.busy, "Guardando…", label), type="submit", disabled=S.busy, class_name="btn btn-primary"
        ),
        rx.dialog.close(rx.el.button("Cancelar", type="button", class_name="btn")),
        class_name="dialog-actions",
    )


def _approve_form() -> rx.Component:
    return rx.el.form(
        rx.el.p(
            "Indica los días pagados (el primero y el último, incluidos) y la referencia del pago que confirmaste."
        ),
        _day("Primer día", "starts_on", S.starts_on),
        _day("Último día", "ends_on", S.ends_on),
        text_field(
            APPROVE_FORM,
            "Referencia del pago",
            "payment_reference",
            errors=S.field_errors,
            max_length=PAYMENT_REFERENCE_MAX,
        ),
        form_alert(S.error),
        _actions("Aprobar"),
        on_submit=S.approve,
        reset_on_submit=False,
        no_validate=True,
        class_name="staff-form",
        aria_label="Aprobar mejora",
    )


def _deny_form() -> rx.Component:
    return rx.el.form(
        textarea_field(
            DENY_FORM, "Motivo (lo verá el anunciante)", "reason", errors=S.field_errors, max_length=REASON_MAX, rows=4
        ),
        form_alert(S.error),
        _actions("Rechazar"),
        on_submit=S.deny,
        reset_on_submit=False,
        no_validate=True,
        class_name="staff-form",
        aria_label="Rechazar mejora",
    )


def _decision_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(rx.cond(S.decision == APPROVE, "Aprobar mejora", "Rechazar mejora")),
            rx.dialog.description(S.decision_title),
            rx.cond(S.decision == APPROVE, _approve_form(), rx.cond(S.decision == DENY, _deny_form())),
            class_name="staff-dialog",
        ),
        open=S.decision != "",
        on_open_change=S.close_decision,
    )


def staff_upgrades_page() -> rx.Component:
    """The administrator's upgrade desk."""
    return rx.fragment(staff_table(S, row_actions=_row_actions), _decision_dialog())
