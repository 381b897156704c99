"""The 18+ notice shown before any listing content, remembered on the device."""

from __future__ import annotations

from typing import cast

import reflex as rx

from app.states.public import AgeGateState

AGE_TITLE = "Contenido para personas adultas"
AGE_TEXT = (
    "Este sitio contiene avisos de servicios para adultos. Para continuar, confirma que tienes "
    "18 años o más y que aceptas ver este contenido. Tu respuesta se recordará en este dispositivo."
)
AGE_ACCEPT = "Tengo 18 años o más, entrar"
AGE_LEAVE_URL = "https://www.google.cl"


def age_notice() -> rx.Component:
    """The notice itself: confirm being of age, or leave."""
    return rx.el.section(
        rx.el.div(
            rx.el.h2(AGE_TITLE, id="age-title"),
            rx.el.p(AGE_TEXT),
            rx.el.div(
                rx.el.button(AGE_ACCEPT, on_click=AgeGateState.accept, class_name="btn btn-primary"),
                rx.el.a("Salir", href=AGE_LEAVE_URL, class_name="btn btn-ghost", rel="noopener"),
                class_name="age-actions",
            ),
            class_name="age-box",
        ),
        class_name="age-gate",
        role="dialog",
        aria_labelledby="age-title",
        custom_attrs={"aria-modal": "true"},
    )


def adults_only(content: rx.Component) -> rx.Component:
    """Render ``content`` only after the visitor confirmed being of age."""
    return cast(
        rx.Component,
        rx.cond(
            rx.State.is_hydrated,
            rx.cond(AgeGateState.accepted, content, age_notice()),
            rx.el.p("Cargando…", class_name="loading"),
        ),
    )


def age_notice_first() -> rx.Component:
    """The notice alone, at the top of a page whose listings come further down, until confirmed."""
    return cast(rx.Component, rx.cond(rx.State.is_hydrated & ~AgeGateState.accepted, age_notice()))
