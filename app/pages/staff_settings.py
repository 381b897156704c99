"""/admin/ajustes: the administrator's settings (app.states.staff.site_settings): how to pay for an upgrade."""

from __future__ import annotations

import reflex as rx

from app.components.forms import textarea_field
from app.services.staff.site_settings import INSTRUCTIONS_MAX
from app.states.staff.site_settings import SiteSettingsState

S = SiteSettingsState
FORM = "ajustes"
TITLE = "Ajustes"
HELP = (
    "Los anunciantes leen este texto junto a la referencia y el monto de cada mejora que piden, en su tarjeta "
    "de Mis publicaciones y en el correo de la solicitud. Incluye los datos de la transferencia (banco, tipo y "
    "número de cuenta, RUT, nombre y correo) y cualquier otro medio de pago que aceptes."
)


def _form() -> rx.Component:
    return rx.el.form(
        textarea_field(
            FORM,
            "Instrucciones de pago",
            "instructions",
            errors=S.field_errors,
            default_value=S.instructions,
            key=S.instructions,
            max_length=INSTRUCTIONS_MAX,
            rows=8,
        ),
        rx.el.button(
            rx.cond(S.busy, "Guardando…", "Guardar"), type="submit", disabled=S.busy, class_name="btn btn-primary"
        ),
        on_submit=S.save,
        reset_on_submit=False,
        no_validate=True,
        class_name="staff-form",
        aria_label="Cómo pagar una mejora",
    )


def staff_settings_page() -> rx.Component:
    """The administrator's settings page."""
    return rx.el.section(
        rx.el.h1(TITLE),
        rx.el.h2("Cómo pagar una mejora"),
        rx.el.p(HELP),
        rx.cond(S.loaded, _form()),
        class_name="area",
    )
