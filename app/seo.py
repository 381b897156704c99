"""What search engines and link previews read: head tags, robots.txt and sitemaps, as pure functions.

- :func:`resolve_document` decides, from the path alone, whether a public URL
  is a page (200), a canonical redirect (301) or does not exist (404). It
  keeps every redirect rule of :func:`app.routes.resolve_public_path`, but
  only the rules that rewrite a URL into its canonical spelling (an old city
  slug, ``/todas``, the old ``/{city}`` URL, ``/``) stay redirects; the rules
  that send a URL that does not exist somewhere else (an unknown city, tab or
  path) become a 404 for crawlers. The app's page still runs its own
  client-side redirect for a person who lands there.
- :class:`HeadTags` and :func:`render_head`: title, description, canonical,
  OpenGraph and JSON-LD breadcrumbs, every value escaped with MarkupSafe; the
  public pages, /login and the information pages each get theirs.
- :func:`robots_txt`, :func:`sitemap_index_xml`, :func:`urlset_xml`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from xml.sax.saxutils import escape as xml_escape

from markupsafe import Markup

from app.core.geo import city_by_slug, place_name
from app.models import ListingDetail, Section
from app.models.filter_tabs import FILTER_TABS, TABS_BY_SLUG
from app.models.listing_filters import COMMUNE_PARAM, NO_FILTERS, ListingFilters
from app.routes import (
    AGE_FORM_PATH,
    FAVOURITES,
    LOGIN,
    PUBLIC_HOME,
    TRANS_HOME,
    PublicView,
    city_path,
    resolve_public_path,
    section_home,
)

DESCRIPTION_MAX = 160
MAX_CANONICAL_HOPS = 4
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_PREFIX = "/sitemaps"
# Paths no crawler has anything to do with: sign-in, and POST-only endpoints. The guarded areas are
# not here: their documents say "noindex" to anyone without a session (app.web.private_api), which a
# crawler can only read if robots.txt lets it in, and this file would only advertise them.
ROBOTS_DISALLOW: tuple[str, ...] = (
    LOGIN,
    FAVOURITES,  # drawn from the visitor's own device: nothing there for a search engine
    "/sesion",
    "/privado",
    "/_upload",
    "/_event",
    AGE_FORM_PATH,
)


# --- Which public URLs exist -------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentOutcome:
    """The HTTP answer for a public path: 200 with ``view``, 301 to ``location``, or 404."""

    status: int
    view: PublicView | None = None
    location: str = ""


def _segments(path: str) -> list[str]:
    return [part for part in path.split("?", 1)[0].split("/") if part]


def _is_canonical_rewrite(source: str, target: str) -> bool:
    """True when the redirect ``source`` → ``target`` only respells the same page.

    Such rules keep every segment (a city written the old way), drop a
    trailing ``todas``, or move the old ``/{city}`` (and ``/``) under
    /escorts. A rule that drops anything else falls back to a home or a city
    because the URL names nothing: that URL does not exist.
    """
    src, dst = _segments(source), _segments(target)
    if target in (PUBLIC_HOME, TRANS_HOME):
        return not src
    if len(src) == 1 and src[0] != "escorts":
        return True  # the old /{city} URL of a real city
    if src and src[-1] == "todas" and len(dst) == len(src) - 1:
        return True
    return len(dst) == len(src)


def resolve_document(path: str) -> DocumentOutcome:
    """The status of a public path before any database lookup (a detail still needs its listing checked)."""
    location = ""
    current = path
    for _ in range(MAX_CANONICAL_HOPS):
        view = resolve_public_path(current)
        if view.kind != "redirect":
            return DocumentOutcome(301, location=location) if location else DocumentOutcome(200, view=view)
        if not _is_canonical_rewrite(current, view.redirect_to):
            return DocumentOutcome(404)
        current = location = view.redirect_to
    return DocumentOutcome(404)


# --- Head tags -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeadTags:
    """Everything a page's <head> says about it; URLs are absolute."""

    title: str
    description: str
    canonical: str = ""
    og_type: str = "website"
    image: str = ""
    image_alt: str = ""
    breadcrumbs: Sequence[tuple[str, str]] = field(default_factory=tuple)
    noindex: bool = False


def _section_words(section: str) -> str:
    return "Escorts trans" if section == Section.TRANS else "Escorts"


def place_heading(section: str, place: str) -> str:
    """The heading (and title) of a section's listings in ``place``: "Escorts en Talca", "Escorts trans en Talca"."""
    return f"{_section_words(section)} en {place}"


def home_heading(section: str) -> str:
    """The heading (and title) of a section's home: "Escorts en Chile", "Escorts trans en Chile"."""
    return place_heading(section, "Chile")


def shorten(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with "…")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return cut + "…"


def home_tags(*, section: str, site_url: str, site_name: str) -> HeadTags:
    """The home of a section (/escorts, /escorts/trans)."""
    name = home_heading(section)
    words = "escorts trans" if section == Section.TRANS else "escorts"
    return HeadTags(
        title=f"{name} | {site_name}",
        description=f"Avisos de {words} en las principales ciudades de Chile, revisados antes de publicarse.",
        canonical=site_url + section_home(section),
    )


def city_tags(*, view: PublicView, site_url: str, site_name: str, filters: ListingFilters = NO_FILTERS) -> HeadTags:
    """A city page, one of its filter tabs, or its /all page: "Escorts en Talca: Verificadas".

    With ``filters``: a city page filtered by its commune alone is the commune's own page, indexable
    ("Escorts en Providencia, Santiago", canonical with ``?comuna=``); any other filtered variant says
    ``noindex``, its canonical the same URL with the valid filters only, in their fixed order.
    """
    city = city_by_slug(view.city_slug)
    city_name = city.name if city else view.city_slug
    base = place_heading(view.section, city_name)
    city_url = site_url + city_path(view.section, view.city_slug)
    crumbs = [(home_heading(view.section), site_url + section_home(view.section)), (base, city_url)]
    words = "escorts trans" if view.section == Section.TRANS else "escorts"
    if filters.active:
        return _filtered_city_tags(
            view=view,
            filters=filters,
            city_name=city_name,
            crumbs=crumbs,
            words=words,
            site_url=site_url,
            site_name=site_name,
        )
    if view.kind == "all":
        heading = f"{base}: todos los avisos"
        canonical = f"{city_url}/all"
        description = f"Todos los avisos de {words} en {city_name}, del más nuevo al más antiguo."
        crumbs.append(("Todos los avisos", canonical))
    elif view.tab_slug != "todas" and view.tab_slug in TABS_BY_SLUG:
        label = TABS_BY_SLUG[view.tab_slug].label
        heading = f"{base}: {label}"
        canonical = site_url + city_path(view.section, view.city_slug, view.tab_slug)
        description = f"{label}: avisos de {words} en {city_name} con fotos, tarifas y contacto."
        crumbs.append((label, canonical))
    else:
        heading = base
        canonical = city_url
        description = f"Avisos de {words} en {city_name}: fotos, tarifas y contacto, revisados antes de publicarse."
    return HeadTags(
        title=f"{heading} | {site_name}", description=description, canonical=canonical, breadcrumbs=tuple(crumbs)
    )


def commune_page_path(city_page: str, commune_id: str) -> str:
    """A commune's own page: the city page (``city_page``) filtered by that commune alone."""
    return f"{city_page}?{COMMUNE_PARAM}={commune_id}"


def _filtered_city_tags(
    *,
    view: PublicView,
    filters: ListingFilters,
    city_name: str,
    crumbs: list[tuple[str, str]],
    words: str,
    site_url: str,
    site_name: str,
) -> HeadTags:
    unfiltered = city_tags(view=view, site_url=site_url, site_name=site_name)
    path = unfiltered.canonical.removeprefix(site_url)
    canonical = site_url + filters.url(path)
    commune = filters.commune
    if commune is None:
        return HeadTags(title=unfiltered.title, description=unfiltered.description, canonical=canonical, noindex=True)
    heading = place_heading(view.section, place_name(city_name, commune))
    indexable = filters.commune_only and view.kind == "city" and view.tab_slug == "todas"
    if not indexable:
        return HeadTags(
            title=f"{heading} | {site_name}", description=unfiltered.description, canonical=canonical, noindex=True
        )
    crumbs.append((commune.name, canonical))
    return HeadTags(
        title=f"{heading} | {site_name}",
        description=f"Avisos de {words} en {commune.name}: fotos, tarifas y contacto, revisados antes de publicarse.",
        canonical=canonical,
        breadcrumbs=tuple(crumbs),
    )


def detail_tags(*, detail: ListingDetail, site_url: str, site_name: str) -> HeadTags:
    """A listing's detail page: its name, age and city, and its cover photo for link previews."""
    kind = "escort trans" if detail.section == Section.TRANS else "escort"
    place = ", ".join(part for part in (detail.commune, detail.city_name) if part)
    summary = f"{detail.display_name}, {detail.age} años, {kind} en {place}. {detail.price} la hora."
    canonical = site_url + detail.url
    city_url = site_url + city_path(detail.section, detail.city_slug)
    return HeadTags(
        title=f"{detail.display_name}, {detail.age} años, {kind} en {detail.city_name} | {site_name}",
        description=shorten(f"{summary} {detail.description}"),
        canonical=canonical,
        og_type="profile",
        image=site_url + detail.photos[0] if detail.photos else "",
        image_alt=f"Foto de {detail.display_name}" if detail.photos else "",
        breadcrumbs=(
            (home_heading(detail.section), site_url + section_home(detail.section)),
            (place_heading(detail.section, detail.city_name), city_url),
            (detail.display_name, canonical),
        ),
    )


LOGIN_TITLE = "Ingresar"
LOGIN_DESCRIPTION = "Ingresa a tu cuenta para publicar y administrar tus avisos, o crea una cuenta nueva."


def page_tags(*, title: str, description: str, path: str, site_url: str, site_name: str) -> HeadTags:
    """A page of its own (/login, an information page under /disclaimer): title, canonical, OpenGraph."""
    return HeadTags(title=f"{title} | {site_name}", description=description, canonical=site_url + path)


def not_found_tags(*, site_name: str) -> HeadTags:
    """A URL that does not exist: never indexed."""
    return HeadTags(
        title=f"Página no encontrada | {site_name}",
        description="La página que buscas no existe o ya no está publicada.",
        noindex=True,
    )


def private_tags(*, title: str, site_name: str, signed_in: bool) -> HeadTags:
    """A page of a guarded area: "noindex" to anyone without a session (``signed_in`` False), which is
    every crawler; the app itself sends such a visitor away."""
    return HeadTags(title=title, description=f"Área privada de {site_name}, solo con tu cuenta.", noindex=not signed_in)


def breadcrumb_json_ld(items: Sequence[tuple[str, str]]) -> str:
    """A schema.org BreadcrumbList as JSON safe inside <script>: ``<``, ``>`` and ``&`` are escaped."""
    data = {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "name": name, "item": url} for i, (name, url) in enumerate(items, 1)
        ],
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # JSON allows these escapes anywhere in a string; "</script>" can then never close the element.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_head(tags: HeadTags, *, site_name: str) -> str:
    """The <head> elements for ``tags``; every value is escaped."""
    parts = [
        # data-served: the app's own title replaces this one once it runs (assets/site.js).
        Markup("<title data-served>{}</title>").format(tags.title),
        Markup('<meta name="description" content="{}">').format(tags.description),
    ]
    if tags.noindex:
        parts.append(Markup('<meta name="robots" content="noindex">'))
    if tags.canonical:
        parts.append(Markup('<link rel="canonical" href="{}">').format(tags.canonical))
    og = [
        ("og:site_name", site_name),
        ("og:locale", "es_CL"),
        ("og:type", tags.og_type),
        ("og:title", tags.title),
        ("og:description", tags.description),
    ]
    if tags.canonical:
        og.append(("og:url", tags.canonical))
    if tags.image:
        og += [("og:image", tags.image), ("og:image:alt", tags.image_alt)]
    parts += [Markup('<meta property="{}" content="{}">').format(name, value) for name, value in og]
    card = "summary_large_image" if tags.image else "summary"
    parts.append(Markup('<meta name="twitter:card" content="{}">').format(card))
    return str(Markup("").join(parts))


def render_structured_data(tags: HeadTags) -> str:
    """The JSON-LD breadcrumbs of ``tags`` as a script element, or "" when it has none.

    It goes in the <body>: React hydrates the <head> too, and an inline script there that its
    tree does not render fails hydration (error #418); extra elements in the body it leaves alone.
    """
    if not tags.breadcrumbs:
        return ""
    # Already JSON-escaped for a script element; Markup keeps it as is.
    return str(
        Markup('<script type="application/ld+json">')
        + Markup(breadcrumb_json_ld(tags.breadcrumbs))
        + Markup("</script>")
    )


# --- The exported page, with this URL's tags -----------------------------------------------------

# What Reflex's export writes into every page's head and this module replaces.
_REFLEX_HEAD_TAGS = re.compile(
    r"<title>[^<]*</title>"
    r'|<meta content="[^"]*" name="description"\s*/?>'
    r'|<meta content="[^"]*" property="og:[a-z:_]+"\s*/?>'
    r'|<meta content="[^"]*" name="twitter:[a-z:_]+"\s*/?>',
)
_AFTER_CHARSET = re.compile(r"<meta charSet=\"utf-8\"\s*/?>", re.IGNORECASE)
_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)
# A preview's photos but its first wait for its first frame, which assets/site.js marks, and a card's photos after
# its cover for the visitor's first move (assets/styles.css): without scripts they show at once.
NO_SCRIPT_PHOTOS = (
    "<noscript><style>"
    '#vista-previa:not([data-painted]) img[loading="lazy"],'
    ":root:not([data-moved]) #vista-previa .strip-photo:not(:first-child){display:revert}"
    "</style></noscript>"
)
# The build's one stylesheet (Radix Themes and the app's styles, 714 KB, 85 KB gzip).
_BUILD_STYLESHEET = re.compile(r'<link href="(/assets/__reflex_global_styles-[^"]+\.css)" rel="stylesheet"[^>]*>')
# The app's module script as text, with that stylesheet's address: assets/site.js fetches the stylesheet when it
# starts the module, and applies it when the preview leaves.
_APP_MODULE_TEXT = Markup('<script type="text/plain" data-app-module data-stylesheet="{}">')
# Fetches assets/site.js once the document is parsed and its first screen painted (its first contentful paint, which
# the browser reports once that frame is shown; a frame and a timer where it reports none, a second at most): that
# screen's photo never shares a phone's bandwidth or main thread with it. On the visitor's first move before then,
# at once, and noted for site.js, which starts a public page's app on that move: data-moved on <html>, then a
# "visitor-moved" event (a pointermove without movement, the browser's own when the page lays out under a resting
# mouse, is none). Inline (its hash is in the CSP, app.web.middleware): a request of its own would be one
# more before the first screen.
SITE_SCRIPT_LOADER = (
    "(function(){"
    'var moves=["pointerdown","pointermove","touchstart","keydown","wheel","focusin"],root=document.documentElement,'
    "asked=false,loaded=false;"
    "function load(){"
    'if(document.readyState==="loading"){if(!asked){asked=true;document.addEventListener("DOMContentLoaded",load)}return}'
    "if(loaded)return;loaded=true;"
    'var script=document.createElement("script");script.src="/site.js";document.head.appendChild(script)}'
    "function moved(event){"
    'if(event.type==="pointermove"&&!event.movementX&&!event.movementY)return;'
    "moves.forEach(function(name){document.removeEventListener(name,moved,true)});"
    'window.removeEventListener("scroll",moved);'
    'root.setAttribute("data-moved","");document.dispatchEvent(new Event("visitor-moved"));load()}'
    "moves.forEach(function(name){document.addEventListener(name,moved,{capture:true,passive:true})});"
    'window.addEventListener("scroll",moved,{passive:true});'
    "setTimeout(load,1000);"
    "var types=window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes||[];"
    'if(types.indexOf("paint")<0){requestAnimationFrame(function(){setTimeout(load,0)});return}'
    'new PerformanceObserver(function(list){if(list.getEntriesByName("first-contentful-paint").length)load()})'
    '.observe({type:"paint",buffered:true})'
    "})()"
)
# The head's script of assets/site.js, which a document with a first screen empties and follows with
# SITE_SCRIPT_LOADER: React hydrates the head's <script> element from the empty one (it checks neither its address
# nor its text; one with the loader's text would not match its none) and leaves the loader, an element it does not
# render, alone.
_SITE_SCRIPT = re.compile(r'<script defer="" src="/site\.js"></script>')
_SITE_SCRIPT_LOADED = f"<script></script><script>{SITE_SCRIPT_LOADER}</script>"
# The head's hints to fetch that stylesheet and the app's modules (about 250 KB) at high priority, at once.
_APP_MODULE = re.compile(r'<script type="module"[^>]*>')
_PRELOADS = re.compile(r'<link (?:as="style" href="[^"]+" rel="preload"|rel="modulepreload" href="[^"]+")\s*/?>')


# The Radix Themes root React renders into; a preview copies its look (accent, gray, radius…).
_THEME_ROOT = re.compile(r'<div data-is-root-theme="true"([^>]*?)\s*class="radix-themes[^"]*"[^>]*>')


@dataclass(frozen=True)
class Shell:
    """An exported HTML document split where this URL's head tags and body preview go."""

    before: str
    after: str
    # Where in ``after`` the body's content starts: a preview goes first, so the parser reaches it
    # before the body's inline scripts; -1: no body to put one in.
    body_at: int = -1
    theme_attributes: str = ""  # the theme root's data attributes, for a preview (app.web.preview)

    def with_head(self, head: str, body_start: str = "") -> str:
        """The document with ``head`` in its head and ``body_start`` first in its body (both escaped markup)."""
        if not body_start or self.body_at < 0:
            return self.before + head + self.after
        return self.before + head + self.after[: self.body_at] + body_start + self.after[self.body_at :]


_APP_ONLY_CSS = re.compile(r"/\* >>> app only.*?/\* <<< app only \*/", re.DOTALL)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def first_screen_css(site_css: str, *, public: bool) -> str:
    """assets/styles.css as a document inlines it for its first screen: without comments and, on a ``public``
    page (home, city, detail), without the regions marked app only (forms, accounts, advertisers, staff),
    which its preview never shows: a phone downloads 3 KB of it before the first paint, not 8."""
    if public:
        site_css = _APP_ONLY_CSS.sub("", site_css)
    return _CSS_COMMENT.sub("", site_css)


def split_shell(document: str, site_css: str = "") -> Shell:
    """Strip the generic title, description and OpenGraph tags from an exported page and mark where ours go.

    With ``site_css`` (assets/styles.css, which styles the preview of app.web.preview on its own),
    the first paint waits for nothing but the document: that CSS goes inline, the build's stylesheet
    leaves the head (its address rides on the app's module script, and site.js fetches it, as
    ``media="print"``, when it starts the app), and the preload hints go, so the app's stylesheet and
    modules no longer compete with the document for a slow connection, and the browser does not parse
    that stylesheet before the first screen's photo is painted. The app's module script comes as text,
    which assets/site.js starts once the first frame is painted (under a public page's preview, for a
    visitor not signed in, on their first move): the first screen never waits for the app's scripts
    to download and run (a slow phone on a fast network would run them first). site.js itself comes
    once that screen is painted, or on the first move (``SITE_SCRIPT_LOADER``).
    site.js applies that stylesheet when the preview leaves, so the preview is never restyled while
    it shows, and the app never shows unstyled. The preview's photos but its first show once site.js
    has seen its first frame, at once without scripts (``NO_SCRIPT_PHOTOS``).
    """
    head_end = document.find("</head>")
    if head_end < 0:
        return Shell(document, "")
    head = _REFLEX_HEAD_TAGS.sub("", document[:head_end])
    rest = document[head_end:]
    stylesheet = _BUILD_STYLESHEET.search(head)
    if site_css and stylesheet:
        head = _PRELOADS.sub("", head)
        inline = Markup("<style>{}</style>{}").format(Markup(site_css.replace("</", "<\\/")), Markup(NO_SCRIPT_PHOTOS))
        head = _BUILD_STYLESHEET.sub(lambda _link: str(inline), head, count=1)
        rest = _APP_MODULE.sub(lambda _script: str(_APP_MODULE_TEXT.format(stylesheet.group(1))), rest, count=1)
        head = _SITE_SCRIPT.sub(lambda _script: _SITE_SCRIPT_LOADED, head, count=1)
    charset = _AFTER_CHARSET.search(head)
    if charset:
        cut = charset.end()
    else:
        opening = head.find("<head>")
        cut = opening + len("<head>") if opening >= 0 else len(head)
    after = head[cut:] + rest
    body = _BODY_OPEN.search(after)
    theme = _THEME_ROOT.search(rest)
    return Shell(
        head[:cut],
        after,
        body_at=body.end() if body else -1,
        theme_attributes=theme.group(1) if theme else "",
    )


FALLBACK_SHELL = Shell(
    '<!DOCTYPE html><html lang="es-CL"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "</head><body></body></html>",
    body_at=len("</head><body>"),
)
"""Used when no exported frontend is on disk (development: the pages come from the dev server)."""


# --- robots.txt and sitemaps ---------------------------------------------------------------------


def robots_txt(*, site_url: str) -> str:
    """robots.txt: the public site (photos of public listings included) open, private areas closed.

    /media stays open: it serves only approved photos of public listings to
    anyone (everything else is a 404), and image search leads people to them.
    """
    lines = ["User-agent: *", "Allow: /", *(f"Disallow: {path}" for path in ROBOTS_DISALLOW), ""]
    lines.append(f"Sitemap: {site_url}/sitemap.xml")
    return "\n".join(lines) + "\n"


SECTION_SITEMAP_SEGMENTS = {Section.MUJERES.value: "mujeres", Section.TRANS.value: "trans"}


def city_sitemap_path(section: str, city_slug: str, page: int = 1) -> str:
    """Where one city's sitemap of a section lives (page 2 onward only for very large cities)."""
    base = f"{SITEMAP_PREFIX}/{SECTION_SITEMAP_SEGMENTS[section]}/{city_slug}"
    return f"{base}.xml" if page == 1 else f"{base}/{page}.xml"


def w3c_datetime(moment: datetime | None) -> str:
    """A sitemap lastmod (UTC, seconds); naive datetimes are taken as UTC."""
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _lastmod(moment: datetime | None) -> str:
    stamp = w3c_datetime(moment)
    return f"<lastmod>{stamp}</lastmod>" if stamp else ""


def sitemap_index_xml(entries: Iterable[tuple[str, datetime | None]]) -> str:
    """A sitemap index of (absolute URL, lastmod)."""
    body = "".join(f"<sitemap><loc>{xml_escape(url)}</loc>{_lastmod(moment)}</sitemap>" for url, moment in entries)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">{body}</sitemapindex>\n'


def urlset_xml(entries: Iterable[tuple[str, datetime | None]]) -> str:
    """A sitemap of (absolute URL, lastmod)."""
    body = "".join(f"<url><loc>{xml_escape(url)}</loc>{_lastmod(moment)}</url>" for url, moment in entries)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">{body}</urlset>\n'


def city_page_urls(*, section: str, city_slug: str, site_url: str, communes: Sequence[str] = ()) -> list[str]:
    """The city page, each of its filter tabs and the page of each commune (ids) of ``communes``, absolute."""
    city = city_path(section, city_slug)
    return [site_url + city_path(section, city_slug, tab.slug) for tab in FILTER_TABS] + [
        site_url + commune_page_path(city, commune) for commune in communes
    ]
