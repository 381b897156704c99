"""/my/cuenta/avisos (Mi cuenta): which e-mail notices the advertiser gets (app.states.advertiser.notices)."""

from __future__ import annotations

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.components.layout import guarded_content, page_frame
from app.routes import ADVERTISER_HOME
from app.services.notices import NoticeChoice
from app.states.advertiser.notices import NoticePreferencesState
from app.states.areas import AreaState

HEADING = "Mi cuenta: avisos por correo"
ALWAYS_SENT = (
    "Siempre te avisamos por correo de las decisiones sobre tus publicaciones (aprobaciones, rechazos, "
    "despublicaciones, verificaciones y mejoras) y de lo que pasa con tu cuenta. Los demás avisos puedes "
    "desactivarlos aquí."
)


def _choice(choice: ObjectVar[NoticeChoice]) -> rx.Component:
    """One optional notice on a line of its own: its checkbox, then its words, in one <label> (a tap on either
    toggles it). The label wraps the box rather than naming its id: Reflex would add a ref per id to the form's data."""
    return rx.el.label(
        rx.el.input(type="checkbox", name=choice.kind, default_checked=choice.enabled),
        rx.el.span(choice.label),
        class_name="check-row",
        key=choice.kind,
    )


def _preferences() -> rx.Component:
    return rx.el.section(
        rx.el.h1(HEADING),
        rx.el.p(AreaState.greeting, class_name="lead"),
        rx.el.p(ALWAYS_SENT),
        rx.el.form(
            rx.el.fieldset(
                rx.el.legend("Avisos que quieres recibir"),
                rx.foreach(NoticePreferencesState.choices, _choice),
                class_name="choices",
            ),
            rx.el.button("Guardar", type="submit", class_name="btn btn-primary"),
            on_submit=NoticePreferencesState.save,
            aria_label="Avisos por correo",
        ),
        rx.link("Volver a Mis publicaciones", href=ADVERTISER_HOME, class_name="btn btn-ghost"),
        class_name="area",
    )


def notice_preferences_page() -> rx.Component:
    """The page, shown once the server accepted the advertiser and read their choices."""
    return page_frame(guarded_content(AreaState.ready & NoticePreferencesState.loaded, _preferences()))
