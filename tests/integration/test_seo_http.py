"""robots.txt, the sitemaps and the public pages' documents over HTTP, in process, on a real database.

The exported Reflex pages are stand-ins written to tmp_path with the same head
Reflex writes; tests/e2e/test_seo.py checks the real build in a browser.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from sqlmodel import Session
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.db import make_engine
from app.identity.sessions import SESSION_COOKIE
from app.models import Listing, ProfileId, Section
from app.pages.wizard import WIZARD_INTRO
from app.routes import ADMIN_LISTINGS, ADVERTISER_NEW_LISTING
from app.services.staff.listings import LISTINGS_SPEC
from app.settings import get_settings
from app.states.public import AGE_COOKIE
from app.web import seo_api
from app.web.api import build_api
from tests.factories import make_listing, make_owner, make_staff, open_session

pytestmark = pytest.mark.integration

SITE = "https://escorts.example.cl"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
REFLEX_HEAD = (
    '<!DOCTYPE html><html lang="es-CL"><head><meta charSet="utf-8"/>'
    '<meta content="width=device-width, initial-scale=1" name="viewport"/>'
)
EXPORTED = {
    "escorts.html": REFLEX_HEAD + '<title>Escorts Chile</title><meta content="Directorio" name="description"/>'
    '<meta content="favicon.ico" property="og:image"/></head><body><div id="home-page">home</div></body></html>',
    "404.html": REFLEX_HEAD + '</head><body><section aria-label="Notifications"></section>'
    '<div data-is-root-theme="true" data-accent-color="pink" data-radius="medium" class="radix-themes css-0"></div>'
    '<div id="spa-fallback"></div></body></html>',
    **{
        f"{path.lstrip('/')}.html": REFLEX_HEAD + "<title>Escorts Chile</title>"
        '<meta content="favicon.ico" property="og:image"/></head><body>'
        '<div data-is-root-theme="true" class="radix-themes css-0"><p class="loading">Comprobando tu acceso…</p></div>'
        "</body></html>"
        for path in (ADVERTISER_NEW_LISTING, ADMIN_LISTINGS)
    },
    # Reflex writes every static page twice: {path}.html and {path}/index.html.
    **{
        name: REFLEX_HEAD + '<title>Escorts Chile</title><meta content="favicon.ico" property="og:image"/></head>'
        f'<body><div id="page">{name}</div></body></html>'
        for page in ("login", "disclaimer/terminos", "admin/escorts", "login/accion")
        for name in (f"{page}.html", f"{page}/index.html")
    },
}
ADULT = {AGE_COOKIE: "1"}


class _Head(HTMLParser):
    """The title, metas, links and JSON-LD of a document."""

    def __init__(self, document: str):
        super().__init__()
        self.title, self.meta, self.links, self.json_ld = "", {}, {}, []
        self._in = ""
        self.feed(document)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and "content" in attrs:
            self.meta[attrs.get("property") or attrs.get("name")] = attrs["content"]
        elif tag == "link" and attrs.get("rel") == "canonical":
            self.links["canonical"] = attrs["href"]
        elif tag in ("title", "script"):
            self._in = tag if tag == "title" or attrs.get("type") == "application/ld+json" else ""

    def handle_endtag(self, tag):
        self._in = ""

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "script":
            self.json_ld.append(json.loads(data))


async def _reflex_stand_in(scope, receive, send):
    """Reflex's mount: "reflex" for anything, an exported file's name, or its 404 page under /sin-pagina."""
    path = scope["path"]
    if path.endswith(".html"):
        response = PlainTextResponse(f"reflex {path}")
    elif path.startswith("/sin-pagina"):
        response = HTMLResponse("<!DOCTYPE html><title>Escorts Chile</title>", status_code=404)
    else:
        response = PlainTextResponse("reflex")
    await response(scope, receive, send)


@pytest.fixture
def site(app_database, tmp_path, monkeypatch):
    """The API (with a stand-in for Reflex's mount behind it) on a database with listings in Talca."""
    monkeypatch.setenv("SITE_URL", SITE)
    get_settings.cache_clear()
    exported = tmp_path / "client"
    exported.mkdir()
    for name, document in EXPORTED.items():
        (exported / name).parent.mkdir(parents=True, exist_ok=True)
        (exported / name).write_text(document)
    monkeypatch.setattr(seo_api, "frontend_dir", lambda: exported)
    engine = make_engine(app_database)
    with Session(engine, expire_on_commit=False) as session:
        owner = make_owner(session, "duena@example.cl")
        banned = make_owner(session, "vetada@example.cl", ban=True)
        listings = {
            "ana": make_listing(session, owner, name="Ana Talquina", city="talca", verified=True),
            "trans": make_listing(session, owner, name="Bea", city="talca", section=Section.TRANS.value),
            "pending": make_listing(session, owner, name="Pendiente", city="talca", status="pendiente"),
            "banned": make_listing(session, banned, name="Vetada", city="talca"),
        }
    api = build_api(reflex_app)
    # What Reflex mounts behind the plain routes: its pages, endpoints and static files.
    api.mount("", _reflex_stand_in)
    with TestClient(api, base_url="http://localhost") as client:
        client.engine = engine
        client.listings = listings
        yield client
    engine.dispose()


def _get(client, path, **kwargs):
    return client.get(path, follow_redirects=False, **kwargs)


def test_robots_is_text_and_names_the_sitemap(site):
    response = _get(site, "/robots.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    lines = response.text.splitlines()
    assert {"User-agent: *", "Disallow: /login"} <= set(lines)
    # The guarded areas say "noindex" themselves, which a crawler kept out would never read.
    assert not {"Disallow: /admin", "Disallow: /bbitamia", "Disallow: /my"} & set(lines)
    assert f"Sitemap: {SITE}/sitemap.xml" in lines


def _locs(response) -> list[str]:
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    return [loc.text for loc in ET.fromstring(response.content).iter(f"{{{NS['s']}}}loc")]


def test_sitemap_index_lists_one_sitemap_per_city_and_section(site):
    locs = _locs(_get(site, "/sitemap.xml"))
    assert len(locs) == 1 + 2 * 25
    assert f"{SITE}/sitemaps/mujeres/talca.xml" in locs and f"{SITE}/sitemaps/trans/talca.xml" in locs
    root = ET.fromstring(_get(site, "/sitemap.xml").content)
    dated = {entry.find("s:loc", NS).text: entry.find("s:lastmod", NS) for entry in root.findall("s:sitemap", NS)}
    assert dated[f"{SITE}/sitemaps/mujeres/talca.xml"] is not None  # Talca has public listings
    assert dated[f"{SITE}/sitemaps/mujeres/osorno.xml"] is None
    pages = _locs(_get(site, "/sitemaps/paginas.xml"))
    assert f"{SITE}/escorts" in pages and f"{SITE}/disclaimer/terminos" in pages


def test_city_sitemap_has_tabs_and_public_listings_and_follows_publishing(site):
    url = "/sitemaps/mujeres/talca.xml"
    listing = site.listings
    locs = _locs(_get(site, url))
    assert locs[:2] == [f"{SITE}/escorts/talca", f"{SITE}/escorts/talca/lo-nuevo"]
    assert f"{SITE}/escorts/talca/verificadas" in locs
    assert f"{SITE}/escorts/talca/ana-talquina/{listing['ana'].uid}" in locs
    for hidden in ("trans", "pending", "banned"):
        assert not any(listing[hidden].uid in loc for loc in locs), hidden
    assert f"{SITE}/escorts/trans/talca/bea-{listing['trans'].uid}" in _locs(_get(site, "/sitemaps/trans/talca.xml"))

    with Session(site.engine, expire_on_commit=False) as session:
        new = make_listing(session, make_owner(session, "nueva@example.cl"), name="Recién Llegada", city="talca")
    assert f"{SITE}/escorts/talca/recien-llegada/{new.uid}" in _locs(_get(site, url))

    with Session(site.engine) as session:
        session.get(Listing, listing["ana"].uid).status = "pausada"
        session.commit()
    assert not any(listing["ana"].uid in loc for loc in _locs(_get(site, url)))


@pytest.mark.parametrize(
    "path", ["/sitemaps/otra/talca.xml", "/sitemaps/mujeres/atlantida.xml", "/sitemaps/mujeres/talca/2.xml"]
)
def test_unknown_sitemaps_are_not_found(site, path):
    assert _get(site, path).status_code == 404


def _head(site, path) -> _Head:
    response = _get(site, path)
    assert response.status_code == 200, (path, response.status_code)
    assert response.headers["content-type"].startswith("text/html")
    assert response.text.count("<title") == 1
    return _Head(response.text)


def test_home_document_has_its_own_tags_in_reflex_page(site):
    response = _get(site, "/escorts")
    assert '<div id="home-page">home</div>' in response.text and "favicon.ico" not in response.text
    head = _Head(response.text)
    assert head.title == "Escorts en Chile | Escorts Chile"
    assert head.links["canonical"] == f"{SITE}/escorts"
    assert head.meta["og:url"] == f"{SITE}/escorts" and head.meta["og:type"] == "website"
    assert head.meta["description"].startswith("Avisos de escorts")


def test_city_and_tab_documents_name_city_and_tab(site):
    city = _head(site, "/escorts/talca")
    assert city.title == "Escorts en Talca | Escorts Chile"
    assert city.links["canonical"] == f"{SITE}/escorts/talca"
    tab = _head(site, "/escorts/talca/verificadas")
    assert tab.title == "Escorts en Talca: Verificadas | Escorts Chile"
    assert tab.meta["og:title"] == tab.title
    assert tab.links["canonical"] == tab.meta["og:url"] == f"{SITE}/escorts/talca/verificadas"
    (crumbs,) = tab.json_ld
    assert crumbs["@type"] == "BreadcrumbList"
    assert [item["name"] for item in crumbs["itemListElement"]] == [
        "Escorts en Chile",
        "Escorts en Talca",
        "Verificadas",
    ]
    assert _head(site, "/escorts/trans/talca").title == "Escorts trans en Talca | Escorts Chile"


def test_structured_data_is_in_the_body_where_react_does_not_hydrate_it(site):
    """React hydrates the head too: an inline script there that its tree lacks fails hydration (#418)."""
    for path in ("/escorts/talca", f"/escort/{site.listings['ana'].uid}"):
        head, body = _get(site, path).text.split("<body>", 1)
        assert "ld+json" not in head and body.count('<script type="application/ld+json">') == 1, path


def test_detail_document_names_the_listing_with_its_cover(site):
    ana = site.listings["ana"]
    canonical = f"{SITE}/escorts/talca/ana-talquina/{ana.uid}"
    for path in (f"/escorts/talca/ana-talquina/{ana.uid}", f"/escort/{ana.uid}"):
        head = _head(site, path)
        assert head.title == "Ana Talquina, 25 años, escort en Talca | Escorts Chile"
        assert head.links["canonical"] == head.meta["og:url"] == canonical
        assert head.meta["og:image"] == f"{SITE}/media/photos/demo/placeholder-00.jpg"
        assert head.meta["og:type"] == "profile"
        (crumbs,) = head.json_ld
        assert [i["name"] for i in crumbs["itemListElement"]] == [
            "Escorts en Chile",
            "Escorts en Talca",
            "Ana Talquina",
        ]
        assert crumbs["itemListElement"][1]["item"] == f"{SITE}/escorts/talca"


def test_documents_are_gzipped_only_when_asked(site):
    plain = _get(site, "/escorts/talca", headers={"Accept-Encoding": "identity"})
    zipped = _get(site, "/escorts/talca", headers={"Accept-Encoding": "gzip, br"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip" and zipped.text == plain.text
    assert int(zipped.headers["content-length"]) < len(plain.content)
    assert "Accept-Encoding" in zipped.headers["vary"]


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/", "/escorts"),
        ("/talca", "/escorts/talca"),
        ("/escorts/talca/todas", "/escorts/talca"),
        ("/escorts/Talca/vip?utm_source=x", "/escorts/talca/vip?utm_source=x"),
    ],
)
def test_canonical_rewrites_are_permanent_redirects(site, path, location):
    response = _get(site, path)
    assert (response.status_code, response.headers["location"]) == (301, location)


def test_a_stale_name_in_a_detail_url_moves_to_the_canonical_one(site):
    uid = site.listings["ana"].uid
    response = _get(site, f"/escorts/talca/otro-nombre/{uid}")
    assert (response.status_code, response.headers["location"]) == (301, f"/escorts/talca/ana-talquina/{uid}")


def test_urls_that_do_not_exist_are_404_with_the_app_page(site):
    pending, banned = site.listings["pending"].uid, site.listings["banned"].uid
    for path in (
        "/escorts/atlantida",
        "/escorts/talca/no-es-seccion",
        "/escorts/trans/atlantida/vip",
        f"/escorts/talca/pendiente/{pending}",
        f"/escort/{banned}",
        "/escort/no-existe",
        "/no-existe",
        "/escorts/talca/a/b/c",
    ):
        response = _get(site, path)
        assert response.status_code == 404, path
        assert '<div id="spa-fallback"></div>' in response.text
        head = _Head(response.text)
        assert head.meta["robots"] == "noindex" and head.title.startswith("Página no encontrada")


def test_other_pages_and_endpoints_still_reach_reflex(site):
    for path in ("/ping", "/_health", "/site.js", "/favicon.ico", "/my", "/404", "/assets", "/_event/?EIO=4"):
        response = _get(site, path)
        assert (response.status_code, response.text) == (200, "reflex"), path
    # A POST to /_upload still reaches the upload handler (which refuses this one: no origin, no session).
    assert site.post("/_upload").json() == {"error": "Solicitud rechazada: no viene de este sitio."}


def test_login_and_information_pages_have_their_own_tags(site):
    """Canonical and OpenGraph with absolute URLs; no og:image, since neither page has a picture of its own."""
    for path, title in (("/login", "Ingresar | Escorts Chile"), ("/disclaimer/terminos", "Términos y condiciones")):
        response = _get(site, path)
        assert response.status_code == 200, path
        assert f'<div id="page">{path.strip("/")}.html</div>' in response.text  # the exported page itself
        head = _Head(response.text)
        assert head.title.startswith(title)
        assert head.links["canonical"] == head.meta["og:url"] == f"{SITE}{path}"
        assert head.meta["og:title"] == head.title and head.meta["og:type"] == "website"
        assert head.meta["description"] and "og:image" not in head.meta, path
        assert "favicon.ico" not in response.text


def test_every_url_of_the_pages_sitemap_answers_200_without_a_redirect(site):
    for url in _locs(_get(site, "/sitemaps/paginas.xml")):
        assert _get(site, url.removeprefix(SITE)).status_code == 200, url


def test_other_exported_pages_are_served_at_their_own_url(site):
    """Not a 307 to {path}/ (Starlette's static files, for the directory of the same name)."""
    assert _get(site, "/login/accion").text == "reflex /login/accion.html"


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/escorts/", "/escorts"),
        ("/escorts/talca/", "/escorts/talca"),
        ("/escorts/Talca/vip/?utm_source=x", "/escorts/talca/vip?utm_source=x"),
        ("/talca/", "/escorts/talca"),
        ("/escorts-ssg/", "/escorts-ssg"),
        ("/escorts-ssg/talca/", "/escorts-ssg/talca"),
        ("/login/", "/login"),
        ("/disclaimer/terminos/", "/disclaimer/terminos"),
        ("/admin/escorts/", "/admin/escorts"),
    ],
)
def test_a_trailing_slash_moves_to_the_url_without_it(site, path, location):
    response = _get(site, path)
    assert (response.status_code, response.headers["location"]) == (301, location)


def test_a_trailing_slash_on_a_url_that_names_nothing_is_404(site):
    for path in ("/no-existe/", "/escorts/atlantida/", "/escorts/talca/a/b/c/", "/otra/cosa/", "/disclaimer/"):
        response = _get(site, path)
        assert response.status_code == 404, path
        assert _Head(response.text).meta["robots"] == "noindex"


def test_reflex_404_page_becomes_the_site_404_document(site):
    response = _get(site, "/sin-pagina")
    assert response.status_code == 404 and response.headers["x-robots-tag"] == "noindex"
    assert '<div id="spa-fallback"></div>' in response.text
    assert _Head(response.text).title.startswith("Página no encontrada")


def test_reflex_endpoints_answer_a_get_with_a_plain_4xx(site):
    event = _get(site, "/_event")
    assert (event.status_code, event.headers["content-type"]) == (404, "text/plain; charset=utf-8")
    upload = _get(site, "/_upload")
    assert (upload.status_code, upload.headers["allow"]) == (405, "POST")


# --- The first screen of a city or detail page, in the document (app.web.preview) -------------


def _body(site, path, **kwargs) -> str:
    response = _get(site, path, **kwargs)
    assert response.status_code == 200
    return response.text.split("<body>", 1)[1]


def test_returning_visitor_gets_the_city_first_screen_before_the_app(site):
    listing = site.listings
    body = _body(site, "/escorts/talca", cookies=ADULT)
    assert body.startswith(
        '<div id="vista-previa" class="radix-themes" data-accent-color="pink" data-radius="medium" data-app-on-interaction>'
    )
    preview, app_part = body.split('<section aria-label="Notifications">', 1)
    assert "<h1>Escorts en Talca</h1>" in preview
    assert f'href="/escorts/talca/ana-talquina/{listing["ana"].uid}"' in preview
    assert '<h2 class="tier-heading tier-platino">Platino</h2>' in preview
    assert '<p class="muted">1 aviso</p>' in preview
    for hidden in ("Bea", "Pendiente", "Vetada"):
        assert hidden not in preview, hidden
    assert app_part.count('data-is-root-theme="true"') == 1  # the app's own root follows, untouched
    tab = _body(site, "/escorts/talca/verificadas", cookies=ADULT)
    assert "<h1>Escorts en Talca: Verificadas</h1>" in tab and "Ana Talquina" in tab
    assert 'class="tab tab-active" aria-current="page">Verificadas</a>' in tab
    trans = _body(site, "/escorts/trans/talca", cookies=ADULT)
    assert "<h1>Escorts trans en Talca</h1>" in trans and "Bea" in trans and "Ana Talquina" not in trans


def test_first_visit_gets_the_18_notice_and_no_listing(site):
    detail = f"/escorts/talca/ana-talquina/{site.listings['ana'].uid}"
    for path in ("/escorts", "/escorts/talca", "/escorts/talca/verificadas", detail):
        body = _body(site, path)
        preview = body.split('<section aria-label="Notifications">', 1)[0]
        assert '<section class="age-gate" role="dialog"' in preview, path
        form = (
            '<form method="post" action="/escorts-ssg/confirmar-edad" class="age-actions">'
            f'<input type="hidden" name="next" value="{path}">'
        )
        assert form in preview, path
        # Only the structured data names the listing, for search engines, as its title does.
        shown = re.sub(r'<script type="application/ld\+json">.*?</script>', "", body, flags=re.S)
        assert "Ana Talquina" not in shown and "card" not in preview, path
    assert "<h1>Escorts en Talca: Verificadas</h1>" in _body(site, "/escorts/talca/verificadas")
    assert "age-gate" in _body(site, "/escorts/talca", cookies={AGE_COOKIE: "0"})


def test_the_notice_form_brings_the_visitor_back_with_listings(site):
    response = site.post("/escorts-ssg/confirmar-edad", data={"next": "/escorts/talca"}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/escorts/talca"
    assert f"{AGE_COOKIE}=1" in response.headers["set-cookie"]
    body = _body(site, "/escorts/talca", cookies=ADULT)
    assert "Ana Talquina" in body and "age-gate" not in body
    tampered = site.post("/escorts-ssg/confirmar-edad", data={"next": "//evil.example"}, follow_redirects=False)
    assert tampered.headers["location"] == "/escorts-ssg"


def test_returning_visitor_gets_the_home_with_featured_cards(site):
    body = _body(site, "/escorts", cookies=ADULT)
    preview = body.split('<div id="home-page">home</div>', 1)[0]
    assert preview.startswith('<div id="vista-previa"') and "<h1>Escorts en Chile</h1>" in preview
    assert '<a href="/escorts/talca">Talca</a>' in preview and "age-gate" not in preview
    assert "<h1>Escorts trans en Chile</h1>" in _body(site, "/escorts/trans", cookies=ADULT)


def test_returning_visitor_gets_the_detail_first_screen(site):
    ana = site.listings["ana"]
    body = _body(site, f"/escorts/talca/ana-talquina/{ana.uid}", cookies=ADULT)
    preview = body.split('<section aria-label="Notifications">', 1)[0]
    assert "age-gate" not in preview and '<article class="detail">' in preview and "<h1>Ana Talquina</h1>" in preview
    assert "Hola, soy Ana Talquina." in preview
    assert 'loading="eager"' in preview and 'fetchpriority="high"' in preview
    # The document counts its view and its contact presses itself (assets/site.js, POST /contar).
    assert preview.startswith('<div id="vista-previa"') and 'data-count-url="/contar" data-count="view">' in preview
    assert 'class="btn btn-whatsapp" data-count="whatsapp">WhatsApp</a>' in preview


def _change(site, listing: Listing, **changes) -> None:
    with Session(site.engine) as session:
        stored = session.get(Listing, listing.uid)
        for name, value in changes.items():
            setattr(stored, name, value)
        session.add(stored)
        session.commit()


def test_city_preview_follows_publishing_and_escapes_names(site):
    ana = site.listings["ana"]
    assert "Ana Talquina" in _body(site, "/escorts/talca", cookies=ADULT)
    _change(site, ana, display_name="Ana <b>Talquina</b>")
    body = _body(site, "/escorts/talca", cookies=ADULT)
    assert "Ana &lt;b&gt;Talquina&lt;/b&gt;" in body and "<b>Talquina" not in body
    _change(site, ana, status="pausada")
    body = _body(site, "/escorts/talca", cookies=ADULT)
    assert "Talquina" not in body and "No hay avisos que coincidan con este filtro." in body


def test_a_document_is_rendered_once_for_everyone_who_asks_alike_until_its_listings_change(site, monkeypatch):
    """The whole answer (first screen, head, gzip) comes from the page cache for the same address, 18+ notice and
    encoding; a change to what it shows renders it again."""
    rendered = []
    first_screen = seo_api._first_screen
    monkeypatch.setattr(seo_api, "_first_screen", lambda *args: rendered.append(args[1]) or first_screen(*args))
    first = _get(site, "/escorts/talca", cookies=ADULT)
    again = _get(site, "/escorts/talca", cookies=ADULT)
    assert rendered == ["/escorts/talca"] and again.content == first.content and "Ana Talquina" in again.text
    assert again.headers["content-encoding"] == "gzip" and again.headers["vary"] == "Accept-Encoding"
    _get(site, "/escorts/talca")  # a first visit: the 18+ notice, another document
    _get(site, "/escorts/talca", cookies=ADULT, headers={"Accept-Encoding": "identity"})
    assert len(rendered) == 3
    _change(site, site.listings["ana"], display_name="Ana Curicana")
    assert "Ana Curicana" in _body(site, "/escorts/talca", cookies=ADULT) and len(rendered) == 4
    assert _get(site, "/escorts/Talca").headers["location"] == "/escorts/talca"  # redirects are kept as well


# --- The documents of the guarded pages (app.web.private_api) -----------------------------------------


def test_a_guarded_page_without_a_session_is_its_frame_and_never_indexed(site):
    response = _get(site, ADVERTISER_NEW_LISTING)
    assert response.status_code == 200
    assert response.headers["x-robots-tag"] == "noindex"
    assert response.headers["cache-control"] == "private, no-store"
    head = _Head(response.text)
    assert head.meta["robots"] == "noindex" and head.title == "Nueva publicación | Escorts Chile"
    assert head.meta["description"] and "og:image" not in head.meta
    body = response.text.split("<body>", 1)[1]
    preview = body.split('<div data-is-root-theme="true"', 1)[0]
    assert 'id="vista-previa"' in preview and "Comprobando tu acceso…" in preview and "Ingresar" in preview


def test_a_guarded_page_with_a_session_is_indexable_frame_without_sign_in_link(site):
    with Session(site.engine) as session:
        token = open_session(session, make_owner(session, "anunciante@example.cl").uid)
    response = _get(site, ADVERTISER_NEW_LISTING, cookies={SESSION_COOKIE: token})
    assert response.status_code == 200
    assert "x-robots-tag" not in response.headers
    assert response.headers["cache-control"] == "private, no-store"
    head = _Head(response.text)
    assert "robots" not in head.meta and head.title == "Nueva publicación | Escorts Chile"
    preview = response.text.split("<body>", 1)[1].split('<div data-is-root-theme="true"', 1)[0]
    assert "Comprobando tu acceso…" in preview and "Ingresar" not in preview
    # Nothing of the caller: the app's own guard decides what shows.
    assert "anunciante@example.cl" not in response.text


def _first_screen(site, path: str, token: str = "") -> str:
    """The first screen a guarded page's document brings, before the app's prerendered root."""
    response = _get(site, path, cookies={SESSION_COOKIE: token} if token else {})
    assert response.status_code == 200
    return response.text.split("<body>", 1)[1].split('<div data-is-root-theme="true"', 1)[0]


def test_a_guarded_page_shows_its_static_top_first_only_to_a_caller_it_admits(site):
    """The wizard's intro and the staff table's title and intro come with the document (so the largest
    paint is the first), but only to the profile the page is for: no one else sees a page that is not theirs."""
    with Session(site.engine) as session:
        advertiser = open_session(session, make_owner(session, "anunciante@example.cl").uid)
        admin = open_session(session, make_staff(session, "admin@example.cl", ProfileId.ADMINISTRADOR.value).uid)
    wizard = _first_screen(site, ADVERTISER_NEW_LISTING, advertiser)
    # The title depends on the draft ("Nueva" or "Editar"): its place is kept, its words come with the app.
    assert WIZARD_INTRO in wizard and 'class="heading-slot"' in wizard and "<h1>" not in wizard
    assert "anunciante@example.cl" not in wizard
    listings = _first_screen(site, ADMIN_LISTINGS, admin)
    assert f"<h1>{LISTINGS_SPEC.title}</h1>" in listings and LISTINGS_SPEC.intro in listings
    assert 'href="/admin/publicacion" class="staff-nav-link" aria-current="page"' in listings
    for path, token in ((ADVERTISER_NEW_LISTING, admin), (ADMIN_LISTINGS, advertiser), (ADMIN_LISTINGS, "")):
        frame = _first_screen(site, path, token)
        assert "Comprobando tu acceso…" in frame
        assert WIZARD_INTRO not in frame and LISTINGS_SPEC.intro not in frame and "<h1>" not in frame
