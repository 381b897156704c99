"""axe-core (npm, pinned in tools/axe) run inside chromium on a page as it stands.

The site's Content-Security-Policy refuses injected scripts, so the contexts that use this
are opened with ``bypass_csp=True``; no other test does that. The rules are WCAG 2.0, 2.1
and 2.2 A and AA plus axe's best practices, and ``label-content-name-mismatch`` (WCAG
2.5.3, still marked experimental in axe, so off unless asked for). What fails a test is
every violation of impact serious or critical. Running animations (a dialog fading in)
finish first, so colours are read as they end up.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import Page

from tests.npm_tools import tool_modules

TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice")
EXTRA_RULES = ("label-content-name-mismatch",)
FAILING_IMPACTS = ("serious", "critical")

RUN = """async ([tags, extra]) => {
  await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => null)));
  const rules = Object.fromEntries(extra.map((id) => [id, {enabled: true}]));
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, rules, resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""


def serious_violations(page: Page, where: str = "") -> list[str]:
    """Every serious or critical axe violation on the page now, one readable line per element, each naming the
    page's path and ``where`` (the state audited, when the path does not say it).

    The page is audited at rest: the pointer is moved off the element the test last clicked, whose spot a
    re-rendered page may have put a link under (its hover and tap styles are not the page's colours).
    """
    page.mouse.move(0, 0)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(tool_modules("axe") / "axe-core" / "axe.min.js"))
    found = page.evaluate(RUN, [list(TAGS), list(EXTRA_RULES)])
    return [
        f"{urlsplit(page.url).path} {where} [{violation['impact']}] {violation['id']}: {violation['help']} at {node['target']}: "
        + " ".join(node["summary"].split())
        for violation in found
        if violation["impact"] in FAILING_IMPACTS
        for node in violation["nodes"]
    ]
