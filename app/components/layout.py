"""The frame of every page: header, main content and footer."""

from __future__ import annotations

import reflex as rx

from app.content.legal import LEGAL_PAGES

SITE_NAME = "Escorts Chile"


def header() -> rx.Component:
    """Top bar: brand and the two sections."""
    return rx.el.header(
        rx.el.nav(
            rx.link(SITE_NAME, href="/escorts", class_name="brand"),
            rx.el.div(
                rx.link("Escorts", href="/escorts", class_name="nav-link"),
                rx.link("Trans", href="/escorts/trans", class_name="nav-link"),
                rx.link("Denunciar", href="/disclaimer/report", class_name="nav-link nav-report"),
                class_name="nav-links",
            ),
            class_name="nav",
            aria_label="Principal",
        ),
        class_name="site-header",
    )


def footer() -> rx.Component:
    """Bottom bar: legal pages and the adults-only reminder."""
    return rx.el.footer(
        rx.el.nav(
            *[rx.link(page.title, href=f"/disclaimer/{page.slug}", class_name="footer-link") for page in LEGAL_PAGES],
            class_name="footer-links",
            aria_label="Información legal",
        ),
        rx.el.p(
            "Sitio exclusivo para mayores de 18 años. Solo publicamos avisos de personas adultas que anuncian "
            "por voluntad propia; cada aviso es revisado antes de publicarse.",
            class_name="footer-note",
        ),
        class_name="site-footer",
    )


def page_frame(*children: rx.Component) -> rx.Component:
    """Header, the page's content and the footer."""
    return rx.el.div(
        header(),
        rx.el.main(*children, class_name="site-main"),
        footer(),
        class_name="site",
    )
