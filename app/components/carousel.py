"""The detail page's photo carousel.

Swiping uses native scroll snapping; autoplay (every 5000 ms, paused while
the visitor interacts) and the previous/next buttons live in
assets/site.js, which finds carousels by their data attributes.
"""

from __future__ import annotations

import reflex as rx

AUTOPLAY_MS = 5000


def carousel(photos, name) -> rx.Component:
    """A full-width carousel of the given photo URLs."""
    return rx.el.section(
        rx.el.div(
            rx.foreach(
                photos,
                lambda src, i: rx.el.img(
                    src=src,
                    alt="Foto " + (i + 1).to_string() + " de " + name,
                    class_name="slide",
                    loading=rx.cond(i == 0, "eager", "lazy"),
                ),
            ),
            class_name="slides",
            custom_attrs={"data-carousel": "", "data-autoplay-ms": str(AUTOPLAY_MS), "data-index": "0"},
        ),
        rx.el.button(
            "‹", class_name="carousel-btn prev", aria_label="Foto anterior", custom_attrs={"data-carousel-prev": ""}
        ),
        rx.el.button(
            "›", class_name="carousel-btn next", aria_label="Foto siguiente", custom_attrs={"data-carousel-next": ""}
        ),
        class_name="carousel",
        aria_label="Fotos",
    )
