"""Lighthouse (mobile) scores of the public pages (first visit and returning visitor) and of signed-in pages.

Serves the app on the demo data the way bench/bench_page_ratio.py does (production
build, scratch PostgreSQL) and runs bench/lighthouse.mjs once per page and mode, each
in a fresh chromium profile (Debian's /usr/bin/chromium). "first": the 18+ notice
shows; "returning": the 18+ cookie is set before the run. The SSG city page is
measured too, for reference. "signed-in": the wizard's first step and "my listings"
as the demo advertiser with the most listings, and /admin/publicacion as an
administrator, each with a session opened through the session service. Prints the four category scores, first contentful
paint, largest contentful paint, total blocking time and layout shift, and every
audit scored under 1 in accessibility, best practices and SEO.

Needs Lighthouse installed outside the repository: ``mkdir -p /tmp/lh && cd /tmp/lh &&
npm install lighthouse puppeteer-core chrome-launcher``. Starts the full app: run it under ``flock /tmp/e2e.lock``.

    flock /tmp/e2e.lock .venv/bin/python bench/lighthouse.py [--lh-dir /tmp/lh] [--out /tmp/lh/reports]
        [--pages public,signed-in] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.models import ProfileId
from app.routes import ADMIN_LISTINGS, ADVERTISER_HOME, ADVERTISER_NEW_LISTING
from bench.bench_page_ratio import demo_site
from bench.common import session_token

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {
    "FCP": "first-contentful-paint",
    "LCP": "largest-contentful-paint",
    "TBT": "total-blocking-time",
    "CLS": "cumulative-layout-shift",
}
# The signed-in pages: the wizard and "my listings" as the demo advertiser with the most listings, the staff
# listings table as an administrator.
SIGNED_IN = {"wizard": ADVERTISER_NEW_LISTING, "my list": ADVERTISER_HOME, "admin": ADMIN_LISTINGS}
FIRST_CARD = re.compile(r'<a href="([^"]+)" class="card-body">')


def run(lh_dir: Path, url: str, mode: str, out: Path, token: str = "") -> dict:
    """One Lighthouse run (``token``: the session of a "signed-in" run); its JSON report."""
    from app.identity.sessions import SESSION_COOKIE
    from app.states.public import AGE_COOKIE

    env = {
        **os.environ,
        "CHROME_PATH": "/usr/bin/chromium",
        "AGE_COOKIE": AGE_COOKIE,
        "SESSION_COOKIE": SESSION_COOKIE,
        "SESSION_TOKEN": token,
    }
    for _ in range(3):  # a trace Lighthouse failed to record (NO_NAVSTART, a loaded machine) is tried again
        subprocess.run(
            ["node", str(lh_dir / "lighthouse.mjs"), url, mode, str(out)], cwd=lh_dir, env=env, check=True, timeout=300
        )
        report = json.loads(out.read_text())
        if not report.get("runtimeError"):
            break
        print(f"  {url} {mode}: {report['runtimeError']['code']}, again", flush=True)
    return report


def chosen(wanted: set[str], group: str, label: str) -> bool:
    """Whether ``--pages`` asks for this page: its group ("public", "signed-in") or its label."""
    return group in wanted or label.replace(" ", "-") in wanted


def summary(report: dict) -> str:
    """Scores, metrics and the failing non-performance audits of one report."""
    scores = " ".join(
        "  -  " if report["categories"][c]["score"] is None else f"{report['categories'][c]['score']:.2f}"
        for c in CATEGORIES
    )
    metrics = " ".join(f"{name} {report['audits'][key].get('displayValue', '-')}" for name, key in METRICS.items())
    failing = []
    for category in CATEGORIES[1:]:
        for ref in report["categories"][category]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref.get("weight") and audit.get("score") is not None and audit["score"] < 1:
                failing.append(ref["id"])
    return f"{scores}  {metrics}" + (f"  failing: {', '.join(failing)}" if failing else "")


def prepare(lh_dir: Path, out: Path) -> bool:
    """Check that Lighthouse is installed in ``lh_dir``, put bench/lighthouse.mjs beside it, make ``out``, and
    print the date and the load average the figures were measured at (False, with why, when not installed)."""
    if not (lh_dir / "node_modules" / "lighthouse").is_dir():
        print(f"Lighthouse is not installed in {lh_dir}: cd {lh_dir} && npm install lighthouse")
        return False
    shutil.copy(Path(__file__).with_name("lighthouse.mjs"), lh_dir / "lighthouse.mjs")
    out.mkdir(parents=True, exist_ok=True)
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}, cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lh-dir", type=Path, default=Path("/tmp/lh"), help="where `npm install lighthouse` ran")
    parser.add_argument("--out", type=Path, default=Path("/tmp/lh/reports"), help="where the JSON reports go")
    parser.add_argument("--listings", type=int, default=3000)
    parser.add_argument("--revision", help="serve app/ as committed at this revision (to measure an earlier one)")
    parser.add_argument(
        "--pages",
        default="public,signed-in",
        help="comma-separated: public, signed-in, or page labels (home, city, detail, ssg-city, wizard, my-list, admin)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of every page and mode (figures of each printed)")
    args = parser.parse_args()
    wanted = set(args.pages.split(","))
    if not prepare(args.lh_dir, args.out):
        return 2
    import httpx

    with demo_site(args.listings, 1, args.revision) as (site, city, _):
        detail = FIRST_CARD.search(httpx.get(f"{site}/escorts-ssg/{city}", cookies={"mayor_de_edad": "1"}).text)
        pages = {
            "home": "/escorts",
            "city": f"/escorts/{city}",
            "detail": detail.group(1).replace("/escorts-ssg/", "/escorts/", 1),
            "ssg city": f"/escorts-ssg/{city}",
        }
        print(f"{'page':<9} {'visit':<10} perf a11y bp   seo   metrics")
        runs = []
        for label, path in pages.items():
            if chosen(wanted, "public", label):
                runs += [(label, path, mode, "") for mode in ("first", "returning")]
        if any(chosen(wanted, "signed-in", label) for label in SIGNED_IN):
            tokens = {
                ADVERTISER_NEW_LISTING: session_token(ProfileId.PROFESOR, owner_of_listings=True),
                ADMIN_LISTINGS: session_token(ProfileId.ADMINISTRADOR),
            }
            tokens[ADVERTISER_HOME] = tokens[ADVERTISER_NEW_LISTING]
            for label, path in SIGNED_IN.items():
                if chosen(wanted, "signed-in", label):
                    runs.append((label, path, "signed-in", tokens[path]))
        for index in range(args.runs):
            for label, path, mode, token in runs:
                suffix = f"-{index + 1}" if args.runs > 1 else ""
                out = args.out / f"{label.replace(' ', '-')}-{mode}{suffix}.json"
                report = run(args.lh_dir, site + path, mode, out, token)
                load = os.getloadavg()[0]
                print(f"{label:<9} {mode:<10} {summary(report)}  (load {load:.1f})", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
