"""/login/segundo-factor: set up the staff second factor, or type its code (issue 20 §1).

Every step stays mounted (only hidden), so what the server writes into the
page for one step (the QR code, the secret, the recovery codes: never kept in
the state) is not lost when React renders again.
"""

from __future__ import annotations

import reflex as rx

from app.components.forms import form_alert, text_field
from app.components.layout import READY_ATTRIBUTE, page_frame
from app.routes import SECOND_FACTOR
from app.states.auth import AuthState
from app.states.second_factor import CODES, CODES_ID, LOADING, QR_ID, SECRET_ID, SETUP, VERIFY, SecondFactorState


def _code_field(form: str, label: str, name: str = "code") -> rx.Component:
    return text_field(
        form,
        label,
        name,
        auto_complete="one-time-code",
        input_mode="numeric" if form == "configurar" else "text",
        max_length=32,
        required=True,
        errors=SecondFactorState.field_errors,
        on_clear=SecondFactorState.clear_field_error,
        custom_attrs={"spellCheck": "false", "autoCapitalize": "off"},
    )


def _setup() -> rx.Component:
    return rx.el.div(
        rx.el.h2("Configura tu segundo factor"),
        rx.el.p(
            "Tu cuenta del equipo necesita un segundo factor. Escanea este código QR con tu app de autenticación "
            "(por ejemplo Google Authenticator, Microsoft Authenticator o FreeOTP)."
        ),
        rx.el.svg(
            id=QR_ID,
            role="img",
            aria_label="Código QR para tu app de autenticación",
            width="205",
            height="205",
            custom_attrs={"shapeRendering": "crispEdges"},
        ),
        rx.el.p("Si no puedes escanearlo, escribe esta clave en la app:"),
        rx.el.p(rx.el.code(id=SECRET_ID, class_name="secret-text"), aria_live="polite"),
        rx.el.form(
            _code_field("configurar", "Código de 6 dígitos de la app"),
            form_alert(SecondFactorState.error),
            rx.el.button("Confirmar", type="submit", disabled=SecondFactorState.busy, class_name="btn btn-primary"),
            on_submit=SecondFactorState.confirm,
            no_validate=True,
            class_name="account-form",
            aria_label="Confirmar segundo factor",
        ),
        hidden=SecondFactorState.step != SETUP,
    )


def _codes() -> rx.Component:
    return rx.el.div(
        rx.el.h2("Tus códigos de recuperación"),
        rx.el.p(
            "Guárdalos en un lugar seguro: cada uno sirve una sola vez para ingresar si pierdes tu teléfono. "
            "No los volveremos a mostrar."
        ),
        rx.el.ol(id=CODES_ID, class_name="recovery-codes", aria_label="Códigos de recuperación"),
        rx.link("Ya los guardé, continuar", href=SecondFactorState.landing, class_name="btn btn-primary"),
        hidden=SecondFactorState.step != CODES,
    )


def _verify() -> rx.Component:
    return rx.el.div(
        rx.el.h2("Segundo factor"),
        rx.el.form(
            _code_field("verificar", "Código de tu app o de recuperación"),
            form_alert(SecondFactorState.error),
            rx.el.button("Ingresar", type="submit", disabled=SecondFactorState.busy, class_name="btn btn-primary"),
            on_submit=SecondFactorState.verify,
            no_validate=True,
            class_name="account-form",
            aria_label="Código del segundo factor",
        ),
        rx.el.details(
            rx.el.summary("¿Perdiste tu teléfono? Configura el segundo factor de nuevo"),
            rx.el.form(
                _code_field("recuperar", "Código de recuperación", "recovery_code"),
                rx.el.button("Configurar de nuevo", type="submit", disabled=SecondFactorState.busy, class_name="btn"),
                on_submit=SecondFactorState.recover,
                no_validate=True,
                class_name="account-form",
                aria_label="Configurar de nuevo el segundo factor",
            ),
        ),
        hidden=SecondFactorState.step != VERIFY,
    )


def second_factor_page() -> rx.Component:
    """/login/segundo-factor."""
    return page_frame(
        rx.el.section(
            rx.el.h1("Confirma tu ingreso"),
            rx.cond(SecondFactorState.step == LOADING, rx.el.p("Cargando…", class_name="loading")),
            _setup(),
            _codes(),
            _verify(),
            rx.el.p(
                rx.el.button("Cancelar y cerrar sesión", type="button", on_click=AuthState.sign_out, class_name="btn"),
                hidden=SecondFactorState.step == CODES,
            ),
            class_name="account",
            # A guarded page's first screen (app.web.preview) stays until this page shows itself: a staff page
            # asked for before the second factor comes here, and its "checking your access" screen must go.
            custom_attrs={READY_ATTRIBUTE: rx.cond(SecondFactorState.step == LOADING, "", SECOND_FACTOR)},
        )
    )
