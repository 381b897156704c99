"""The eight information pages under /disclaimer, and the report form."""

from __future__ import annotations

import reflex as rx

from app.components.layout import page_frame
from app.content.legal import LegalPage
from app.routes import REPORT_SLUG
from app.services.reports import MESSAGE_MAX
from app.states.report import KIND_OPTIONS, ReportState


def report_form() -> rx.Component:
    """The public report form; stores a report for staff."""
    return rx.cond(
        ReportState.sent,
        rx.el.div(
            rx.el.h2("Reporte enviado"),
            rx.el.p("Gracias. Nuestro equipo revisará su reporte. Si hay un peligro inmediato, llame al 133."),
            rx.el.button("Enviar otro reporte", on_click=ReportState.write_again, class_name="btn"),
            class_name="report-sent",
            role="status",
        ),
        rx.el.form(
            rx.el.h2("Enviar un reporte"),
            rx.el.label("Tipo de problema", html_for="report-kind"),
            rx.el.select(
                rx.el.option("Seleccione una opción", value=""),
                *[rx.el.option(label, value=value) for value, label in KIND_OPTIONS],
                id="report-kind",
                name="kind",
                required=True,
            ),
            rx.el.label("Publicación (opcional)", html_for="report-listing"),
            rx.el.input(
                id="report-listing",
                name="listing_uid",
                default_value=ReportState.listing_uid,
                key=ReportState.listing_uid,
                max_length=40,
                placeholder="Código de la publicación",
            ),
            rx.el.label("¿Qué está pasando?", html_for="report-message"),
            rx.el.textarea(
                id="report-message",
                name="message",
                rows=6,
                max_length=MESSAGE_MAX,
                placeholder="Describa la situación con el mayor detalle posible.",
            ),
            rx.el.label("Contacto (opcional): correo o teléfono", html_for="report-contact"),
            rx.el.input(id="report-contact", name="contact", max_length=254),
            rx.el.div(
                rx.el.label("No complete este campo", html_for="report-website"),
                rx.el.input(id="report-website", name="website", tab_index=-1, auto_complete="off"),
                class_name="hp",
                custom_attrs={"aria-hidden": "true"},
            ),
            rx.el.button("Enviar reporte", type="submit", disabled=ReportState.sending, class_name="btn btn-primary"),
            on_submit=ReportState.submit,
            class_name="report-form",
            aria_label="Formulario de reporte",
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
