"""/mi-cuenta: download, correct or delete my data (issue 20 §2), for every profile (app.states.privacy)."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.components.forms import form_alert, password_field, text_field
from app.components.layout import guarded_content, page_frame
from app.core.text import EMAIL_MAX
from app.identity.provider import MAX_PASSWORD_LENGTH
from app.routes import ADVERTISER_HOME, ADVERTISER_NOTICES, FAVOURITES
from app.states.account import PasswordDialogState
from app.states.privacy import EmailChangeState, PrivacyState

HEADING = "Mi cuenta"
# The deletion form's messages, read on the class: a var of a dict to Reflex, the declared dict to mypy
# (docs/ARCHITECTURE.md, "Types").
_DELETE_ERRORS = cast(ObjectVar[dict[str, str]], PrivacyState.field_errors)
EXPORT_TEXT = (
    "Te preparamos un archivo ZIP con todo lo que guardamos de tu cuenta: tus datos de perfil, tus publicaciones "
    "con su historial de revisión, sus estadísticas, tus solicitudes de mejora y de verificación con sus "
    "decisiones, las fechas de tus sesiones, tus favoritas guardadas en la cuenta, tus preferencias de avisos y "
    "tus propias fotos. No incluye datos de otras personas (quienes envían denuncias) ni las notas internas del "
    "equipo. Te enviaremos el enlace por correo; vale 48 horas y solo funciona con tu sesión iniciada."
)
CORRECT_TEXT = "Puedes corregir tus datos tú misma o tú mismo:"
DELETE_TEXT = (
    "Eliminamos tu cuenta para siempre: tus publicaciones y todas sus fotos, tus solicitudes de verificación, "
    "tus sesiones, estadísticas, favoritas y avisos. El registro de auditoría del equipo conserva solo un "
    "identificador anónimo, y las denuncias sobre tus publicaciones quedan sin vínculo con ellas. Después "
    "podrás crear una cuenta nueva con el mismo correo. No se puede deshacer."
)


def _export_section() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Descargar mis datos"),
        rx.el.p(EXPORT_TEXT),
        rx.cond(
            PrivacyState.export_notice != "",
            rx.el.p(PrivacyState.export_notice, role="status", class_name="form-notice"),
        ),
        rx.el.button(
            "Pedir mis datos",
            type="button",
            on_click=PrivacyState.request_export,
            disabled=PrivacyState.busy,
            class_name="btn btn-primary",
        ),
        aria_label="Descargar mis datos",
    )


def _correct_section() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Corregir mis datos"),
        rx.el.p(CORRECT_TEXT),
        rx.el.ul(
            rx.el.li(
                "Tu correo (",
                rx.el.strong(PrivacyState.email_hint),
                "): cámbialo con el formulario de abajo; el cambio se hace cuando abres el enlace que "
                "enviamos a la nueva dirección.",
            ),
            rx.el.li(
                "Tu contraseña: ",
                rx.el.button(
                    "Cambiar contraseña",
                    type="button",
                    on_click=PasswordDialogState.set_open(True),
                    class_name="link-button",
                ),
                ".",
            ),
            rx.cond(
                PrivacyState.advertiser,
                rx.fragment(
                    rx.el.li(
                        "Tus publicaciones (nombre, edad, tarifas, contacto, fotos…): edítalas en ",
                        rx.link("Mis publicaciones", href=ADVERTISER_HOME),
                        ". Un cambio a una publicación visible pasa por revisión antes de mostrarse.",
                    ),
                    rx.el.li(
                        "Tus avisos por correo: en ",
                        rx.link("Avisos por correo", href=ADVERTISER_NOTICES),
                        ".",
                    ),
                ),
            ),
            rx.el.li("Tus favoritas guardadas en la cuenta: en ", rx.link("Favoritas", href=FAVOURITES), "."),
        ),
        _email_form(),
        aria_label="Corregir mis datos",
    )


def _email_form() -> rx.Component:
    return rx.el.form(
        rx.el.h3("Cambiar mi correo"),
        text_field(
            "email",
            "Nuevo correo",
            "new_email",
            type_="email",
            auto_complete="email",
            required=True,
            max_length=EMAIL_MAX,
            errors=EmailChangeState.field_errors,
            on_clear=EmailChangeState.clear_field_error,
        ),
        password_field(
            "email",
            "Tu contraseña",
            "password",
            "current-password",
            max_length=MAX_PASSWORD_LENGTH,
            errors=EmailChangeState.field_errors,
            on_clear=EmailChangeState.clear_field_error,
        ),
        form_alert(EmailChangeState.error),
        rx.cond(
            EmailChangeState.notice != "",
            rx.el.p(EmailChangeState.notice, role="status", class_name="form-notice"),
        ),
        rx.el.button("Enviar enlace", type="submit", disabled=EmailChangeState.busy, class_name="btn btn-primary"),
        on_submit=EmailChangeState.request_email_change,
        no_validate=True,
        class_name="account-form",
        aria_label="Cambiar mi correo",
    )


def _delete_section() -> rx.Component:
    return rx.el.section(
        rx.el.h2("Eliminar mi cuenta"),
        rx.el.p(DELETE_TEXT),
        rx.el.form(
            password_field(
                "delete",
                "Tu contraseña",
                "password",
                "current-password",
                max_length=MAX_PASSWORD_LENGTH,
                errors=PrivacyState.field_errors,
                on_clear=PrivacyState.clear_field_error,
            ),
            rx.cond(
                PrivacyState.staff,
                text_field(
                    "delete",
                    "Código de tu aplicación de autenticación",
                    "code",
                    auto_complete="one-time-code",
                    max_length=32,
                    input_mode="numeric",
                    errors=PrivacyState.field_errors,
                    on_clear=PrivacyState.clear_field_error,
                ),
            ),
            rx.el.label(
                rx.el.input(type="checkbox", name="confirm"),
                " Entiendo que mi cuenta y mis datos se eliminan para siempre.",
                class_name="check",
            ),
            rx.cond(
                _DELETE_ERRORS.contains("confirm"),
                rx.el.p(_DELETE_ERRORS["confirm"], role="alert", class_name="form-error"),
            ),
            form_alert(PrivacyState.error),
            rx.el.button("Eliminar mi cuenta", type="submit", disabled=PrivacyState.busy, class_name="btn btn-danger"),
            on_submit=PrivacyState.delete_account,
            no_validate=True,
            reset_on_submit=False,
            class_name="account-form",
            aria_label="Eliminar mi cuenta",
        ),
        aria_label="Eliminar mi cuenta",
    )


def my_account_page() -> rx.Component:
    """The page, shown once the server accepted the caller and read their account."""
    return page_frame(
        guarded_content(
            PrivacyState.loaded,
            rx.el.div(
                rx.el.h1(HEADING),
                _export_section(),
                _correct_section(),
                _delete_section(),
                class_name="account",
            ),
        )
    )
