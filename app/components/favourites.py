"""The heart that saves a listing in the visitor's favourites, and the markers assets/favourites.js reads.

The heart is a toggle button (``aria-pressed``) whose state lives in the browser:
assets/favourites.js keeps the list in local storage, marks every heart on the
page and handles the presses without any server round trip. The server-rendered
list of the Favoritas page (app/web/templates/favourites.html) draws the same button.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.sequence import StringVar

from app.states.auth import AuthState
from app.states.favourites import FavouritesState

# What screen readers call a heart (its pressed state says whether the listing is saved).
HEART_LABEL = "Guardar en favoritas: "
HEART_CLASS = "fav-heart"
# The listing uid a heart saves (assets/favourites.js finds the hearts by it).
HEART_ATTRIBUTE = "data-favorita"
# The listing's name, which assets/favourites.js keeps with the saved uid: a listing no longer public is named by it.
HEART_NAME_ATTRIBUTE = "data-favorita-nombre"
# The element the Favoritas page's list is drawn into (by assets/favourites.js).
LIST_ATTRIBUTE = "data-favoritas-lista"
# Present only while a signed-in visitor keeps favourites in the account: a press then also updates the account.
ACCOUNT_ATTRIBUTE = "data-favoritas-cuenta"


def favourite_button(uid: rx.Var[str] | str, name: StringVar[str] | str) -> rx.Component:
    """The heart of one listing (``uid``, ``name``: its uid and display name, vars or text)."""
    return rx.el.button(
        rx.el.span("♥", aria_hidden="true"),
        type="button",
        class_name=HEART_CLASS,
        aria_pressed="false",
        aria_label=HEART_LABEL + name,
        custom_attrs={HEART_ATTRIBUTE: uid, HEART_NAME_ATTRIBUTE: name},
    )


def favourites_account() -> rx.Component:
    """On every page of a signed-in visitor: the check whether the account keeps the favourites and, while it
    does, the hidden button a heart's press clicks to send the list there (assets/favourites.js)."""
    return cast(
        rx.Component,
        rx.cond(
            AuthState.signed_in,
            rx.fragment(
                rx.el.span(hidden=True, on_mount=FavouritesState.load_account),
                rx.cond(
                    FavouritesState.in_account,
                    rx.el.button(
                        type="button",
                        hidden=True,
                        tab_index=-1,
                        on_click=rx.call_script(
                            "window.favoritas ? window.favoritas.list() : []", callback=FavouritesState.store
                        ),
                        custom_attrs={ACCOUNT_ATTRIBUTE: ""},
                    ),
                ),
            ),
        ),
    )
