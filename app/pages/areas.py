"""Landing pages of the staff areas; their screens arrive with the back-office issues.

The administrator's landing page is the overview (``app.pages.staff_overview``); the
advertiser's is their listings (``app.pages.my_listings``).
Their paths come from ``app.routes``; ``app.route_table`` registers them behind the area guard.
"""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from app.components.layout import page_frame
from app.routes import SECRETARY_HOME
from app.states.areas import AreaState


@dataclass(frozen=True)
class AreaPage:
    """One guarded landing page."""

    route: str
    title: str
    intro: str


SECRETARY_PAGE = AreaPage(
    SECRETARY_HOME,
    "Secretaría",
    "Panel de secretaría: usuarios, anunciantes, publicaciones y revisión de publicaciones.",
)

AREA_PAGES: dict[str, AreaPage] = {page.route: page for page in (SECRETARY_PAGE,)}


def area_page(page: AreaPage):
    """A page shown only after the server accepted the caller's profile."""

    def component() -> rx.Component:
        return page_frame(
            rx.cond(
                AreaState.ready,
                rx.el.section(
                    rx.el.h1(page.title),
                    rx.el.p(AreaState.greeting, class_name="lead"),
                    rx.el.p(page.intro),
                    class_name="area",
                ),
                rx.el.p("Comprobando tu acceso…", class_name="loading"),
            )
        )

    return component
