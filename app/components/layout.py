"""The frame of every page: header, main content and footer."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex.experimental.client_state import ClientStateVar

from app.components.favourites import favourites_account
from app.components.forms import form_alert, password_field
from app.content.legal import LEGAL_PAGES
from app.identity.provider import MAX_PASSWORD_LENGTH
from app.routes import FAVOURITES, LOGIN, MY_ACCOUNT, PUBLIC_HOME, REPORT_PATH, TRANS_HOME, legal_path
from app.settings import get_settings
from app.states.account import PasswordDialogState
from app.states.auth import AuthState

# Set by a page, to the path it shows, on an element that appears once that path's content is in:
# then the first screen the document brought (app.web.preview) leaves (assets/site.js).
READY_ATTRIBUTE = "data-vista-lista"
ACCESS_CHECK = "Comprobando tu acceso…"
# The name screen readers give the notifications region (app/app.py's toaster).
TOAST_REGION_LABEL = "Notificaciones"


def header() -> rx.Component:
    """Top bar: brand and the two sections."""
    return rx.el.header(
        rx.el.nav(
            rx.link(get_settings().site_name, href=PUBLIC_HOME, class_name="brand"),
            rx.el.div(
                rx.link("Escorts", href=PUBLIC_HOME, class_name="nav-link"),
                rx.link("Trans", href=TRANS_HOME, class_name="nav-link"),
                rx.link("Denunciar", href=REPORT_PATH, class_name="nav-link nav-report"),
                account_menu(),
                class_name="nav-links",
            ),
            class_name="nav",
            aria_label="Principal",
        ),
        class_name="site-header",
    )


def _account_actions() -> list[rx.Component]:
    """The signed-in user's name (their panel), password change and sign-out."""
    return [
        rx.link(AuthState.user_name, href=AuthState.user_home, class_name="nav-link nav-user"),
        rx.link("Mi cuenta", href=MY_ACCOUNT, class_name="nav-link"),
        rx.el.button(
            "Cambiar contraseña",
            type="button",
            on_click=PasswordDialogState.set_open(True),
            class_name="link-button",
        ),
        rx.el.button("Cerrar sesión", type="button", on_click=AuthState.sign_out, class_name="link-button"),
    ]


def account_menu() -> rx.Component:
    """Sign-in link, or the account actions: in a row on wide screens, folded into "Cuenta" below 1024 px.

    Only one of the two is displayed (assets/styles.css), so screen readers meet the actions once;
    the fold is a native <details>, so it opens with Enter or Space; assets/site.js closes it on
    Escape, on a click outside and once an action is chosen.
    """
    return cast(
        rx.Component,
        rx.cond(
            AuthState.signed_in,
            rx.fragment(
                rx.el.div(*_account_actions(), class_name="account-menu account-inline"),
                rx.el.details(
                    rx.el.summary("Cuenta", class_name="nav-link account-summary"),
                    rx.el.div(*_account_actions(), class_name="account-panel"),
                    class_name="account-folded",
                    custom_attrs={"data-account-menu": ""},
                ),
            ),
            rx.link("Ingresar", href=LOGIN, class_name="nav-link"),
        ),
    )


def _password_field(label: str, name: str, auto_complete: str) -> rx.Component:
    return password_field(
        "pw",
        label,
        name,
        auto_complete,
        max_length=MAX_PASSWORD_LENGTH,
        errors=PasswordDialogState.field_errors,
        on_clear=PasswordDialogState.clear_field_error,
    )


def password_dialog() -> rx.Component:
    """Change-password dialog, available on every page to a signed-in user."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Cambiar contraseña"),
            rx.dialog.description("Al cambiarla cerramos tus sesiones en otros dispositivos.", class_name="muted"),
            rx.el.form(
                _password_field("Contraseña actual", "current_password", "current-password"),
                _password_field("Nueva contraseña", "new_password", "new-password"),
                _password_field("Repite la nueva contraseña", "new_password_confirm", "new-password"),
                form_alert(PasswordDialogState.error),
                rx.el.div(
                    rx.el.button("Guardar", type="submit", class_name="btn btn-primary"),
                    rx.dialog.close(rx.el.button("Cancelar", type="button", class_name="btn")),
                    class_name="dialog-actions",
                ),
                on_submit=PasswordDialogState.change_password,
                no_validate=True,  # the server's Spanish messages, under their fields
                class_name="account-form",
            ),
        ),
        open=PasswordDialogState.open,
        on_open_change=PasswordDialogState.set_open,
    )


def footer() -> rx.Component:
    """Bottom bar: legal pages and the adults-only reminder."""
    return rx.el.footer(
        # The visitor's saved listings (the header has no room left on a phone).
        rx.el.p(rx.link("Tus favoritas", href=FAVOURITES, class_name="footer-link"), class_name="footer-favourites"),
        rx.el.nav(
            *[rx.link(page.title, href=legal_path(page.slug), class_name="footer-link") for page in LEGAL_PAGES],
            class_name="footer-links",
            aria_label="Información legal",
        ),
        rx.el.p(
            "Sitio exclusivo para mayores de 18 años. Solo publicamos avisos de personas adultas que anuncian "
            "por voluntad propia; cada aviso es revisado antes de publicarse.",
            class_name="footer-note",
        ),
        class_name="site-footer",
    )


def page_frame(*children: rx.Component) -> rx.Component:
    """Header, the page's content and the footer."""
    return rx.el.div(
        header(),
        rx.el.main(*children, class_name="site-main"),
        footer(),
        password_dialog(),
        favourites_account(),
        class_name="site",
    )


# The address (path and query) whose guarded content this document showed last; a reload starts it over.
_SHOWN_IN_DOCUMENT = ClientStateVar.create("guarded_shown_url", default="")


def guarded_content(ready: rx.Var[Any] | bool, content: rx.Component) -> rx.Component:
    """A guarded page's ``content`` once the server accepted the caller and read its data (``ready``)
    in this load; until then, the access check. The content is marked ready for the document's first screen.

    "In this load": after a reload, the tab's state comes back as it was (``ready`` included) before
    the page's loaders run again, and a press on that stale content could be undone by them (the
    wizard's "Atrás" landing before its loader put the saved step back). ``is_hydrated`` is true only
    once every loader of this load has run.

    When the loaders run again over content already on screen (the websocket dropped and
    reconnected), the content stays, inert (seen, not pressed), until they end: the visitor's place
    on the page and what they chose or typed and had not sent are still there (a remount would
    clear them). A refused caller's check ends with it gone. Only content this document showed at
    this same address is kept, so a reload, or another page, mounts afresh from what its loaders read.
    """
    shown = rx.State.is_hydrated & ready
    url = rx.State.router.url
    address = url.path + "?" + url.query
    kept = ~rx.State.is_hydrated & (_SHOWN_IN_DOCUMENT.value == address)
    return cast(
        rx.Component,
        rx.cond(
            shown | kept,
            rx.el.div(
                content,
                class_name="area-ready",
                custom_attrs={"inert": ~shown, READY_ATTRIBUTE: rx.cond(shown, url.path, "")},
                on_mount=_SHOWN_IN_DOCUMENT.set_value(address),
            ),
            rx.el.p(ACCESS_CHECK, class_name="loading"),
        ),
    )
