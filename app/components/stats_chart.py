"""A small bar chart of a listing's views and contact clicks per day (plain HTML and CSS, no chart library).

Screen readers skip the bars and read the caption with the totals and a
visually hidden table of every day instead.
"""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex_base.vars.number import NumberVar
from reflex_base.vars.sequence import ArrayVar, StringVar


def _field(day: rx.Var[Any], name: str) -> rx.Var[Any]:
    """A field of one day, whether the list var holds DayStat models or untyped dicts."""
    return day.to(dict)[name]


def _number(day: rx.Var[Any], name: str) -> NumberVar[int]:
    return _field(day, name).to(int)


def _day(day: rx.Var[Any]) -> StringVar[str]:
    return _field(day, "day").to(str)


def _larger(a: NumberVar[int] | int, b: NumberVar[int]) -> NumberVar[int]:
    return cast(NumberVar[int], rx.cond(a > b, a, b))


def _count(number: NumberVar[int], one: str, many: str) -> StringVar[str]:
    """A number and its noun, singular for exactly one ("1 visita", "3 visitas")."""
    return cast(StringVar[str], number.to_string() + rx.cond(number == 1, " " + one, " " + many))


def _height(value: NumberVar[int], peak: NumberVar[int]) -> StringVar[str]:
    """A bar's height as a percentage of the tallest bar."""
    return (value * 100 / peak).to_string() + "%"


def _day_bars(day: rx.Var[Any], peak: NumberVar[int]) -> rx.Component:
    views, clicks = _number(day, "views"), _number(day, "clicks")
    return rx.el.div(
        rx.el.span(class_name="stats-bar stats-bar-views", style={"height": _height(views, peak)}),
        rx.el.span(class_name="stats-bar stats-bar-clicks", style={"height": _height(clicks, peak)}),
        class_name="stats-day",
        title=_day(day) + ": " + _count(views, "visita", "visitas") + ", " + _count(clicks, "clic", "clics"),
    )


def _day_row(day: rx.Var[Any]) -> rx.Component:
    return rx.el.tr(
        rx.el.th(_day(day), scope="row"),
        rx.el.td(_number(day, "views")),
        rx.el.td(_number(day, "clicks")),
    )


def stats_chart(series: ArrayVar[Any]) -> rx.Component:
    """Bars of views and contact clicks per day, oldest first, from a list var of DayStat (day, views, clicks)."""
    peak = series.reduce(
        lambda tallest, day: _larger(tallest, _larger(_number(day, "views"), _number(day, "clicks"))), 1
    )
    views = series.reduce(lambda total, day: total + _number(day, "views"), 0)
    clicks = series.reduce(lambda total, day: total + _number(day, "clicks"), 0)
    last = series.length() - 1
    return rx.el.figure(
        rx.el.figcaption(
            "Últimos "
            + _count(series.length(), "día", "días")
            + ": "
            + _count(views, "visita", "visitas")
            + " y "
            + _count(clicks, "clic", "clics")
            + " de contacto (WhatsApp y llamadas)."
        ),
        rx.el.div(
            rx.el.div(rx.foreach(series, lambda day: _day_bars(day, peak)), class_name="stats-bars"),
            rx.cond(
                series.length() > 0,
                rx.el.div(
                    rx.el.span(_day(series[0])),
                    rx.el.span(_day(series[last])),
                    class_name="stats-axis",
                ),
            ),
            rx.el.p(
                rx.el.span(class_name="stats-key stats-bar-views"),
                "Visitas",
                rx.el.span(class_name="stats-key stats-bar-clicks"),
                "Clics",
                class_name="stats-legend",
            ),
            aria_hidden="true",
        ),
        rx.el.table(
            rx.el.caption("Visitas y clics por día"),
            rx.el.thead(
                rx.el.tr(rx.el.th("Día", scope="col"), rx.el.th("Visitas", scope="col"), rx.el.th("Clics", scope="col"))
            ),
            rx.el.tbody(rx.foreach(series, _day_row)),
            class_name="stats-hidden-table",
        ),
        class_name="stats-chart",
    )
