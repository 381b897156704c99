"""The statistics chart, rendered by running its compiled JavaScript in Node with a stand-in for React's jsx:
bar heights relative to the tallest day, and the caption and hidden table a screen reader reads instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import reflex as rx

from app.components.stats_chart import stats_chart
from app.services.stats import DayStat

# Every element becomes {tag, props, children}; arrays from rx.foreach are flattened.
JSX_STAND_IN = (
    "const Fragment = 'fragment';"
    "const jsx = (tag, props, ...children) => ({tag, props, children: children.flat(Infinity)});"
)


def _render(days: list[DayStat]) -> dict:
    """The element tree the browser would get for this series."""
    code = str(stats_chart(rx.Var.create([day.model_dump() for day in days])))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    output = subprocess.run(
        ["node", "-e", f"{JSX_STAND_IN} console.log(JSON.stringify({code}));"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=60,
    ).stdout
    return json.loads(output)


def _all(node, test) -> list[dict]:
    if not isinstance(node, dict):
        return []
    found = [node] if test(node) else []
    for child in node["children"]:
        found += _all(child, test)
    return found


def _with_class(tree: dict, name: str) -> list[dict]:
    return _all(tree, lambda node: name in (node["props"] or {}).get("className", "").split())


def _text(node) -> str:
    if isinstance(node, dict):
        return "".join(_text(child) for child in node["children"])
    return "" if node is None else str(node)


def _heights(tree: dict, kind: str) -> list[str]:
    return [
        bar["props"]["css"]["height"]
        for bar in _with_class(tree, f"stats-bar-{kind}")
        if "stats-bar" in bar["props"]["className"].split()
    ]


def test_bars_are_scaled_to_the_tallest_day_and_read_as_a_caption_and_table():
    tree = _render(
        [
            DayStat(day="19/11", views=4, clicks=1),
            DayStat(day="20/11", views=0, clicks=0),
            DayStat(day="21/11", views=2, clicks=1),
        ]
    )
    assert _heights(tree, "views") == ["100%", "0%", "50%"]
    assert _heights(tree, "clicks") == ["25%", "0%", "25%"]
    [caption] = _all(tree, lambda node: node["tag"] == "figcaption")
    assert _text(caption) == "Últimos 3 días: 6 visitas y 2 clics de contacto (WhatsApp y llamadas)."
    [drawing] = _all(tree, lambda node: (node["props"] or {}).get("aria-hidden") == "true")
    assert _with_class(drawing, "stats-bars") and not _all(drawing, lambda node: node["tag"] == "table")
    assert [_text(span) for span in _with_class(tree, "stats-axis")[0]["children"]] == ["19/11", "21/11"]
    [table] = _with_class(tree, "stats-hidden-table")
    rows = [[_text(cell) for cell in row["children"]] for row in _all(table, lambda node: node["tag"] == "tr")]
    assert rows == [["Día", "Visitas", "Clics"], ["19/11", "4", "1"], ["20/11", "0", "0"], ["21/11", "2", "1"]]


def test_clicks_above_views_set_the_scale_and_a_quiet_month_draws_flat_bars():
    tree = _render([DayStat(day="20/11", views=1, clicks=0), DayStat(day="21/11", views=1, clicks=4)])
    assert _heights(tree, "views") == ["25%", "25%"]
    assert _heights(tree, "clicks") == ["0%", "100%"]
    quiet = _render([DayStat(day="20/11", views=0, clicks=0), DayStat(day="21/11", views=0, clicks=0)])
    assert _heights(quiet, "views") == _heights(quiet, "clicks") == ["0%", "0%"]
    empty = _render([])
    assert _text(_all(empty, lambda node: node["tag"] == "figcaption")[0]).startswith("Últimos 0 días: 0 visitas")
    assert _with_class(empty, "stats-axis") == []


def test_the_chart_takes_a_var_typed_as_a_list_of_day_stats():
    series = rx.Var(_js_expr="series", _var_type=list[DayStat]).guess_type()
    assert "stats-chart" in str(stats_chart(series))


def test_one_visit_and_one_click_are_singular():
    tree = _render([DayStat(day="21/11", views=1, clicks=1)])
    [caption] = _all(tree, lambda node: node["tag"] == "figcaption")
    assert _text(caption) == "Últimos 1 día: 1 visita y 1 clic de contacto (WhatsApp y llamadas)."
    [day] = _with_class(tree, "stats-day")
    assert day["props"]["title"] == "21/11: 1 visita, 1 clic"
