"""Server-rendered HTML for /escorts-ssg: listing cards readable without JavaScript.

Every value is escaped; user-written text is never emitted as HTML.
"""

from __future__ import annotations

from html import escape

from app.core.geo import cities_by_region
from app.models import ListingCard
from app.routes import AGE_FORM_PATH

_STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}
a{color:#f5a3c7}header,main,footer{max-width:1200px;margin:0 auto;padding:12px}
.grid{display:grid;gap:12px;grid-template-columns:repeat(auto-fill,minmax(220px,1fr))}
.card{background:#1d1d1d;border-radius:8px;overflow:hidden}.card img{width:100%;aspect-ratio:3/4;object-fit:cover}
.card div{padding:8px}.badge{font-size:12px;margin-right:4px;padding:2px 6px;border-radius:4px;background:#333}
.age{position:fixed;inset:0;background:rgba(0,0,0,.95);display:flex;align-items:center;justify-content:center}
.age div{max-width:480px;background:#222;padding:24px;border-radius:8px}
header a,footer a,nav a,li a{display:inline-block;min-height:24px;min-width:24px;padding:4px 2px}
"""


def _card(card: ListingCard) -> str:
    cover = card.photos[0] if card.photos else ""
    badges = [card.tier_name] + (["Verificada"] if card.verified else []) + (["Video"] if card.has_video else [])
    return (
        '<article class="card">'
        f'<a href="{escape(card.url)}">'
        + (f'<img src="{escape(cover)}" alt="Foto de {escape(card.display_name)}" loading="lazy">' if cover else "")
        + f"<div><h3>{escape(card.display_name)}</h3>"
        f"<p>{card.age} años · {escape(card.commune)}</p>"
        f"<p>{''.join(f'<span class=badge>{escape(b)}</span>' for b in badges)}</p>"
        f"<p>{escape(card.price)} / hora</p></div></a></article>"
    )


def _age_notice(next_path: str) -> str:
    return (
        '<div class="age" role="dialog" aria-modal="true" aria-labelledby="age-title"><div>'
        '<h2 id="age-title">Contenido para personas adultas</h2>'
        "<p>Este sitio contiene avisos de servicios para adultos. Confirma que tienes 18 años o más.</p>"
        f'<form method="post" action="{AGE_FORM_PATH}"><input type="hidden" name="next" value="{escape(next_path)}">'
        '<button type="submit">Tengo 18 años o más, entrar</button></form>'
        '<p><a href="https://www.google.cl">Salir</a></p></div></div>'
    )


def render_page(
    *, title: str, description: str, canonical: str, heading: str, body: str, adult_ok: bool, path: str
) -> str:
    """A full HTML document in Spanish with title, description and canonical link."""
    return (
        '<!DOCTYPE html><html lang="es-CL"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        f'<meta name="description" content="{escape(description)}">'
        f'<link rel="canonical" href="{escape(canonical)}">'
        f"<style>{_STYLE}</style></head><body>"
        '<header><a href="/escorts-ssg">Escorts Chile</a> · <a href="/escorts">Versión interactiva</a></header>'
        f"<main><h1>{escape(heading)}</h1>{body}</main>"
        '<footer><a href="/disclaimer/report">Denunciar trata o abuso</a> · '
        '<a href="/disclaimer/terminos">Términos</a> · <a href="/disclaimer/privacidad">Privacidad</a>'
        "<p>Solo para mayores de 18 años.</p></footer>" + ("" if adult_ok else _age_notice(path)) + "</body></html>"
    )


def home_body(featured: list[ListingCard]) -> str:
    """The SSG home: cities by region, then featured cards."""
    regions = "".join(
        f"<section><h2>{escape(region.name)}</h2><ul>"
        + "".join(f'<li><a href="/escorts-ssg/{escape(c.slug)}">{escape(c.name)}</a></li>' for c in cities)
        + "</ul></section>"
        for region, cities in cities_by_region()
    )
    cards = "".join(_card(card) for card in featured)
    return f'<nav aria-label="Ciudades">{regions}</nav><h2>Destacadas</h2><div class="grid">{cards}</div>'


def city_body(cards: list[ListingCard], total: int, page: int, page_count: int, city_slug: str) -> str:
    """An SSG city page: one page of cards and links to the other pages."""
    grid = "".join(_card(card) for card in cards) or "<p>Aún no hay avisos en esta ciudad.</p>"
    pager = []
    if page > 1:
        pager.append(f'<a rel="prev" href="/escorts-ssg/{escape(city_slug)}?pagina={page - 1}">Anterior</a>')
    if page < page_count:
        pager.append(f'<a rel="next" href="/escorts-ssg/{escape(city_slug)}?pagina={page + 1}">Siguiente</a>')
    return (
        f"<p>{total} avisos · página {page} de {page_count}</p>"
        f'<h2>Avisos</h2><div class="grid">{grid}</div><nav aria-label="Páginas">{" ".join(pager)}</nav>'
    )
