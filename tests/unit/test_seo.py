"""Head tags, robots.txt, sitemaps and the status of every public URL shape, as pure functions."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.core.geo import city_communes
from app.models.listing_filters import ListingFilters
from app.route_table import PAGE_ROUTES
from app.routes import PUBLIC_ROUTES, PublicView
from app.seo import (
    NO_SCRIPT_PHOTOS,
    SITE_SCRIPT_LOADER,
    HeadTags,
    breadcrumb_json_ld,
    city_tags,
    detail_tags,
    first_screen_css,
    page_tags,
    render_head,
    render_structured_data,
    resolve_document,
    robots_txt,
    shorten,
    sitemap_index_xml,
    split_shell,
    urlset_xml,
)
from app.web.seo_api import RESERVED_SEGMENTS, _OldCitySegment
from tests.factories import VIEW_UID, detail_view

SITE = "https://ejemplo.cl"
UID = VIEW_UID


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/", "/escorts"),
        ("/santiago", "/escorts/santiago-de-chile"),
        ("/temuco", "/escorts/temuco"),
        ("/escorts/santiago", "/escorts/santiago-de-chile"),
        ("/escorts/santiago/vip", "/escorts/santiago-de-chile/vip"),
        ("/escorts/temuco/todas", "/escorts/temuco"),
        ("/escorts/santiago/todas", "/escorts/santiago-de-chile"),
        ("/escorts/trans/santiago/vip", "/escorts/trans/santiago-de-chile/vip"),
    ],
)
def test_canonical_rewrites_stay_redirects(path, location):
    assert resolve_document(path) == resolve_document(path).__class__(301, location=location)


@pytest.mark.parametrize(
    "path",
    [
        "/no-existe",
        "/login-viejo/otra/cosa",
        "/escorts/atlantida",
        "/escorts/atlantida/vip",
        "/escorts/temuco/no-es-seccion",
        "/escorts/santiago/no-es-seccion",
        "/escorts/temuco/a/b/c",
        "/escorts/trans/atlantida",
        "/escorts/trans/temuco/sincodigo",
        "/escorts/inicio/generated",
        f"/escort/{UID}/de-mas",
    ],
)
def test_urls_that_name_nothing_are_not_found(path):
    assert resolve_document(path).status == 404


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/escorts", "home"),
        ("/escorts/trans", "home"),
        ("/escorts/temuco", "city"),
        ("/escorts/temuco/verificadas", "city"),
        ("/escorts/temuco/all", "all"),
        (f"/escorts/temuco/valentina/{UID}", "detail"),
        (f"/escort/{UID}", "detail"),
        (f"/escorts/trans/temuco/maria-{UID}", "detail"),
    ],
)
def test_pages_are_served(path, kind):
    outcome = resolve_document(path)
    assert (outcome.status, outcome.view.kind) == (200, kind)


def test_city_tab_title_names_city_and_tab_with_breadcrumbs():
    view = PublicView(kind="city", city_slug="talca", tab_slug="verificadas")
    tags = city_tags(view=view, site_url=SITE, site_name="Escorts Chile")
    assert tags.title == "Escorts en Talca: Verificadas | Escorts Chile"
    assert tags.canonical == f"{SITE}/escorts/talca/verificadas"
    assert [name for name, _ in tags.breadcrumbs] == ["Escorts en Chile", "Escorts en Talca", "Verificadas"]
    trans = city_tags(view=PublicView(kind="city", section="trans", city_slug="talca"), site_url=SITE, site_name="X")
    assert (trans.title, trans.canonical) == ("Escorts trans en Talca | X", f"{SITE}/escorts/trans/talca")


def test_detail_tags_name_the_listing_and_show_the_cover():
    tags = detail_tags(detail=detail_view(), site_url=SITE, site_name="Escorts Chile")
    assert tags.title == "Valentina, 25 años, escort en Temuco | Escorts Chile"
    assert tags.image == f"{SITE}/media/ab/cover-800.webp"
    assert tags.canonical == f"{SITE}/escorts/temuco/valentina/{UID}"
    assert tags.description.startswith("Valentina, 25 años, escort en Centro, Temuco. $80.000 la hora. Hola")
    assert len(tags.description) <= 160 and tags.description.endswith("…")
    assert tags.breadcrumbs[-1] == ("Valentina", tags.canonical)
    assert detail_tags(detail=detail_view(photos=[]), site_url=SITE, site_name="X").image == ""


def test_user_text_is_escaped_in_tags_and_json_ld():
    hostile = 'Ana "</title><script>alert(1)</script>'
    tags = detail_tags(detail=detail_view(display_name=hostile, description="<b>&</b>"), site_url=SITE, site_name="X")
    head = render_head(tags, site_name="X")
    assert "<script>alert" not in head and "</title><script>" not in head
    assert "&lt;/title&gt;&lt;script&gt;" in head and "&#34;" in head
    ld = re.fullmatch(r'<script type="application/ld\+json">(.*?)</script>', render_structured_data(tags), re.S).group(
        1
    )
    assert "</" not in ld
    assert json.loads(ld)["itemListElement"][-1]["name"] == hostile


def test_breadcrumb_json_ld_parses():
    data = json.loads(breadcrumb_json_ld([("A & B", f"{SITE}/a"), ("C", f"{SITE}/c")]))
    assert data["@type"] == "BreadcrumbList"
    assert [(i["position"], i["name"], i["item"]) for i in data["itemListElement"]] == [
        (1, "A & B", f"{SITE}/a"),
        (2, "C", f"{SITE}/c"),
    ]


def test_render_head_has_canonical_og_and_noindex_only_when_asked():
    head = render_head(HeadTags(title="T", description="D", canonical=f"{SITE}/x"), site_name="S")
    for tag in (
        "<title data-served>T</title>",
        '<meta name="description" content="D">',
        f'<link rel="canonical" href="{SITE}/x">',
        '<meta property="og:title" content="T">',
        f'<meta property="og:url" content="{SITE}/x">',
        '<meta property="og:type" content="website">',
    ):
        assert tag in head
    assert "noindex" not in head and "og:image" not in head
    assert render_structured_data(HeadTags(title="T", description="D")) == ""
    assert 'content="noindex"' in render_head(HeadTags(title="T", description="D", noindex=True), site_name="S")


def test_split_shell_replaces_reflex_title_description_and_og_image():
    exported = (
        '<!DOCTYPE html><html lang="es-CL"><head><meta charSet="utf-8"/><meta content="width=device-width" '
        'name="viewport"/><title>Escorts Chile</title><meta content="Directorio" name="description"/>'
        '<meta content="favicon.ico" property="og:image"/><link rel="modulepreload" href="/a.js"/></head>'
        "<body><div>app</div></body></html>"
    )
    document = split_shell(exported).with_head("<title>Mine</title>")
    assert document.startswith('<!DOCTYPE html><html lang="es-CL"><head><meta charSet="utf-8"/><title>Mine</title>')
    assert document.count("<title>") == 1 and "Directorio" not in document and "favicon.ico" not in document
    assert document.endswith('<link rel="modulepreload" href="/a.js"/></head><body><div>app</div></body></html>')


def test_split_shell_puts_a_preview_first_in_the_body_with_the_app_theme():
    exported = (
        '<!DOCTYPE html><html><head><meta charSet="utf-8"/></head><body><section aria-label="Avisos"></section>'
        '<div data-is-root-theme="true" data-accent-color="pink" data-radius="medium" class="radix-themes css-0">'
        "</div><script>app()</script></body></html>"
    )
    shell = split_shell(exported)
    assert shell.theme_attributes == ' data-accent-color="pink" data-radius="medium"'
    document = shell.with_head("<title>T</title>", '<div id="vista-previa">P</div>')
    assert '</head><body><div id="vista-previa">P</div><section aria-label="Avisos">' in document
    assert shell.with_head("<title>T</title>") == shell.with_head("<title>T</title>", "")
    assert "vista-previa" not in shell.with_head("<title>T</title>")
    bare = split_shell("<html><head></head><p>sin body</p></html>")
    assert bare.with_head("", "<div>P</div>") == "<html><head></head><p>sin body</p></html>"


def test_split_shell_inlines_the_site_css_and_lets_nothing_else_hold_up_the_first_paint():
    build_css = "/assets/__reflex_global_styles-X.css"
    exported = (
        f'<html><head><meta charSet="utf-8"/><link as="style" href="{build_css}" rel="preload"/>'
        '<link rel="modulepreload" href="/assets/root-A.js"/>'
        f'<link href="{build_css}" rel="stylesheet" type="text/css"/><script defer="" src="/site.js"></script></head>'
        '<body><script type="module" async="">import "/assets/root-A.js";</script></body></html>'
    )
    document = split_shell(exported, ".card { color: red; }").with_head("")
    # assets/site.js comes once the first screen is painted: its element emptied (React hydrates it), its loader
    # after it, no request of its own.
    assert f"<script></script><script>{SITE_SCRIPT_LOADER}</script>" in document
    assert '<script defer="" src="/site.js">' not in document
    # The app's module comes as text, byte for byte (its hash is in the CSP), with the build's stylesheet's
    # address: assets/site.js fetches that stylesheet and starts the module.
    assert (
        f'<script type="text/plain" data-app-module data-stylesheet="{build_css}">import "/assets/root-A.js";</script>'
    ) in document
    assert 'type="module"' not in document
    assert 'rel="preload"' not in document and "modulepreload" not in document
    # The preview's photos but its first wait for site.js; without scripts they show at once.
    assert f"<style>.card {{ color: red; }}</style>{NO_SCRIPT_PHOTOS}<script>" in document
    assert 'rel="stylesheet"' not in document
    assert "</style><script>" not in split_shell(exported, "a{}</style><script>").with_head("")
    assert split_shell(exported).with_head("") == exported  # no site CSS found: left as Reflex wrote it


def test_shorten_cuts_at_a_word():
    assert shorten("uno  dos\ntres") == "uno dos tres"
    assert shorten("palabra " * 40, 20) == "palabra palabra…"


def test_robots_closes_sign_in_leaves_private_areas_to_their_noindex_and_names_the_sitemap():
    text = robots_txt(site_url=SITE)
    lines = text.splitlines()
    for line in ("User-agent: *", "Disallow: /login", "Disallow: /sesion", "Disallow: /privado"):
        assert line in lines
    # A crawler must be let in to read the guarded pages' "noindex" (app.web.private_api).
    for line in ("Disallow: /admin", "Disallow: /bbitamia", "Disallow: /my"):
        assert line not in lines
    disallowed = [line.split(": ", 1)[1] for line in lines if line.startswith("Disallow:")]
    for public in ("/media/ab/cover-800.webp", "/escorts", "/escorts/temuco", "/escort/x", "/disclaimer/terminos"):
        assert not any(public.startswith(prefix) for prefix in disallowed), public
    assert text.splitlines()[-1] == f"Sitemap: {SITE}/sitemap.xml"


def test_sitemaps_escape_and_date_their_urls():
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    index = sitemap_index_xml([(f"{SITE}/sitemaps/a.xml", moment), (f"{SITE}/b?x=1&y=2", None)])
    assert "<sitemap><loc>https://ejemplo.cl/sitemaps/a.xml</loc><lastmod>2026-01-02T03:04:05+00:00</lastmod>" in index
    assert "<loc>https://ejemplo.cl/b?x=1&amp;y=2</loc></sitemap>" in index
    assert urlset_xml([]).rstrip().endswith('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>')


def test_old_city_route_never_takes_another_page_or_endpoint():
    regex = re.compile(f"^{_OldCitySegment.regex}$")
    for route in PAGE_ROUTES:
        first = route.path.strip("/").split("/")[0]
        if route.path in PUBLIC_ROUTES or not first:
            continue
        assert not regex.match(first), route.path
        assert first in RESERVED_SEGMENTS
    for name in ("ping", "_event", "_upload", "_health", "healthz", "media", "site.js", "robots.txt", "404"):
        assert not regex.match(name), name
    assert regex.match("temuco") and regex.match("no-existe")


def test_page_tags_give_login_and_information_pages_absolute_canonical_and_og():
    tags = page_tags(
        title="Ingresar", description="Entra.", path="/login", site_url="https://e.cl", site_name="Escorts Chile"
    )
    head = render_head(tags, site_name="Escorts Chile")
    assert '<link rel="canonical" href="https://e.cl/login">' in head
    assert '<meta property="og:url" content="https://e.cl/login">' in head
    assert '<meta property="og:title" content="Ingresar | Escorts Chile">' in head
    assert '<meta property="og:type" content="website">' in head
    assert "og:image" not in head


def test_a_commune_page_is_indexable_and_other_filtered_variants_are_not():
    providencia = next(c for c in city_communes("santiago-de-chile") if c.id == "providencia")
    view = resolve_document("/escorts/santiago-de-chile").view
    site = "https://example.cl"
    commune = city_tags(view=view, site_url=site, site_name="X", filters=ListingFilters(commune=providencia))
    assert not commune.noindex
    assert commune.canonical == f"{site}/escorts/santiago-de-chile?comuna=providencia"
    assert commune.title == "Escorts en Providencia, Santiago de Chile | X"
    assert commune.breadcrumbs[-1] == ("Providencia", commune.canonical)
    priced = city_tags(
        view=view, site_url=site, site_name="X", filters=ListingFilters(commune=providencia, price_max=80000)
    )
    assert priced.noindex
    assert priced.canonical == f"{site}/escorts/santiago-de-chile?comuna=providencia&precio_max=80000"
    on_a_tab = city_tags(
        view=resolve_document("/escorts/santiago-de-chile/vip").view,
        site_url=site,
        site_name="X",
        filters=ListingFilters(commune=providencia),
    )
    assert on_a_tab.noindex
    assert not city_tags(view=view, site_url=site, site_name="X").noindex
    head = render_head(priced, site_name="X")
    assert '<meta name="robots" content="noindex">' in head


def test_a_public_first_screen_inlines_the_site_css_without_comments_and_the_app_only_styles():
    css = (
        "/* Site styles. */\n.grid { display: grid; }\n"
        "/* >>> app only: the app's own pages */\n.staff-table { color: red; }\n/* <<< app only */\n"
        ".card { color: blue; } /* the card */\n"
    )
    assert first_screen_css(css, public=True) == "\n.grid { display: grid; }\n\n.card { color: blue; } \n"
    guarded = first_screen_css(css, public=False)  # a guarded page's first screen may show any of them
    assert ".staff-table { color: red; }" in guarded and "/*" not in guarded


ROOT = Path(__file__).resolve().parents[2]
PUBLIC_PREVIEWS = ("preview/city.html", "preview/home.html", "preview/detail.html", "preview/notice.html")


def test_every_class_a_public_preview_shows_keeps_its_styles_in_the_inlined_css():
    """A rule for the public first screen's markup never sits in a region of assets/styles.css marked app only."""
    templates = ROOT / "app" / "web" / "templates"
    markup = "".join((templates / name).read_text() for name in (*PUBLIC_PREVIEWS, "preview/frame.html", "cards.html"))
    shown = {name for value in re.findall(r'class="([^"{]*)"', markup) for name in value.split()}
    site_css = (ROOT / "assets" / "styles.css").read_text()
    styled = set(re.findall(r"\.([A-Za-z][\w-]*)", first_screen_css(site_css, public=False)))
    inlined = set(re.findall(r"\.([A-Za-z][\w-]*)", first_screen_css(site_css, public=True)))
    assert {"grid", "card", "tab", "btn", "age-gate"} <= shown & inlined
    assert sorted((shown & styled) - inlined) == []
    assert site_css.count("/* >>> app only") == site_css.count("/* <<< app only */") >= 1
