"""The detail page's photo carousel.

Swiping uses native scroll snapping; the track takes the keyboard focus, so arrow keys scroll it.
Autoplay (every 5000 ms), its pause button and the previous/next buttons live in assets/site.js,
which finds carousels by their data attributes: autoplay waits while the pointer is over the
carousel or the focus is in it, stops for good with "Pausar", and never starts on its own when
the visitor asked for reduced motion (WCAG 2.2.2).
"""

from __future__ import annotations

import reflex as rx
from reflex_base.vars.sequence import StringVar

from app.components.cards import photo_sizes, photo_srcset

AUTOPLAY_MS = 5000
# A slide's width: the page's width, or the detail's first column (5 of 9, assets/styles.css .detail) from 1024 px.
SLIDE_SIZES = "(min-width: 1024px) 55vw, 100vw"
PAUSE_LABEL, PLAY_LABEL = "Pausar fotos", "Reanudar fotos"


def _arrow(symbol: str, direction: str, label: str) -> rx.Component:
    """The previous ("prev") or next ("next") button; assets/site.js finds it by data-carousel-{direction}."""
    return rx.el.button(
        symbol,
        type="button",
        class_name=f"carousel-btn {direction}",
        aria_label=label,
        custom_attrs={f"data-carousel-{direction}": ""},
    )


def carousel(photos: rx.Var[list[str]] | list[str], name: StringVar[str] | str) -> rx.Component:
    """A full-width carousel of the given photo URLs."""
    return rx.el.section(
        rx.el.div(
            rx.foreach(
                photos,
                lambda src, i: rx.el.img(
                    src=src,
                    src_set=photo_srcset(src),
                    sizes=photo_sizes(src, SLIDE_SIZES),
                    alt="Foto " + (i + 1).to_string() + " de " + name,
                    class_name="slide",
                    # The first photo is the page's largest paint: fetched at once, first; the others after it.
                    loading=rx.cond(i == 0, "eager", "lazy"),
                    decoding="async",
                    # The 3:4 box (.slides) before the file arrives, so nothing shifts.
                    width="600",
                    height="800",
                    custom_attrs={"fetchPriority": rx.cond(i == 0, "high", "low")},
                ),
            ),
            class_name="slides",
            role="group",
            aria_label="Fotos de " + name,
            tab_index=0,
            custom_attrs={"data-carousel": "", "data-autoplay-ms": str(AUTOPLAY_MS), "data-index": "0"},
        ),
        _arrow("‹", "prev", "Foto anterior"),
        _arrow("›", "next", "Foto siguiente"),
        # Only one of the two labels shows: "Reanudar" while the carousel has data-paused (assets/styles.css).
        rx.el.button(
            rx.el.span(rx.el.span("❚❚ ", aria_hidden="true"), PAUSE_LABEL, class_name="when-playing"),
            rx.el.span(rx.el.span("▶ ", aria_hidden="true"), PLAY_LABEL, class_name="when-paused"),
            type="button",
            class_name="carousel-pause",
            custom_attrs={"data-carousel-pause": ""},
        ),
        class_name="carousel",
        aria_label="Fotos",
    )
