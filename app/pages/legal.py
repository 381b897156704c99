"""The eight information pages under /disclaimer, and the report form."""

from __future__ import annotations

from typing import cast

import reflex as rx

from app.components.forms import form_alert, select_field, text_field, textarea_field
from app.components.layout import page_frame
from app.content.legal import LegalPage
from app.core.text import EMAIL_MAX
from app.routes import REPORT_SLUG
from app.services.reports import MESSAGE_MAX
from app.states.report import KIND_OPTIONS, ReportState


def report_form() -> rx.Component:
    """The public report form; stores a report for staff. A refusal shows under its field."""
    errors = ReportState.field_errors
    clear = ReportState.clear_field_error
    return cast(
        rx.Component,
        rx.cond(
            ReportState.sent,
            rx.el.div(
                rx.el.h2("Reporte enviado"),
                rx.el.p("Gracias. Nuestro equipo revisará tu reporte. Si hay un peligro inmediato, llama al 133."),
                rx.el.button("Enviar otro reporte", on_click=ReportState.write_again, class_name="btn"),
                class_name="report-sent",
                role="status",
            ),
            rx.el.form(
                rx.el.h2("Enviar un reporte"),
                select_field(
                    "report",
                    "Tipo de problema",
                    "kind",
                    rx.Var.create(KIND_OPTIONS),
                    placeholder="Elige una opción",
                    errors=errors,
                    on_clear=clear,
                    required=True,
                ),
                text_field(
                    "report",
                    "Publicación (opcional)",
                    "listing_uid",
                    errors=errors,
                    on_clear=clear,
                    default_value=ReportState.listing_uid,
                    key=ReportState.listing_uid,
                    max_length=40,
                    placeholder="Código de la publicación",
                    auto_complete="off",
                ),
                textarea_field(
                    "report",
                    "¿Qué está pasando?",
                    "message",
                    errors=errors,
                    on_clear=clear,
                    rows=6,
                    max_length=MESSAGE_MAX,
                    placeholder="Describe la situación con el mayor detalle posible.",
                ),
                text_field(
                    "report",
                    "Contacto (opcional): correo o teléfono",
                    "contact",
                    errors=errors,
                    on_clear=clear,
                    max_length=EMAIL_MAX,
                    auto_complete="on",  # an e-mail address or a phone number: no one token names both
                ),
                rx.el.div(
                    text_field("report", "No completes este campo", "website", tab_index=-1, auto_complete="off"),
                    class_name="hp",
                    custom_attrs={"aria-hidden": "true"},
                ),
                form_alert(ReportState.error),
                rx.el.button("Enviar reporte", type="submit", disabled=ReportState.busy, class_name="btn btn-primary"),
                on_submit=ReportState.submit,
                no_validate=True,
                class_name="report-form",
                aria_label="Formulario de reporte",
            ),
        ),
    )


def legal_page_component(page: LegalPage) -> rx.Component:
    """One information page; the report page adds the form."""
    sections = [
        rx.el.section(
            rx.el.h2(section.heading),
            *[rx.el.p(paragraph) for paragraph in section.paragraphs],
        )
        for section in page.sections
    ]
    extra = [report_form()] if page.slug == REPORT_SLUG else []
    return page_frame(rx.el.article(rx.el.h1(page.title), *sections, *extra, class_name="legal"))
