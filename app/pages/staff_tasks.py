"""/admin/trabajos: the background work's health (app.states.staff.task_health).

Two tables: the jobs of each task (waiting, running, failed in the last 24 hours, the oldest waiting), then
each periodic task's last success and failure. A row in trouble is marked in words, not only in colour.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.services.staff.task_health import PERIODS_LATE, PeriodicRow, TaskHealthView, TaskRow
from app.states.staff.task_health import TaskHealthState

TITLE = "Trabajos en segundo plano"
HEALTH = cast(ObjectVar[TaskHealthView], TaskHealthState.health)


def _task_row(row: ObjectVar[TaskRow]) -> rx.Component:
    return rx.el.tr(
        rx.el.th(rx.cond(row.alert, rx.el.strong("Con fallas: ")), row.label, scope="row"),
        rx.el.td(row.waiting),
        rx.el.td(row.running),
        rx.el.td(row.failed),
        rx.el.td(row.oldest),
        class_name=rx.cond(row.alert, "overview-urgent", ""),
    )


def _periodic_row(row: ObjectVar[PeriodicRow]) -> rx.Component:
    return rx.el.tr(
        rx.el.th(rx.cond(row.alert, rx.el.strong("Atrasado: ")), row.label, scope="row"),
        rx.el.td(row.every),
        rx.el.td(row.last_success),
        rx.el.td(row.last_failure),
        class_name=rx.cond(row.alert, "overview-urgent", ""),
    )


def _header(*names: str) -> rx.Component:
    return rx.el.thead(rx.el.tr(*(rx.el.th(name, scope="col") for name in names)))


def _tables() -> rx.Component:
    tasks = HEALTH.tasks.to(list[TaskRow])
    return rx.fragment(
        rx.el.table(
            rx.el.caption("Trabajos en cola"),
            _header("Trabajo", "En espera", "En curso", "Fallidos (24 h)", "El más antiguo en espera"),
            rx.el.tbody(
                rx.foreach(tasks, _task_row),
                rx.cond(
                    tasks.length() == 0,
                    rx.el.tr(rx.el.td("No hay trabajos en cola.", col_span=5, class_name="muted")),
                ),
            ),
            class_name="overview-reports",
        ),
        rx.el.table(
            rx.el.caption(
                f"Trabajos periódicos (atrasado: falló la última vez o no resultó en {PERIODS_LATE} periodos)"
            ),
            _header("Trabajo", "Cada", "Último éxito", "Última falla"),
            rx.el.tbody(rx.foreach(HEALTH.periodic.to(list[PeriodicRow]), _periodic_row)),
            class_name="overview-reports",
        ),
    )


def staff_tasks_page() -> rx.Component:
    """The administrator's page of the background work."""
    return rx.el.section(
        rx.el.h1(TITLE),
        rx.el.p(
            "Correos, exportaciones de datos, videos y tareas periódicas. Un correo que no se pudo enviar se "
            "reintenta durante media hora; si aun así falla, queda aquí como fallido."
        ),
        rx.el.button("Actualizar", type="button", on_click=TaskHealthState.refresh, class_name="btn"),
        rx.cond(TaskHealthState.loaded, _tables()),
        class_name="area",
    )
