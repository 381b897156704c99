"""The color-mode script first in every page's head, without its read of the browser's storage.

Reflex 0.10.1 compiles a script into every page's head that reads the visitor's saved color mode from
localStorage and sets it on <html> before the first paint. The site's appearance is fixed (rxconfig.py:
dark) and no page changes it, so the saved mode, when there is one, is that same one (Reflex's theme
provider saves the compiled default). Reading it is not free: a new page's first read of its origin's
storage waits for the browser process, 4-21 ms of the first parse in Chromium on these machines, before
the first screen can paint (four times that on Lighthouse's phone; docs/performance.md, 2026-11-30).

``install()`` has Reflex compile the same script without the read: the compiled mode's class and
color scheme. A "system" mode still needs the browser's preference, so it keeps Reflex's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import reflex as rx
from reflex.utils import misc

# The modes a page can show without asking the browser anything.
_FIXED_MODES = ("light", "dark")
# Reflex's own script, kept for the modes that need the browser's answer.
reflex_color_mode_script: Callable[[str], rx.Component] = misc.preload_color_theme


def fixed_color_mode_script(default_color_mode: str = "system") -> rx.Component:
    """The head's color-mode script for ``default_color_mode``: the class and color scheme set at once
    for a fixed mode, Reflex's own script (saved mode, then the system's) for any other."""
    if default_color_mode not in _FIXED_MODES:
        return reflex_color_mode_script(default_color_mode)
    mode = json.dumps(default_color_mode)
    return rx.el.script(
        f"document.documentElement.classList.add({mode});document.documentElement.style.colorScheme={mode};"
    )


def install() -> None:
    """Compile every page's color-mode script with ``fixed_color_mode_script`` (before the app compiles)."""
    misc.preload_color_theme = fixed_color_mode_script
