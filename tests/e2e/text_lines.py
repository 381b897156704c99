"""How many lines an element's text takes on screen: a word broken across lines shows as more than one."""

from __future__ import annotations

from playwright.sync_api import Locator, expect

# One client rect per line box of each text node; rects on the same line share their top.
_LINES = """(el) => {
    const tops = new Set();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
    }
    return tops.size;
}"""


def text_lines(element: Locator) -> int:
    """How many lines ``element``'s text takes, once it is visible (at least one)."""
    expect(element).to_be_visible()
    lines = element.evaluate(_LINES)
    assert lines, f"no text rendered in {element.evaluate('(el) => el.outerHTML')}"
    return lines
