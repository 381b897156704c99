"""The frame of every staff page: the site frame, the area's navigation, and the area check.

The route table frames every staff page (``app.route_table``): it hands in the area's menu, its
pages with their titles (``staff_nav``), so a page added there is in the menu. The content shows
only once the page's guarded loader accepted the caller (``AreaState.ready``).
"""

from __future__ import annotations

import reflex as rx

from app.components.layout import guarded_content, page_frame
from app.models import ProfileId
from app.states.areas import AreaState

# An area's menu: (path, title) of each of its pages, in order.
Nav = tuple[tuple[str, str], ...]
NAV_LABELS = {ProfileId.ADMINISTRADOR: "Administración", ProfileId.SECRETARIA: "Secretaría"}


def staff_menu(area: ProfileId, nav: Nav) -> rx.Component:
    """The links to the area's pages (``nav``); the current one is marked for screen readers."""
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
                for href, label in nav
            ],
        ),
        class_name="staff-nav",
        aria_label=NAV_LABELS[area],
    )


def staff_frame(content: rx.Component, area: ProfileId, nav: Nav) -> rx.Component:
    """A staff page of ``area`` (administrador or secretaria): its menu ``nav``, then ``content`` once accepted."""
    return page_frame(
        rx.el.div(
            staff_menu(area, nav),
            rx.el.div(
                guarded_content(AreaState.ready, content),
                class_name="staff-content",
            ),
            class_name="staff-frame",
        )
    )
