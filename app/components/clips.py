"""A listing's clips on its detail page: each a native player, its poster shown, played only when asked.

``preload="none"`` (nothing but the poster loads until a tap, and the poster only once the player comes near the
screen: ``data-poster``, which assets/site.js turns into ``poster``), never autoplay, sound as the visitor sets it; the
browser's own controls, which the keyboard operates. The frame's ``width`` and ``height`` give the player its
aspect ratio before anything loads, so nothing moves (assets/styles.css ``.clip``). The server's first screen
(app/web/templates/preview/detail.html) draws the same markup.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import ArrayVar

from app.models import PublicClip

CLIPS_LABEL = "Videos"


def _clip(clip: ObjectVar[PublicClip]) -> rx.Component:
    return rx.el.video(
        src=clip.video_url,
        controls=True,
        preload="none",
        plays_inline=True,
        # The poster is fetched when the player comes near the screen (assets/site.js), not with the page.
        custom_attrs={"width": clip.width, "height": clip.height, "data-poster": clip.poster_url},
        aria_label=clip.label,
        class_name="clip",
    )


def clip_list(clips: ArrayVar[list[PublicClip]]) -> rx.Component:
    """The clips (approved and ready, as app.services.listings reads them), after the photos; nothing without any."""
    return cast(
        rx.Component,
        rx.cond(
            clips.length() > 0,
            rx.el.section(rx.foreach(clips, _clip), class_name="clips", aria_label=CLIPS_LABEL),
        ),
    )
