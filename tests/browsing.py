"""How the scripted browsers (the e2e tests, scripts/stack_driver.py) behave as visitors."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, BrowserContext

# A public page's app starts on the visitor's first move (assets/site.js). A scripted visitor moves the pointer
# as soon as each document is parsed, as a desktop visitor does, so that the scripts drive the app; a test of a
# visitor who only looks leaves this out.
VISITOR_MOVES_AT_ONCE = (
    "document.addEventListener('DOMContentLoaded', () =>"
    " document.dispatchEvent(new PointerEvent('pointermove', {bubbles: true, movementX: 1})));"
)


def moving_context(browser: Browser, **options: Any) -> BrowserContext:
    """A new context of ``browser`` (``options`` as Playwright takes them) whose visitor moves at once."""
    context = browser.new_context(**options)
    context.add_init_script(VISITOR_MOVES_AT_ONCE)
    return context
