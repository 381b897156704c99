"""A listing photo's file names as the pages use them: the srcset of a photo the pipeline stored in two widths.

The photo pipeline (app.services.photos.WIDTHS) stores a WebP 400, 800 and 1600 px wide, none wider than the
upload; a card's URL is the 800 one (app.services.listing_photos.DEFAULT_WIDTH) whenever the upload was at
least that wide, and then the 400 one exists too. Demo and narrower photos have no srcset: their one file.

One rule for both renderings of a card: the server's templates (app.web.rendering) call these functions
on a ``str``, the Reflex card (app.components.cards) on a string var, whose ``endswith``, ``replace`` and
``+`` build the same expression for the browser.
"""

from __future__ import annotations

from typing import Any, Protocol

PIPELINE_DEFAULT, PIPELINE_NARROW = "-800.webp", "-400.webp"


class PhotoUrl(Protocol):
    """A photo's URL: a ``str`` on the server, a Reflex string var in a component."""

    def endswith(self, suffix: str, /) -> Any: ...

    def replace(self, old: str, new: str, /) -> Any: ...


def has_srcset(src: PhotoUrl) -> Any:
    """Whether the pipeline stored the 400 px file beside the 800 px one at ``src``."""
    return src.endswith(PIPELINE_DEFAULT)


def srcset_of(src: PhotoUrl) -> Any:
    """The srcset of a photo that :func:`has_srcset`: its 400 and 800 px files."""
    return src.replace(PIPELINE_DEFAULT, PIPELINE_NARROW) + " 400w, " + src + " 800w"


def photo_srcset(src: str) -> str:
    """The srcset of the photo at ``src``: its 400 and 800 px files when the pipeline made both, else ""."""
    return str(srcset_of(src)) if has_srcset(src) else ""
