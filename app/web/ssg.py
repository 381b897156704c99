"""Server-rendered HTML for /escorts-ssg: listing cards readable without JavaScript.

The markup is in app/web/templates/ssg/ (the cards in cards.html, shared with the
preview of app.web.preview); every value is escaped, and user-written text is
never emitted as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from app.core.geo import cities_by_region
from app.models import ListingCard
from app.services.directory_view import count_label, page_label
from app.services.listings import CardPage
from app.web.rendering import render


def render_page(
    *,
    title: str,
    description: str,
    canonical: str,
    heading: str,
    body: Markup,
    adult_ok: bool,
    path: str,
    breadcrumbs: Sequence[tuple[str, str]] = (),
) -> str:
    """A full HTML document in Spanish with title, description and canonical link around ``body``, under the
    links to the pages above it (``breadcrumbs``: (path, label) of each, the home first)."""
    return render(
        "ssg/page.html",
        title=title,
        description=description,
        canonical=canonical,
        heading=heading,
        body=body,
        adult_ok=adult_ok,
        path=path,
        breadcrumbs=breadcrumbs,
    )


def home_body(featured: list[ListingCard]) -> Markup:
    """The SSG home: cities by region, then featured cards."""
    return Markup(render("ssg/home.html", regions=cities_by_region(), featured=featured))


def city_body(result: CardPage, city_path: str, communes: list[tuple[str, str]] | None = None) -> Markup:
    """An SSG city page (or a commune's, at ``city_path``): links to the pages of ``communes`` ((path, name) of
    each), one page of cards, how many (capped: "Más de 1.000 avisos · página 2") and links to the pages before
    and after it."""
    return Markup(
        render(
            "ssg/city.html",
            cards=result.cards,
            count_label=count_label(result),
            page_label=page_label(result).lower(),
            page=result.page,
            has_next=result.has_next,
            city_path=city_path,
            communes=communes or [],
        )
    )


def not_found_page(*, city_path: str, city_name: str, site_name: str) -> str:
    """A plain Spanish 404 document that links to the city's first page."""
    return render("ssg/not_found.html", city_path=city_path, city_name=city_name, site_name=site_name)
