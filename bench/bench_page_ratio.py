"""First listing on screen: the interactive pages against their own DOM frozen as static HTML.

Loads the demo data (``app.seed``) into a scratch PostgreSQL database, serves
the app in production mode the way the e2e tests do (``tests.e2e.conftest``:
the production build, Redis for the state), and opens, in Debian's chromium
through Playwright (the e2e tests' launch arguments), the busiest city's page
(/escorts/{city}), the detail page of its first card, and /escorts-ssg/{city}
for reference.

The static copy of each page is the page's own DOM once it shows its listings:
scripts and script preloads removed, Emotion's rules (inserted into the CSSOM,
not the text of its <style> elements) written out as text, the stylesheets and
images it uses copied next to it, all served by Python's http.server from a
thread. So the copy looks like the page and only lacks what makes it
interactive.

Each page is measured four ways (``VARIANTS``): the app's page; the issue's
static copy; the same copy from a file server that adds the response headers
the app sends (``SITE_HEADERS``, app.web.middleware), which shows what those
headers cost (Cross-Origin-Opener-Policy puts a page opened from a blank tab in
a new browsing context group, a new renderer process); and the app's own
document, as it serves it, from that dressed file server, which separates what
the document costs from what serving it costs. The target is against the
static copy.

Every run is a new (cold: empty cache, no connections) browser context of a
returning visitor, its tab blank (or, with ``--from-another-site``, on a page
of another site, as a visitor from a search engine arrives): the 18+ cookie
(``AGE_COOKIE=1``, what AgeGateState.accept and /api/age set) is in the context
before the page is asked for. Runs alternate between the four (the order turns
each round).

The figure: ``performance.now()`` (milliseconds since navigation start) when
the first listing element is in the DOM. An init script, which Chromium runs when
the document is created, before any byte of the page is parsed, installs a
MutationObserver on the document; its callback (a microtask right after the
insertion, whether by the HTML parser or by React) checks for the element:
a card's link (``[data-testid=listing-card] a[href]``, on the SSG page
``article.card a[href]``) on a city page, the
listing's name (``.detail h1``) on a detail page. Rendering and images are not
in that figure; first contentful paint is printed beside it. The same init
script wraps the websocket to time its connection and socket.io frames, and the
Resource Timing entries give the JavaScript's arrival, which is where the app's
time goes (printed per page as medians).

Target (issue 10): /escorts/{city} and a detail page within 1.3x of their static copies.
Starts the full app: run it under ``flock /tmp/e2e.lock`` like the e2e tests.

    flock /tmp/e2e.lock .venv/bin/python bench/bench_page_ratio.py [--listings 3000] [--runs 8]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import ClassVar

from bench.common import busiest_city, demo_database, serve_demo

TARGET_RATIO = 1.3
CARD_LINK = "[data-testid=listing-card] a[href]"
DETAIL_NAME = ".detail h1"
SSG_CARD_LINK = "article.card a[href]"  # app.web.ssg's card
# What app.web.middleware sends with every response, the security headers of the site.
SITE_HEADERS = (
    "content-security-policy",
    "cross-origin-opener-policy",
    "permissions-policy",
    "referrer-policy",
    "x-content-type-options",
)
# The page of another site (127.0.0.1, where the pages are on localhost) that --from-another-site starts from.
ELSEWHERE = "<!DOCTYPE html><html lang=es><title>Resultados</title><p>Resultados de búsqueda</p></html>"
# Reflex names a state field in a delta "<name>_rx_state_"; these carry the listings of a page.
LISTING_DELTA = re.compile(r'"(?:groups|cards|detail|featured)_rx_state_"')

# Runs before the page's own scripts: times the first listing element, the websocket and its socket.io frames.
PROBE = """
(() => {
  const selector = %SELECTOR%;
  const probe = (window.__probe = {listing: null, ws: []});
  const mark = () => {
    if (probe.listing === null && document.querySelector(selector)) {
      probe.listing = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(mark);
  observer.observe(document, {childList: true, subtree: true});
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      probe.ws.push(['create', performance.now(), 0, '']);
      this.addEventListener('open', () => probe.ws.push(['open', performance.now(), 0, '']));
      this.addEventListener('message', (e) => {
        if (typeof e.data === 'string' && e.data.startsWith('42'))
          probe.ws.push(['recv', performance.now(), e.data.length, e.data.slice(0, 4000)]);
      });
    }
    send(data) {
      const text = typeof data === 'string' ? data : '';
      if (!/^[23]$/.test(text)) probe.ws.push(['send', performance.now(), text.length, text.slice(0, 300)]);
      return super.send(data);
    }
  };
})();
"""

# Read once the listing is in the DOM (and the page has settled).
READ = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const js = resources.filter((r) => /\\.m?js(\\?|$)/.test(r.name));
  const css = resources.filter((r) => /\\.css(\\?|$)/.test(r.name));
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {
    listing: window.__probe.listing,
    ws: window.__probe.ws,
    doc: nav.responseEnd,
    dcl: nav.domContentLoadedEventEnd,
    fcp: fcp ? fcp.startTime : null,
    js_count: js.length,
    js_bytes: js.reduce((s, r) => s + r.transferSize, 0),
    js_body: js.reduce((s, r) => s + r.decodedBodySize, 0),
    js_end: js.length ? Math.max(...js.map((r) => r.responseEnd)) : null,
    js_files: js.map((r) => [r.name.split('/').pop(), Math.round(r.startTime), Math.round(r.responseEnd),
      r.transferSize]),
    css_bytes: css.reduce((s, r) => s + r.transferSize, 0),
    doc_bytes: nav.transferSize,
  };
}
"""

# The page's DOM as static HTML: no scripts, Emotion's CSSOM rules as text, and the same-origin files it uses.
FREEZE = """
() => {
  for (const el of document.querySelectorAll(
    'script, link[rel=modulepreload], link[rel=preload][as=script], link[rel=prefetch]'
  )) el.remove();
  for (const style of document.querySelectorAll('style')) {
    if (!style.textContent.trim() && style.sheet)
      style.textContent = Array.from(style.sheet.cssRules, (r) => r.cssText).join('\\n');
  }
  const files = new Set();
  for (const link of document.querySelectorAll('link[rel=stylesheet]')) files.add(link.href);
  for (const link of document.querySelectorAll('link[rel=icon], link[rel="shortcut icon"]')) files.add(link.href);
  for (const img of document.querySelectorAll('img')) {
    if (img.src) files.add(img.src);
    for (const part of (img.srcset || '').split(',')) if (part.trim()) files.add(new URL(part.trim().split(/\\s+/)[0], location.href).href);
  }
  return {html: '<!DOCTYPE html>\\n' + document.documentElement.outerHTML, files: [...files]};
}
"""


@dataclass
class Target:
    """One page of the app and its frozen copy."""

    label: str
    path: str
    selector: str
    static_name: str
    runs: dict[str, list[dict]] = field(default_factory=lambda: {variant: [] for variant in VARIANTS})

    @property
    def document_name(self) -> str:
        """The file holding the app's own document of this page, as the app serves it."""
        return self.static_name.replace(".html", "-document.html")


# What each page is measured as, in the printed table's order.
VARIANTS = {
    "app": "the app's page, served by the app",
    "static": "its DOM frozen, on a plain file server (the issue's static copy)",
    "dressed": "the same frozen copy, the file server adding the app's response headers",
    "document": "the app's own document (its preview; the JS files are missing there), on that dressed file server",
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extra_headers: ClassVar[dict[str, str]] = {}

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args) -> None:
        pass


def file_server(directory: Path, headers: dict[str, str] | None = None) -> tuple[str, http.server.ThreadingHTTPServer]:
    """A plain file server for ``directory`` on a free port, in a thread; returns its URL and the server.

    ``headers``: sent with every response besides the file server's own.
    """
    handler_class = type("_Dressed", (_Quiet,), {"extra_headers": dict(headers or {})})
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://localhost:{server.server_address[1]}", server


def new_context(browser, url: str, cookie: tuple[str, str]):
    """A cold context (own cache, no connections) holding the 18+ cookie for localhost."""
    context = browser.new_context(locale="es-CL", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    host = urlsplit(url).hostname
    context.add_cookies([{"name": cookie[0], "value": cookie[1], "domain": host, "path": "/", "sameSite": "Lax"}])
    return context


def measure(browser, url: str, selector: str, cookie: tuple[str, str], elsewhere: str | None = None) -> dict:
    """One cold load of ``url``: the probe's timings once ``selector`` is in the DOM and the page is loaded.

    ``elsewhere``: a page of another site the tab shows first, as a search engine's results would be.
    """
    context = new_context(browser, url, cookie)
    try:
        page = context.new_page()
        page.add_init_script(PROBE.replace("%SELECTOR%", repr(selector)))
        if elsewhere:
            page.goto(elsewhere, wait_until="load")
        page.goto(url, wait_until="load")
        page.wait_for_function("window.__probe && window.__probe.listing !== null")
        page.wait_for_timeout(300)  # late resource timings and frames
        return page.evaluate(READ)
    finally:
        context.close()


def freeze(browser, app_url: str, target: Target, directory: Path, cookie: tuple[str, str]) -> str | None:
    """Write ``target``'s DOM (as the app renders it) and its files under ``directory``; the first card's href."""
    import httpx

    context = new_context(browser, app_url, cookie)
    try:
        page = context.new_page()
        page.goto(app_url + target.path, wait_until="networkidle")
        page.mouse.move(10, 10)  # the visitor's first move starts the app of a public page (assets/site.js)
        page.locator("#vista-previa").wait_for(state="detached")
        page.wait_for_selector(target.selector, state="attached")
        page.wait_for_load_state("networkidle")
        first_card = page.locator(CARD_LINK).first.get_attribute("href") if page.locator(CARD_LINK).count() else None
        frozen = page.evaluate(FREEZE)
    finally:
        context.close()
    origin = urlsplit(app_url).netloc
    for url in frozen["files"]:
        parts = urlsplit(url)
        if parts.netloc != origin or not parts.path.strip("/"):
            continue
        destination = directory / parts.path.lstrip("/")
        if destination.exists():
            continue
        response = httpx.get(url, cookies={cookie[0]: cookie[1]}, timeout=30)
        response.raise_for_status()
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(response.content)
    (directory / target.static_name).write_text(frozen["html"], encoding="utf-8")
    return first_card


def app_document(app_url: str, path: str, cookie: tuple[str, str]) -> tuple[str, dict[str, str]]:
    """The HTML document the app serves for ``path`` to a returning visitor, and its ``SITE_HEADERS``."""
    import httpx

    response = httpx.get(app_url + path, cookies={cookie[0]: cookie[1]}, timeout=30)
    response.raise_for_status()
    return response.text, {name: response.headers[name] for name in SITE_HEADERS if name in response.headers}


def breakdown(samples: list[dict]) -> str:
    """Medians of where an app page's time goes, in milliseconds from navigation start."""

    def med(values) -> str:
        values = [v for v in values if v is not None]
        return f"{statistics.median(values):.0f}" if values else "-"

    def first(sample: dict, kind: str, pattern: re.Pattern | None = None) -> float | None:
        for entry in sample["ws"]:
            if entry[0] == kind and (pattern is None or pattern.search(entry[3])):
                return entry[1]
        return None

    fields = {
        "doc": [s["doc"] for s in samples],
        "js in": [s["js_end"] for s in samples],
        "DCL": [s["dcl"] for s in samples],
        "ws new": [first(s, "create") for s in samples],
        "ws open": [first(s, "open") for s in samples],
        "1st event": [first(s, "send") for s in samples],
        "1st delta": [first(s, "recv") for s in samples],
        "listings delta": [first(s, "recv", LISTING_DELTA) for s in samples],
        "in DOM": [s["listing"] for s in samples],
        "FCP": [s["fcp"] for s in samples],
    }
    sizes = (
        f"document {statistics.median(s['doc_bytes'] for s in samples) / 1024:.1f} KB, "
        f"JS {statistics.median(s['js_count'] for s in samples):.0f} files "
        f"{statistics.median(s['js_bytes'] for s in samples) / 1024:.0f} KB transferred "
        f"({statistics.median(s['js_body'] for s in samples) / 1024:.0f} KB decoded), "
        f"CSS {statistics.median(s['css_bytes'] for s in samples) / 1024:.0f} KB"
    )
    return "    " + ", ".join(f"{name} {med(values)}" for name, values in fields.items()) + "\n    " + sizes


@contextmanager
def demo_site(listings: int, workers: int, revision: str | None = None) -> Iterator[tuple[str, str, Path]]:
    """The app in production mode on the demo data in a scratch database; yields its URL, busiest city, log.

    With ``revision``, a copy of the project whose ``app`` and ``assets`` are the ones committed there is served.
    """
    with demo_database(listings) as data:
        from sqlmodel import Session

        from app.db import get_engine

        with Session(get_engine()) as session:
            city, count = busiest_city(session)
            print(f"busiest city: {city}, {count} public listings")
        get_engine().dispose()

        project = None
        if revision:
            from bench.bench_ssg_throughput import _project_at
            from tests.e2e.conftest import PROJECT

            project = _project_at(PROJECT, revision, data.folder / "project")
            archive = subprocess.run(
                ["git", "archive", revision, "assets"], cwd=PROJECT, capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(project)], input=archive, check=True)  # its stylesheet too
        with serve_demo(data, workers=workers, project=project) as site:
            yield site, city, data.server_log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=8, help="cold loads of each page and of its copy (at least 8)")
    parser.add_argument("--workers", type=int, default=1, help="backend workers (WEB_WORKERS)")
    parser.add_argument("--revision", help="serve app/ as committed at this revision (to measure an earlier one)")
    parser.add_argument(
        "--from-another-site",
        action="store_true",
        help="open every page from a page of another site (127.0.0.1), as visitors from a search engine arrive",
    )
    args = parser.parse_args()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    with (
        demo_site(args.listings, args.workers, args.revision) as (site, city, log_path),
        tempfile.TemporaryDirectory() as tmp,
    ):
        from playwright.sync_api import sync_playwright

        from app.states.public import AGE_COOKIE
        from tests.e2e.conftest import CHROMIUM_ARGS, FULL_CHROMIUM

        frozen = Path(tmp)
        cookie = (AGE_COOKIE, "1")
        static_url, server = file_server(frozen)
        (frozen / "elsewhere.html").write_text(ELSEWHERE, encoding="utf-8")
        elsewhere = static_url.replace("localhost", "127.0.0.1") + "/elsewhere.html" if args.from_another_site else None
        dressed_url, dressed_server = None, None
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=FULL_CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                city_page = Target("city", f"/escorts/{city}", CARD_LINK, "city.html")
                detail_path = freeze(browser, site, city_page, frozen, cookie)
                targets = [
                    city_page,
                    Target("detail", urlsplit(detail_path).path, DETAIL_NAME, "detail.html"),
                    Target("ssg city", f"/escorts-ssg/{city}", SSG_CARD_LINK, "ssg-city.html"),
                ]
                for target in targets[1:]:
                    freeze(browser, site, target, frozen, cookie)
                for target in targets:
                    document, headers = app_document(site, target.path, cookie)  # the same headers on every page
                    (frozen / target.document_name).write_text(document, "utf-8")
                print("the app's headers on the dressed file server:", ", ".join(sorted(headers)) or "none")
                dressed_url, dressed_server = file_server(frozen, headers)
                for run in range(-1, args.runs):  # run -1: one warm-up of each (server caches, chromium's start-up)
                    for target in targets:
                        urls = {
                            "app": site + target.path,
                            "static": f"{static_url}/{target.static_name}",
                            "dressed": f"{dressed_url}/{target.static_name}",
                            "document": f"{dressed_url}/{target.document_name}",
                        }
                        order = list(VARIANTS)
                        turn = run % len(order)
                        for variant in order[turn:] + order[:turn]:
                            sample = measure(browser, urls[variant], target.selector, cookie, elsewhere)
                            if run >= 0:
                                target.runs[variant].append(sample)
            except Exception:
                print(f"server log tail:\n{log_path.read_text()[-3000:]}")
                raise
            finally:
                browser.close()
                server.shutdown()
                if dressed_server:
                    dressed_server.shutdown()

    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.runs} alternating cold runs each; ms from navigation start to the first listing in the DOM")
    print("each page opened from", "a page of another site" if args.from_another_site else "a blank tab")
    for variant, meaning in VARIANTS.items():
        print(f"  {variant}: {meaning}")
    print(f"{'page':<10} " + " ".join(f"{variant:>9}" for variant in VARIANTS) + "  app/static app/dressed  FCPs")
    verdict = dressed_verdict = True
    for target in targets:
        listing = {variant: statistics.median(s["listing"] for s in runs) for variant, runs in target.runs.items()}
        fcp = {variant: statistics.median(s["fcp"] or 0 for s in runs) for variant, runs in target.runs.items()}
        ratio, dressed_ratio = listing["app"] / listing["static"], listing["app"] / listing["dressed"]
        print(
            f"{target.label:<10} "
            + " ".join(f"{value:>9.0f}" for value in listing.values())
            + f"  {ratio:>9.2f}x {dressed_ratio:>10.2f}x  "
            + " / ".join(f"{value:.0f}" for value in fcp.values())
        )
        print(f"    {target.path}")
        for variant, runs in target.runs.items():
            print(f"    {variant} runs:", " ".join(f"{s['listing']:.0f}" for s in runs))
        app_runs = target.runs["app"]
        print("  app, where the time goes (median ms from navigation start):")
        print(breakdown(app_runs))
        if app_runs[0]["js_files"]:
            last = app_runs[len(app_runs) // 2]
            print(
                "    JS of one run (file, start, end ms, bytes):",
                "; ".join(f"{n} {a}-{b} {z}" for n, a, b, z in last["js_files"]),
            )
            print("    websocket of that run:", "; ".join(f"{k} {t:.0f} {n}B {x[:60]!r}" for k, t, n, x in last["ws"]))
        if target.label in ("city", "detail"):
            verdict = verdict and ratio <= TARGET_RATIO
            dressed_verdict = dressed_verdict and dressed_ratio <= TARGET_RATIO
    print(f"target: city and detail within {TARGET_RATIO}x of their static copies: {'met' if verdict else 'NOT met'}")
    print(
        f"  against the copies with the app's headers: {'within' if dressed_verdict else 'NOT within'} {TARGET_RATIO}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
