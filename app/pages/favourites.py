"""The Favoritas page: the listings saved on this device, those no longer public shown as gone, and, for a
signed-in visitor, the switch that keeps them in the account.

The list is drawn in the browser (assets/favourites.js) from the public cards of the saved listings
(POST /favoritas/tarjetas); nothing of it passes through the page's state.
"""

from __future__ import annotations

import reflex as rx

from app.components.age_gate import adults_only
from app.components.favourites import LIST_ATTRIBUTE
from app.components.layout import page_frame
from app.states.auth import AuthState
from app.states.favourites import FavouritesState

FAVOURITES_TITLE = "Favoritas"
ACCOUNT_SWITCH_LABEL = "Guardar mis favoritas en mi cuenta"


def _account_switch() -> rx.Component:
    """The explicit choice to keep the favourites in the account (signed-in visitors only)."""
    return rx.el.section(
        rx.el.h2("En tu cuenta"),
        rx.el.div(
            rx.el.button(
                rx.el.span(class_name="switch-track", aria_hidden="true"),
                ACCOUNT_SWITCH_LABEL,
                type="button",
                role="switch",
                aria_checked=rx.cond(FavouritesState.in_account, "true", "false"),
                on_click=FavouritesState.toggle_in_account,
                class_name="switch",
            ),
            class_name="switch-row",
        ),
        rx.el.p(
            rx.cond(
                FavouritesState.in_account,
                "Tus favoritas se guardan en tu cuenta y las verás en cualquier dispositivo donde ingreses. "
                "Si lo desactivas, las borramos de tu cuenta y quedan solo en este dispositivo.",
                "Tus favoritas se guardan solo en este dispositivo. Actívalo para verlas también al ingresar en "
                "otro dispositivo: se guardarán en tu cuenta, y solo tú podrás verlas.",
            ),
            class_name="muted",
        ),
        class_name="fav-account",
    )


def favourites_page() -> rx.Component:
    """/favoritas: the visitor's saved listings."""
    return page_frame(
        rx.el.h1(FAVOURITES_TITLE),
        rx.el.p(
            rx.cond(
                FavouritesState.in_account,
                "Las publicaciones que guardas con el corazón. Se guardan en este dispositivo y también en tu "
                "cuenta, para que las veas al ingresar en otro dispositivo. Solo tú puedes verlas.",
                "Las publicaciones que guardas con el corazón. Se guardan en este dispositivo: no las enviamos a "
                "nuestro servidor ni nadie más puede verlas.",
            ),
            class_name="lead",
        ),
        rx.cond(AuthState.signed_in, _account_switch()),
        adults_only(rx.el.div(class_name="fav-list", custom_attrs={LIST_ATTRIBUTE: ""})),
    )
