"""The frame of every staff page: the site frame, the area's navigation, and the area check.

The navigation comes from ``app.routes.ADMIN_PAGES`` / ``SECRETARY_PAGES``. The content shows
only once the page's guarded loader accepted the caller (``AreaState.ready``).
"""

from __future__ import annotations

import reflex as rx

from app.components.layout import guarded_content, page_frame
from app.models import ProfileId
from app.routes import ADMIN_PAGES, SECRETARY_PAGES
from app.states.areas import AreaState

STAFF_NAV: dict[ProfileId, tuple[tuple[str, str], ...]] = {
    ProfileId.ADMINISTRADOR: ADMIN_PAGES,
    ProfileId.SECRETARIA: SECRETARY_PAGES,
}
NAV_LABELS = {ProfileId.ADMINISTRADOR: "Administración", ProfileId.SECRETARIA: "Secretaría"}


def staff_nav(area: ProfileId) -> rx.Component:
    """The links to the area's pages; the current one is marked for screen readers."""
    path = rx.State.router.url.path
    return rx.el.nav(
        rx.el.ul(
            *[
                rx.el.li(
                    rx.link(
                        label,
                        href=href,
                        class_name="staff-nav-link",
                        # The static server may answer at the folder's address (a trailing slash).
                        custom_attrs={"aria-current": rx.cond((path == href) | (path == href + "/"), "page", "false")},
                    )
                )
                for href, label in STAFF_NAV[area]
            ],
        ),
        class_name="staff-nav",
        aria_label=NAV_LABELS[area],
    )


def staff_frame(content: rx.Component, area: ProfileId) -> rx.Component:
    """A staff page of ``area`` (administrador or secretaria): its navigation, then ``content`` once accepted."""
    return page_frame(
        rx.el.div(
            staff_nav(area),
            rx.el.div(
                guarded_content(AreaState.ready, content),
                class_name="staff-content",
            ),
            class_name="staff-frame",
        )
    )
