"""Landing pages of the staff areas; their screens arrive with the back-office issues.

The administrator's landing page is the overview (``app.pages.staff_overview``); the
advertiser's is their listings (``app.pages.my_listings``).
Their paths come from ``app.routes``; ``app.route_table`` registers them behind the area guard.
"""

from __future__ import annotations

from dataclasses import dataclass

import reflex as rx

from app.components.staff_layout import staff_frame
from app.identity.guards import area_profile
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
    """A page in its area's staff frame (navigation included), shown once the server accepted the caller."""
    area = area_profile(page.route)

    def component() -> rx.Component:
        return staff_frame(
            rx.el.section(
                rx.el.h1(page.title),
                rx.el.p(AreaState.greeting, class_name="lead"),
                rx.el.p(page.intro),
                class_name="area",
            ),
            area,
        )

    return component
