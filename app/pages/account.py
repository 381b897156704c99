"""Account pages: /login (sign in, sign up, reset), the "one more step" screen, e-mailed links."""

from __future__ import annotations

import reflex as rx

from app.components.forms import form_alert, password_field, text_field
from app.components.layout import page_frame
from app.identity.provider import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH
from app.models.users import USER_NAME_MAX
from app.routes import LOGIN
from app.states.account import AccountActionState, LoginState
from app.states.forms import ClearingFormState

MAX_EMAIL_LENGTH = 254
PASSWORD_HINT = f"Entre {MIN_PASSWORD_LENGTH} y {MAX_PASSWORD_LENGTH} caracteres; evita contraseñas comunes."

# No sending until this load's loader has run (LoginState.busy starts true): after a reload or a
# return to /login, the tab's old state shows first, busy false, and a press then would go before
# the loader and be answered as of the old page.
# State vars read on the class are Vars to Reflex, their declared Python types to mypy.
_LOCKED: rx.Var[bool] = LoginState.busy | ~rx.State.is_hydrated  # type: ignore[assignment]


def _password(form: str, label: str, name: str, auto_complete: str, state: type[ClearingFormState]) -> rx.Component:
    return password_field(
        form,
        label,
        name,
        auto_complete,
        max_length=MAX_PASSWORD_LENGTH,
        errors=state.field_errors,
        on_clear=state.clear_field_error,
    )


def _email(form: str) -> rx.Component:
    """The e-mail field every account form starts with."""
    return text_field(
        form,
        "Correo electrónico",
        "email",
        type_="email",
        auto_complete="email",
        required=True,
        max_length=MAX_EMAIL_LENGTH,
        errors=LoginState.field_errors,
        on_clear=LoginState.clear_field_error,
    )


def _tab(slug: str, label: str) -> rx.Component:
    return rx.el.button(
        label,
        type="button",
        on_click=LoginState.select_tab(slug),
        class_name=rx.cond(LoginState.tab == slug, "tab tab-active", "tab"),
        custom_attrs={"aria-pressed": rx.cond(LoginState.tab == slug, "true", "false")},
    )


def sign_in_form() -> rx.Component:
    """E-mail and password."""
    return rx.el.form(
        rx.el.h2("Ingresar"),
        _email("signin"),
        _password("signin", "Contraseña", "password", "current-password", LoginState),
        form_alert(LoginState.error),
        rx.el.button("Ingresar", type="submit", disabled=_LOCKED, class_name="btn btn-primary"),
        on_submit=LoginState.sign_in,
        no_validate=True,
        hidden=LoginState.tab != "ingresar",
        class_name="account-form",
        aria_label="Ingresar",
    )


def sign_up_form() -> rx.Component:
    """New visitor or advertiser account."""
    return rx.el.form(
        rx.el.h2("Crear cuenta"),
        _email("signup"),
        text_field(
            "signup",
            "Nombre o apodo (opcional)",
            "display_name",
            auto_complete="nickname",
            max_length=USER_NAME_MAX,
            errors=LoginState.field_errors,
            on_clear=LoginState.clear_field_error,
        ),
        _password("signup", "Contraseña", "password", "new-password", LoginState),
        rx.el.p(PASSWORD_HINT, class_name="muted hint"),
        _password("signup", "Repite la contraseña", "password_confirm", "new-password", LoginState),
        rx.el.fieldset(
            rx.el.legend("Quiero…"),
            rx.el.label(
                rx.el.input(type="radio", name="profile", value="cliente", default_checked=True),
                " Ver avisos (cliente)",
            ),
            rx.el.label(
                rx.el.input(type="radio", name="profile", value="profesor"),
                " Publicar mis avisos (anunciante)",
            ),
            class_name="choices",
        ),
        rx.el.label(
            rx.el.input(type="checkbox", name="adult", required=True),
            " Confirmo que soy mayor de 18 años y acepto los términos del sitio.",
            class_name="check",
        ),
        # The proof of work a busy shared address needs: assets/proof.js answers the challenge into
        # it and sends the form again (uncontrolled: React never resets what the script wrote).
        rx.el.input(
            type="hidden",
            name="prueba",
            default_value="",
            custom_attrs={"data-proof-challenge": LoginState.proof_challenge},
        ),
        form_alert(LoginState.error),
        rx.el.button("Crear cuenta", type="submit", disabled=_LOCKED, class_name="btn btn-primary"),
        on_submit=LoginState.sign_up,
        no_validate=True,
        hidden=LoginState.tab != "registro",
        class_name="account-form",
        aria_label="Crear cuenta",
    )


def reset_request_form() -> rx.Component:
    """Ask for a password-reset link."""
    return rx.el.form(
        rx.el.h2("Recuperar contraseña"),
        rx.el.p("Te enviaremos un enlace para elegir una nueva contraseña.", class_name="muted"),
        _email("forgot"),
        form_alert(LoginState.error),
        rx.cond(LoginState.notice != "", rx.el.p(LoginState.notice, role="status", class_name="form-notice")),
        rx.el.button("Enviar enlace", type="submit", disabled=_LOCKED, class_name="btn btn-primary"),
        on_submit=LoginState.request_reset,
        no_validate=True,
        hidden=LoginState.tab != "recuperar",
        class_name="account-form",
        aria_label="Recuperar contraseña",
    )


def login_page() -> rx.Component:
    """/login."""
    return page_frame(
        rx.el.section(
            rx.el.h1("Tu cuenta"),
            rx.el.div(
                _tab("ingresar", "Ingresar"),
                _tab("registro", "Crear cuenta"),
                _tab("recuperar", "Olvidé mi contraseña"),
                class_name="tabs",
            ),
            # All three stay mounted (only hidden) so nothing typed is lost when switching or hydrating.
            sign_in_form(),
            sign_up_form(),
            reset_request_form(),
            class_name="account",
        )
    )


def signup_successful_page() -> rx.Component:
    """/login/auth/signup-sucessful: the "one more step" screen."""
    return page_frame(
        rx.el.section(
            rx.el.h1("Un paso más"),
            rx.cond(
                LoginState.pending_email != "",
                rx.el.p("Te enviamos un correo a ", rx.el.strong(LoginState.pending_email), "."),
                rx.el.p("Te enviamos un correo."),
            ),
            rx.el.p(
                "Abre el enlace del correo para confirmar tu cuenta; después podrás ingresar. "
                "El enlace vale por 24 horas. Si no lo ves, revisa la carpeta de spam."
            ),
            rx.link("Ir a ingresar", href=LOGIN, class_name="btn btn-primary"),
            class_name="account",
        )
    )


def _reset_form() -> rx.Component:
    return rx.el.form(
        rx.el.h2("Elige una nueva contraseña"),
        _password("reset", "Nueva contraseña", "password", "new-password", AccountActionState),
        rx.el.p(PASSWORD_HINT, class_name="muted hint"),
        _password("reset", "Repite la nueva contraseña", "password_confirm", "new-password", AccountActionState),
        form_alert(AccountActionState.error),
        rx.el.button(
            "Guardar contraseña", type="submit", disabled=AccountActionState.busy, class_name="btn btn-primary"
        ),
        on_submit=AccountActionState.reset_password,
        no_validate=True,
        class_name="account-form",
        aria_label="Nueva contraseña",
    )


def account_action_page() -> rx.Component:
    """/login/accion: where the e-mailed verification and reset links land."""
    done = rx.el.div(
        rx.el.p(AccountActionState.message, role="status", class_name="form-notice"),
        rx.link("Ir a ingresar", href=LOGIN, class_name="btn btn-primary"),
    )
    return page_frame(
        rx.el.section(
            rx.el.h1("Tu cuenta"),
            rx.match(
                AccountActionState.status,
                ("loading", rx.el.p("Revisando el enlace…", class_name="loading")),
                ("reset_form", _reset_form()),
                ("verified", done),
                ("reset_done", done),
                rx.el.div(
                    rx.el.p(AccountActionState.message, role="alert", class_name="form-error"),
                    rx.link("Volver a ingresar", href=LOGIN, class_name="btn"),
                ),
            ),
            class_name="account",
        )
    )
