"""The W3C Nu HTML checker over every kind of document the site serves: 0 errors.

Served documents (what a crawler or a browser without JavaScript reads): the homes, a
city, a filter tab, a city with filters (and with none matching them), a city's /all page, the trans pages, listing details, /login, each
information page, a 404, the SSG pages, and the page of a data-export link (signed out, and a
bad link signed in); first visits (the 18+ notice) and returning visitors. Then the DOM the
prerendered pages (a home, /login, an information page) have once the app has hydrated them, and
an advertiser's notice choices. All of them go to one run of the checker (tools/vnu,
pinned vnu-jar on Debian's Java), and the test lists every error with its document.

Not checked after hydration: the pages served from the app's SPA fallback (a city, a
listing). React mounts their <title> in a subtree it renders hidden first, so it makes a
title of its own beside the served one instead of taking it over (two <title> elements with
the same text until the next full load); the served documents themselves are checked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from app.content.legal import LEGAL_PAGES
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ProfileId
from app.routes import ADVERTISER_NOTICES, DATA_EXPORT_PREFIX, legal_path
from app.states.public import AGE_COOKIE
from tests.e2e.conftest import CITY, PAGED_CITY, Site
from tests.factories import make_account, open_session
from tests.npm_tools import tool_modules

pytestmark = pytest.mark.e2e

ADULT = {AGE_COOKIE: "1"}
# Messages of the checker that are its own limits, not errors: (message, text of the extract).
CHECKER_LIMITS = (
    # Its CSS parser refuses a custom property holding arithmetic ("--scale:var(--toasts-before)
    # * 0.05 + 1"), which is valid CSS (a custom property takes any tokens), in the stylesheet the
    # toast library inserts once the app runs.
    ("CSS: Parse Error.", "* 0.05 + 1;--y:translate"),
)
# React marks every element it has hydrated with a __reactFiber$… property.
HYDRATED = (
    "() => { const root = document.querySelector('[data-is-root-theme]');"
    " return !!root && Object.keys(root).some((key) => key.startsWith('__reactFiber')); }"
)


def _served(site: Site) -> dict[str, tuple[str, dict[str, str], int]]:
    """Document name → (path, cookies, expected status)."""
    catalina = f"/escorts/{CITY}/catalina/{site.uids['diamante']}"
    maite = f"/escorts/trans/{CITY}/maite-{site.uids['trans']}"
    return {
        "inicio-primera-visita": ("/escorts", {}, 200),
        "inicio": ("/escorts", ADULT, 200),
        "trans-inicio": ("/escorts/trans", ADULT, 200),
        "ciudad-primera-visita": (f"/escorts/{CITY}", {}, 200),
        "ciudad": (f"/escorts/{CITY}", ADULT, 200),
        "ciudad-pestana": (f"/escorts/{CITY}/verificadas", ADULT, 200),
        "ciudad-todos": (f"/escorts/{CITY}/all", ADULT, 200),
        "ciudad-filtrada": (f"/escorts/{CITY}/verificadas?precio_max=90000&edad_min=20&servicio=x", ADULT, 200),
        "ciudad-filtrada-vacia": (f"/escorts/{CITY}?precio_min=99999999", ADULT, 200),
        "trans-ciudad": (f"/escorts/trans/{CITY}", ADULT, 200),
        "ficha-primera-visita": (catalina, {}, 200),
        "ficha": (catalina, ADULT, 200),
        "ficha-trans": (maite, ADULT, 200),
        "login": ("/login", {}, 200),
        "favoritas": ("/favoritas", ADULT, 200),
        **{f"info-{page.slug}": (legal_path(page.slug), {}, 200) for page in LEGAL_PAGES},
        "no-existe": ("/no-existe", {}, 404),
        "no-existe-barra": ("/escorts/atlantida/", {}, 404),
        "ssg-primera-visita": ("/escorts-ssg", {}, 200),
        "ssg": ("/escorts-ssg", ADULT, 200),
        "ssg-ciudad": (f"/escorts-ssg/{PAGED_CITY}?pagina=2", ADULT, 200),
        "ssg-no-existe": (f"/escorts-ssg/{CITY}?pagina=99", {}, 404),
    }


def _hydrated(page: Page, site: Site) -> dict[str, str]:
    """The DOM of the prerendered pages once the app runs them (a returning visitor's)."""
    page.context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    documents = {}
    for name, path in (
        ("app-inicio", "/escorts"),
        ("app-trans-inicio", "/escorts/trans"),
        ("app-login", "/login"),
        ("app-info-terminos", legal_path("terminos")),
    ):
        page.goto(path)
        page.wait_for_function(HYDRATED)
        page.locator("#vista-previa").wait_for(state="detached")  # the server's preview has left
        documents[name] = page.content()
    # The Favoritas page with a saved listing and one no longer public (drawn by assets/favourites.js).
    saved = [site.uids["diamante"], site.uids["hidden"]]
    page.evaluate("(uids) => window.localStorage.setItem('favoritas', JSON.stringify(uids))", saved)
    page.goto("/favoritas")
    page.wait_for_function(HYDRATED)
    page.get_by_test_id("favorita-no-disponible").wait_for()
    documents["app-favoritas"] = page.content()
    return documents


def _check(documents: dict[str, str], folder: Path) -> list[str]:
    """One run of the Nu checker over ``documents``: every error as "document:line.column: message «extract»"."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("The Nu HTML checker needs Java: scripts/test.sh installs it")
    vnu_jar = tool_modules("vnu") / "vnu-jar" / "build" / "dist" / "vnu.jar"
    paths = []
    for name, html in documents.items():
        path = folder / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        paths.append(path)
    run = subprocess.run(
        [java, "-jar", str(vnu_jar), "--errors-only", "--format", "json", "--exit-zero-always", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    messages = json.loads(run.stderr)["messages"]
    return [
        f"{Path(m.get('url', '')).stem}:{m.get('lastLine', '?')}.{m.get('firstColumn', '?')}: "
        f"{m['message']} «{m.get('extract', '').strip()[:160]}»"
        for m in messages
        if m["type"] in ("error", "non-document-error")
        and not any(m["message"] == text and part in m.get("extract", "") for text, part in CHECKER_LIMITS)
    ]


def _signed_in(db: Session) -> tuple[dict[str, str], dict[str, str]]:
    """An advertiser's documents: the data-export page signed out and with a bad link, and the notice choices.

    Returns the served ones (name → path, cookies, status) and the session cookie for the hydrated one.
    """
    advertiser = make_account(
        db, LocalProvider(engine=db.get_bind()), "nu-avisos@correo.cl", profile=ProfileId.PROFESOR
    )
    session = {SESSION_COOKIE: open_session(db, advertiser.uid)}
    unknown_link = f"{DATA_EXPORT_PREFIX}/{'x' * 43}"
    served = {"datos-sin-sesion": (unknown_link, {}, 403), "datos-enlace-vencido": (unknown_link, session, 404)}
    return served, session


def test_every_kind_of_document_is_valid_html(site: Site, page: Page, db: Session, tmp_path):
    private, session = _signed_in(db)
    documents = {}
    for name, (path, cookies, status) in {**_served(site), **private}.items():
        response = httpx.get(site.url + path, cookies=cookies, timeout=20)
        assert response.status_code == status, (name, path, response.status_code)
        documents[name] = response.text
    documents.update(_hydrated(page, site))
    page.context.add_cookies([{"name": name, "value": value, "url": site.url} for name, value in session.items()])
    page.goto(ADVERTISER_NOTICES)
    expect(page.get_by_role("heading", name="Mi cuenta: avisos por correo", level=1)).to_be_visible()
    page.locator("#vista-previa").wait_for(state="detached")
    documents["app-avisos"] = page.content()
    errors = _check(documents, tmp_path)
    assert not errors, f"{len(errors)} errors of the Nu HTML checker:\n" + "\n".join(errors)
