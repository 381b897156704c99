"""Search engines and link previews against the real production app: head tags without JavaScript,
robots.txt, sitemaps and 404 statuses over plain HTTP, and the pages still hydrating in a browser."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import CITY, accept_age

pytestmark = pytest.mark.e2e

LOC = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"


def _fetch(site, path: str) -> httpx.Response:
    return httpx.get(site.url + path, follow_redirects=False, timeout=20, headers={"Accept-Encoding": "gzip"})


def _one(pattern: str, text: str) -> str:
    found = re.findall(pattern, text)
    assert len(found) == 1, (pattern, found)
    return found[0]


def test_head_tags_are_in_the_served_html_without_javascript(site):
    tab = _fetch(site, f"/escorts/{CITY}/verificadas")
    assert tab.status_code == 200
    assert _one(r"<title[^>]*>([^<]*)</title>", tab.text) == "Escorts en Temuco: Verificadas | Escorts Chile"
    assert _one(r'<link rel="canonical" href="([^"]*)">', tab.text) == f"{site.url}/escorts/{CITY}/verificadas"
    assert "/assets/" in tab.text  # still the app's own document, scripts and all
    crumbs = json.loads(_one(r'<script type="application/ld\+json">(.*?)</script>', tab.text))
    assert [i["name"] for i in crumbs["itemListElement"]] == ["Escorts en Chile", "Escorts en Temuco", "Verificadas"]

    uid = site.uids["diamante"]
    detail = _fetch(site, f"/escorts/{CITY}/catalina/{uid}")
    assert detail.status_code == 200
    assert _one(r"<title[^>]*>([^<]*)</title>", detail.text).startswith("Catalina, 25 años, escort en Temuco")
    image = _one(r'<meta property="og:image" content="([^"]*)">', detail.text)
    assert image.startswith(f"{site.url}/media/")
    assert _fetch(site, image.removeprefix(site.url)).status_code == 200  # the preview image is really served
    assert "&lt;b&gt;sin HTML&lt;/b&gt;" in _one(r'<meta name="description" content="([^"]*)">', detail.text)

    home = _fetch(site, "/escorts")
    assert _one(r"<title[^>]*>([^<]*)</title>", home.text) == "Escorts en Chile | Escorts Chile"


def test_robots_and_sitemaps_are_real_files(site):
    robots = _fetch(site, "/robots.txt")
    assert robots.headers["content-type"].startswith("text/plain")
    assert f"Sitemap: {site.url}/sitemap.xml" in robots.text.splitlines()
    index = _fetch(site, "/sitemap.xml")
    assert index.headers["content-type"].startswith("application/xml")
    assert f"{site.url}/sitemaps/mujeres/{CITY}.xml" in [e.text for e in ET.fromstring(index.content).iter(LOC)]
    city = [e.text for e in ET.fromstring(_fetch(site, f"/sitemaps/mujeres/{CITY}.xml").content).iter(LOC)]
    assert f"{site.url}/escorts/{CITY}/catalina/{site.uids['diamante']}" in city
    assert not any(site.uids["hidden"] in loc for loc in city)


def test_statuses_after_the_redirect_rules(site):
    for path in (
        "/escorts/atlantida",
        f"/escorts/{CITY}/no-es-seccion",
        "/no-existe",
        "/otra/cosa/mas",
        f"/escort/{site.uids['hidden']}",
    ):
        assert _fetch(site, path).status_code == 404, path
    assert _fetch(site, "/santiago").headers["location"] == "/escorts/santiago-de-chile"
    # Pages, files and the SSG answer at their own URL: no redirect to a trailing slash.
    for path in ("/login", "/site.js", "/escorts-ssg", "/disclaimer/terminos", "/admin/escorts", "/login/accion"):
        assert _fetch(site, path).status_code == 200, path


def test_every_url_of_the_pages_sitemap_is_final(site):
    pages = [e.text for e in ET.fromstring(_fetch(site, "/sitemaps/paginas.xml").content).iter(LOC)]
    assert f"{site.url}/disclaimer/terminos" in pages
    for url in pages:
        assert _fetch(site, url.removeprefix(site.url)).status_code == 200, url


def test_login_and_information_pages_have_canonical_and_opengraph(site):
    for path in ("/login", "/disclaimer/privacidad"):
        text = _fetch(site, path).text
        assert _one(r'<link rel="canonical" href="([^"]*)">', text) == site.url + path
        assert _one(r'<meta property="og:url" content="([^"]*)">', text) == site.url + path
        assert _one(r'<meta property="og:type" content="([^"]*)">', text) == "website"
        assert _one(r'<meta property="og:title" content="([^"]*)">', text) == _one(r"<title[^>]*>([^<]*)</title>", text)
        assert "og:image" not in text and "favicon.ico" not in text, path


def test_no_soft_404s_and_no_server_banner(site):
    icon = _fetch(site, "/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/"), icon.headers
    assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO file, not the app's page
    for path, status, location in (
        ("/no-existe/", 404, None),
        ("/escorts-ssg/", 301, "/escorts-ssg"),
        (f"/escorts/{CITY}/", 301, f"/escorts/{CITY}"),
        ("/disclaimer/terminos/", 301, "/disclaimer/terminos"),
        ("/login/", 301, "/login"),
        ("/foto.png", 404, None),
        ("/assets", 404, None),
    ):
        response = _fetch(site, path)
        assert (response.status_code, response.headers.get("location")) == (status, location), path
        if status == 404:
            assert "noindex" in response.headers["x-robots-tag"], path
    event, upload = _fetch(site, "/_event"), _fetch(site, "/_upload")
    assert (event.status_code, event.headers["content-type"]) == (404, "text/plain; charset=utf-8")
    assert (upload.status_code, upload.headers["allow"]) == (405, "POST")
    for path in ("/escorts", "/favicon.ico", "/no-existe", "/login"):
        assert "granian" not in _fetch(site, path).headers.get("server", ""), path


def test_pages_served_with_their_tags_still_hydrate_and_work(page: Page, site):
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"/escorts/{CITY}/verificadas")
    page.wait_for_load_state("networkidle")
    # The document with our head tags hydrates without a mismatch (React error #418/#423/#425).
    assert not [e for e in errors if "ydrat" in e or "Minified React error" in e], errors
    accept_age(page)
    cards = page.get_by_test_id("listing-card")
    expect(cards).to_have_count(1)
    # The running page keeps the document's title (React re-renders the head from the page's state).
    expect(page).to_have_title("Escorts en Temuco: Verificadas | Escorts Chile")
    cards.first.get_by_role("link").first.click()
    expect(page.get_by_role("heading", name=site.names["verificada"], level=1)).to_be_visible()
    expect(page).to_have_title(re.compile(r"^" + re.escape(site.names["verificada"]) + r", \d+ años, escort en Temuco"))

    # A URL that does not exist answers 404, and a person is still taken to the home page.
    response = page.goto("/escorts/atlantida")
    assert response.status == 404
    expect(page).to_have_url(re.compile(r"/escorts$"))
