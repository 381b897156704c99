"""The first screen of an interactive public page, as HTML inside the served document.

A home, city or detail page is a Reflex page: its cards arrive over the
websocket after the JavaScript has loaded, connected and hydrated, about 700 ms
after the document on these machines. So that nobody waits for that,
:mod:`app.seo_api` puts this preview in the document's body: the
same header, heading, tabs and first page of cards for a returning visitor
(18+ notice accepted), or the 18+ notice for a first visit, with the same
markup and classes as the components in app.components and app.pages.public,
so it looks the same and every link works without JavaScript (the notice is
a form posting to the same confirmation as the SSG pages). It comes first in
<body>, so the browser parses it before the body's inline scripts (which wait
for the stylesheet), and React's hydration skips it (an element React did not
render, in <body>); the app's own page stays hidden while it is there
(assets/styles.css) until
assets/site.js sees the app's listings or notice in place
(``READY_ATTRIBUTE``, ``.age-gate``) and removes the preview.

Every value is escaped (MarkupSafe); nothing here is secret or personal.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from app.components.age_gate import AGE_ACCEPT, AGE_LEAVE_URL, AGE_TEXT, AGE_TITLE
from app.components.cards import CARD_SIZES, PIPELINE_DEFAULT, PIPELINE_NARROW
from app.components.carousel import SLIDE_SIZES
from app.components.layout import ACCESS_CHECK, SITE_NAME
from app.core.geo import cities_by_region
from app.models import ListingCard, ListingDetail, Section
from app.routes import AGE_FORM_PATH, LOGIN, PUBLIC_HOME, REPORT_LISTING_PARAM, REPORT_PATH, TRANS_HOME
from app.services.directory_view import TabLink, TierGroup

PREVIEW_ID = "vista-previa"
ALL_TAB_LABEL = "Ver todas"
# The hidden h2 over the cards of /todas, whose names are h3 (no tier headings there).
ALL_HEADING = "Todos los avisos"


def _srcset(src: str) -> str:
    """As app.components.cards.photo_srcset: the 400 and 800 px files when the pipeline made both."""
    if src.endswith(PIPELINE_DEFAULT):
        return f"{src.replace(PIPELINE_DEFAULT, PIPELINE_NARROW)} 400w, {src} 800w"
    return ""


def _photo(src: str, alt: str, *, first: bool, css: str, sizes: str, width: int, height: int) -> Markup:
    srcset = _srcset(src)
    return Markup(
        '<img src="{src}"{srcset} alt="{alt}" loading="{loading}" decoding="async" '
        'class="{css}" width="{width}" height="{height}" fetchpriority="{priority}">'
    ).format(
        src=src,
        # HTML allows sizes only together with a srcset.
        srcset=Markup(' srcset="{}" sizes="{}"').format(srcset, sizes) if srcset else "",
        alt=alt,
        loading="eager" if first else "lazy",
        css=css,
        width=width,
        height=height,
        priority="high" if first else "auto",
    )


def _badges(card: ListingCard) -> Markup:
    names = [
        (card.tier_name, f"badge-tier badge-{card.tier_slug}"),
        *([("Verificada", "badge-verified")] if card.verified else []),
        *([("Video", "badge-video")] if card.has_video else []),
        *([("Estrella XXX", "badge-xxx")] if card.porn_actress else []),
        *([("Disponible ahora", "badge-now")] if card.available_now else []),
    ]
    spans = Markup("").join(Markup('<span class="badge {}">{}</span>').format(css, name) for name, css in names)
    return Markup('<div class="badges">{}</div>').format(spans)


def _card(card: ListingCard, *, lead: bool) -> Markup:
    """As app.components.cards.listing_card."""
    photos = Markup("").join(
        _photo(
            src,
            f"Foto de {card.display_name}",
            first=lead and index == 0,
            css="strip-photo",
            sizes=CARD_SIZES,
            width=300,
            height=400,
        )
        for index, src in enumerate(card.photos)
    )
    focus = Markup(' tabindex="0"') if len(card.photos) > 1 else ""
    return Markup(
        '<article class="card" data-testid="listing-card">'
        '<div class="strip" role="group" aria-label="Fotos de {name}"{focus} data-strip="">{photos}</div>'
        '<a href="{url}" class="card-body"><h3 class="card-name">{name}</h3>'
        '<p class="card-meta">{age} años · {commune}</p>{badges}'
        '<p class="card-price">{price}<span class="muted"> / hora</span></p></a></article>'
    ).format(
        photos=photos,
        focus=focus,
        url=card.url,
        name=card.display_name,
        age=card.age,
        commune=card.commune,
        badges=_badges(card),
        price=card.price,
    )


def _grid(cards: list[ListingCard], *, lead: bool) -> Markup:
    cells = Markup("").join(_card(card, lead=lead and index == 0) for index, card in enumerate(cards))
    return Markup('<div class="grid">{}</div>').format(cells)


def _section_home(section: str) -> str:
    return TRANS_HOME if section == Section.TRANS.value else PUBLIC_HOME


def age_notice(path: str) -> Markup:
    """As app.components.age_gate.age_notice, but a form: it works before (or without) JavaScript.

    The form posts to the same confirmation as the SSG pages (app.api.confirm_age),
    which sets the cookie and brings the visitor back to ``path``, now with listings.
    """
    return Markup(
        '<section class="age-gate" role="dialog" aria-labelledby="age-title" aria-modal="true"><div class="age-box">'
        '<h2 id="age-title">{title}</h2><p>{text}</p>'
        '<form method="post" action="{action}" class="age-actions"><input type="hidden" name="next" value="{path}">'
        '<button type="submit" class="btn btn-primary">{accept}</button>'
        '<a href="{leave}" class="btn btn-ghost" rel="noopener">Salir</a></form></div></section>'
    ).format(title=AGE_TITLE, text=AGE_TEXT, action=AGE_FORM_PATH, path=path, accept=AGE_ACCEPT, leave=AGE_LEAVE_URL)


def _frame(content: Markup, theme_attributes: str, *, signed_in: bool = False) -> str:
    """As app.components.layout.page_frame's header and main, inside the app's theme.

    ``signed_in``: the visitor has a session, so no "Ingresar" (their account menu comes with the app).
    """
    login = "" if signed_in else Markup('<a href="{}" class="nav-link">Ingresar</a>').format(LOGIN)
    header = Markup(
        '<header class="site-header"><nav class="nav" aria-label="Principal">'
        '<a href="{home}" class="brand">{site}</a><div class="nav-links">'
        '<a href="{home}" class="nav-link">Escorts</a><a href="{trans}" class="nav-link">Trans</a>'
        '<a href="{report}" class="nav-link nav-report">Denunciar</a>{login}</div></nav></header>'
    ).format(home=PUBLIC_HOME, site=SITE_NAME, trans=TRANS_HOME, report=REPORT_PATH, login=login)
    return str(
        # A div with the main role, not <main>: the document holds the app's prerendered page too, with its
        # own <main> (hidden while the preview shows), and HTML allows one visible <main>.
        Markup(
            '<div id="{id}" class="radix-themes"{theme}><div class="site">{header}<div class="site-main" role="main">'
        ).format(id=PREVIEW_ID, theme=Markup(theme_attributes), header=header)
        + content
        + Markup("</div></div></div>")
    )


@dataclass(frozen=True)
class CityListings:
    """The first page of a city: ``groups`` by tier on a tab, or ``cards`` on /todas (groups None)."""

    total: int
    cards: list[ListingCard]
    groups: list[TierGroup] | None


def city_preview(
    *,
    section: str,
    city_slug: str,
    heading: str,
    tabs: list[TabLink],
    path: str,
    listings: CityListings | None,
    theme_attributes: str = "",
) -> str:
    """A city page's first screen (app.pages.public._city); ``listings`` None: the 18+ notice in their place."""
    home = _section_home(section)
    tab_links = Markup("").join(
        Markup('<a href="{url}" class="{css}" aria-current="{current}">{label}</a>').format(
            url=tab.url,
            css="tab tab-active" if tab.active else "tab",
            current="page" if tab.active else "false",
            label=tab.label,
        )
        for tab in tabs
    )
    content = Markup(
        '<p class="crumbs"><a href="{home}">← Todas las ciudades</a></p><h1>{heading}</h1>'
        '<nav class="tabs" aria-label="Filtros">{tabs}<a href="{all}" class="tab tab-all">{all_label}</a></nav>'
        "{listings}"
    ).format(
        home=home,
        heading=heading,
        tabs=tab_links,
        all=f"{home}/{city_slug}/todas",
        all_label=ALL_TAB_LABEL,
        listings=age_notice(path) if listings is None else _city_listings(listings),
    )
    return _frame(content, theme_attributes)


def _city_listings(listings: CityListings) -> Markup:
    total = Markup('<p class="muted">{} avisos</p>').format(listings.total)
    if listings.total == 0:
        return total + Markup('<p class="empty">No hay avisos que coincidan con este filtro.</p>')
    if listings.groups is None:
        heading = Markup('<h2 class="visually-hidden">{}</h2>').format(ALL_HEADING)
        return total + heading + _grid(listings.cards, lead=True)
    return total + Markup("").join(
        Markup('<section class="tier-group"><h2 class="tier-heading tier-{slug}">{name}</h2>{grid}</section>').format(
            slug=group.slug, name=group.name, grid=_grid(group.cards, lead=index == 0)
        )
        for index, group in enumerate(listings.groups)
    )


def home_preview(
    *, section: str, heading: str, featured: list[ListingCard] | None, path: str, theme_attributes: str = ""
) -> str:
    """A section home's first screen (app.pages.public._home); ``featured`` None: the 18+ notice in their place."""
    home = _section_home(section)
    regions = Markup("").join(
        Markup(
            '<div class="region"><h2 class="region-name">{name}</h2><ul class="city-list">{cities}</ul></div>'
        ).format(
            name=region.name,
            cities=Markup("").join(
                Markup('<li><a href="{}/{}">{}</a></li>').format(home, city.slug, city.name) for city in cities
            ),
        )
        for region, cities in cities_by_region()
    )
    # A first visit: the 18+ notice before the long list of cities, and no featured cards.
    notice, shown = Markup(""), Markup("")
    if featured is None:
        notice = age_notice(path)
    elif featured:
        shown = Markup("<h2>Destacadas</h2>") + _grid(featured, lead=True)
    else:
        shown = Markup('<h2>Destacadas</h2><p class="empty">Aún no hay avisos destacados.</p>')
    content = Markup(
        '<h1>{heading}</h1>{notice}<p class="lead">Elige tu ciudad para ver los avisos publicados.</p>'
        '<nav class="regions" aria-label="Ciudades">{regions}</nav>{shown}'
    ).format(heading=heading, notice=notice, regions=regions, shown=shown)
    return _frame(content, theme_attributes)


def detail_preview(detail: ListingDetail, *, adult: bool, path: str, theme_attributes: str = "") -> str:
    """A detail page's first screen (app.pages.public._detail), contact buttons included; the notice unless ``adult``."""
    crumbs = Markup('<p class="crumbs"><a href="{}/{}">{}</a></p>').format(
        _section_home(detail.section), detail.city_slug, detail.city_name
    )
    return _frame(crumbs + (_detail_article(detail) if adult else age_notice(path)), theme_attributes)


def _detail_article(detail: ListingDetail) -> Markup:
    slides = Markup("").join(
        _photo(
            src,
            f"Foto {index + 1} de {detail.display_name}",
            first=index == 0,
            css="slide",
            sizes=SLIDE_SIZES,
            width=600,
            height=800,
        )
        for index, src in enumerate(detail.photos)
    )
    contact = Markup("")
    if detail.whatsapp_url:
        contact += Markup(
            '<a href="{}" target="_blank" rel="noopener noreferrer" class="btn btn-whatsapp">WhatsApp</a>'
        ).format(detail.whatsapp_url)
    if detail.tel_url:
        contact += Markup('<a href="{}" class="btn btn-primary">Llamar {}</a>').format(detail.tel_url, detail.phone)
    notices = Markup("")
    if detail.available_until:
        notices += Markup('<p class="notice-now">{}</p>').format(detail.available_until)
    if detail.visiting:
        notices += Markup('<p class="notice-visiting">{}</p>').format(detail.visiting)
    rates = Markup("").join(
        Markup('<tr><th scope="row">{}</th><td>{}</td></tr>').format(name, price) for name, price in detail.rates
    )
    services = Markup("")
    if detail.services:
        items = Markup("").join(Markup("<li>{}</li>").format(service) for service in detail.services)
        services = Markup('<h2>Servicios</h2><ul class="services">{}</ul>').format(items)
    verified = Markup('<p class="muted">Verificada el {}</p>').format(detail.verified_on) if detail.verified_on else ""
    return Markup(
        '<article class="detail">'
        '<section class="carousel" aria-label="Fotos"><div class="slides" role="group" aria-label="Fotos de {name}"'
        ' tabindex="0" data-index="0">{slides}</div></section>'
        '<div class="detail-info"><h1>{name}</h1><p class="card-meta">{age} años · {commune}, {city}</p>'
        '{badges}{notices}<div class="contact">{contact}</div><h2>Descripción</h2><p class="description">{description}</p>'
        '<h2>Tarifas</h2><table class="rates"><tbody>{rates}</tbody></table>{services}'
        '<p class="muted">Publicado el {published}</p>{verified}'
        '<p><a href="{report}" class="report-link">Reportar esta publicación</a></p></div></article>'
    ).format(
        slides=slides,
        name=detail.display_name,
        age=detail.age,
        commune=detail.commune,
        city=detail.city_name,
        badges=_badges(detail),
        notices=notices,
        contact=contact,
        description=detail.description,
        rates=rates,
        services=services,
        published=detail.published,
        verified=verified,
        report=f"{REPORT_PATH}?{REPORT_LISTING_PARAM}={detail.uid}",
    )


def private_preview(*, signed_in: bool, theme_attributes: str = "") -> str:
    """The first screen of a guarded page: the frame and the access check, as the app shows it until the
    server has accepted the caller; nothing of the caller's data (the app brings that)."""
    return _frame(Markup('<p class="loading">{}</p>').format(ACCESS_CHECK), theme_attributes, signed_in=signed_in)
