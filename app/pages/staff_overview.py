"""/admin/escorts: the administrator's overview (app.states.staff.overview).

Key figures first, then bar charts of the listings by status, city and tier,
then the ten most recent reports. The charts are plain HTML and CSS, like
app/components/stats_chart.py: each is a table with a caption, a row per bar
with its label and figure as text, and the bar itself hidden from screen
readers, so nobody has to read a picture.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import ArrayVar

from app.routes import ADMIN_REPORTS
from app.services.staff.overview import RECENT_REPORTS, TOP_CITIES, Bar, Headline, RecentReport, StaffOverview
from app.states.areas import AreaState
from app.states.staff.overview import StaffOverviewState

TITLE = "Administración"
# The overview read on the class: a var of the model to Reflex, the declared model to mypy (docs/ARCHITECTURE.md, "Types").
OVERVIEW = cast(ObjectVar[StaffOverview], StaffOverviewState.overview)


def _headline(item: ObjectVar[Headline]) -> rx.Component:
    return rx.el.div(
        rx.el.dt(rx.cond(item.href != "", rx.link(item.label, href=item.href), item.label)),
        rx.el.dd(item.figure, class_name="overview-figure"),
        rx.cond(item.note != "", rx.el.dd(item.note, class_name="overview-note")),
        class_name=rx.cond(item.alert, "overview-tile overview-alert", "overview-tile"),
    )


def _bar_row(bar: ObjectVar[Bar]) -> rx.Component:
    return rx.el.tr(
        rx.el.th(bar.label, scope="row"),
        rx.el.td(bar.figure, class_name="overview-count"),
        rx.el.td(
            rx.el.span(class_name="overview-bar", style={"width": bar.percent.to_string() + "%"}),
            class_name="overview-track",
            aria_hidden="true",
        ),
    )


def bar_chart(caption: str, label_header: str, bars: ArrayVar[list[Bar]], empty: str) -> rx.Component:
    """A horizontal bar chart as a table: caption, then one row per bar (label, figure, bar)."""
    return rx.el.table(
        rx.el.caption(caption),
        rx.el.thead(
            rx.el.tr(
                rx.el.th(label_header, scope="col"),
                rx.el.th("Cantidad", scope="col"),
                rx.el.td(aria_hidden="true"),
            )
        ),
        rx.el.tbody(
            rx.foreach(bars, _bar_row),
            rx.cond(bars.length() == 0, rx.el.tr(rx.el.td(empty, col_span=3, class_name="muted"))),
        ),
        class_name="overview-chart",
    )


def _report_row(report: ObjectVar[RecentReport]) -> rx.Component:
    return rx.el.tr(
        rx.el.td(
            rx.cond(report.urgent, rx.el.strong("Urgente: ", class_name="overview-urgent-tag")),
            report.kind_label,
        ),
        rx.el.td(report.listing),
        rx.el.td(report.status_label),
        rx.el.td(report.age, rx.el.br(), rx.el.span(report.received, class_name="muted")),
        class_name=rx.cond(report.urgent, "overview-urgent", ""),
    )


def _reports() -> rx.Component:
    reports = OVERVIEW.recent_reports
    return rx.el.section(
        rx.el.h2("Reportes recientes"),
        rx.cond(
            reports.length() > 0,
            rx.el.div(
                rx.el.table(
                    rx.el.caption(
                        f"Los {RECENT_REPORTS} reportes más recientes; los de posible trata o menores de edad, marcados"
                    ),
                    rx.el.thead(
                        rx.el.tr(
                            rx.el.th("Motivo", scope="col"),
                            rx.el.th("Publicación", scope="col"),
                            rx.el.th("Estado", scope="col"),
                            rx.el.th("Recibido", scope="col"),
                        )
                    ),
                    rx.el.tbody(rx.foreach(reports, _report_row)),
                    class_name="overview-reports",
                ),
                class_name="overview-reports-wrap",
            ),
            rx.el.p("No ha llegado ningún reporte.", class_name="muted"),
        ),
        rx.el.p(rx.link("Ver todos los reportes", href=ADMIN_REPORTS)),
        aria_label="Reportes recientes",
    )


def _overview() -> rx.Component:
    return rx.fragment(
        rx.el.dl(rx.foreach(OVERVIEW.headlines, _headline), class_name="overview-tiles", aria_label="Cifras clave"),
        rx.el.div(
            bar_chart(
                "Publicaciones por estado", "Estado", OVERVIEW.by_status.to(list[Bar]), "Aún no hay publicaciones."
            ),
            bar_chart(
                f"Publicadas por ciudad (las {TOP_CITIES} con más)",
                "Ciudad",
                OVERVIEW.by_city.to(list[Bar]),
                "Aún no hay publicaciones publicadas.",
            ),
            bar_chart(
                "Publicadas por categoría", "Categoría", OVERVIEW.by_tier.to(list[Bar]), "Aún no hay categorías."
            ),
            class_name="overview-charts",
        ),
        _reports(),
    )


def staff_overview_page() -> rx.Component:
    """The administrator's overview (the route table puts it in the staff frame, shown once the caller is accepted)."""
    return rx.el.section(
        rx.el.h1(TITLE),
        rx.el.p(AreaState.greeting, class_name="lead"),
        rx.cond(StaffOverviewState.loaded, _overview(), rx.el.p("Cargando el resumen…", class_name="loading")),
        class_name="area overview",
    )
