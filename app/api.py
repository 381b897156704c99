"""Plain HTTP routes beside the Reflex app: SSG pages, photos and health.

Mounted through ``rx.App(api_transformer=...)``; these routes answer before
the compiled frontend, so /escorts-ssg is real HTML from the server.
"""

from __future__ import annotations

from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from app.core.geo import city_by_slug
from app.core.text import parse_int
from app.db import get_engine, session_scope
from app.models import Section
from app.pages import ssg
from app.routes import SSG_HOME, resolve_ssg_city
from app.services import listings
from app.services.filter_tabs import DEFAULT_TAB
from app.settings import get_settings
from app.states.public import AGE_COOKIE, AGE_COOKIE_MAX_AGE

CACHE_SECONDS = 60


def _adult(request: Request) -> bool:
    return request.cookies.get(AGE_COOKIE) == "1"


def _html(document: str) -> HTMLResponse:
    return HTMLResponse(document, headers={"Cache-Control": f"private, max-age={CACHE_SECONDS}", "Vary": "Cookie"})


async def ssg_home(request: Request) -> Response:
    """/escorts-ssg: cities and featured cards as plain HTML."""
    with session_scope() as session:
        featured = listings.featured_cards(session=session, section=Section.MUJERES.value)
    site = get_settings().site_url
    return _html(
        ssg.render_page(
            title="Escorts en Chile | Escorts Chile",
            description="Avisos de escorts en las principales ciudades de Chile, revisados antes de publicarse.",
            canonical=f"{site}{SSG_HOME}",
            heading="Escorts en Chile",
            body=ssg.home_body(featured),
            adult_ok=_adult(request),
            path=SSG_HOME,
        )
    )


async def ssg_city(request: Request) -> Response:
    """/escorts-ssg/{city}: one page of a city's cards as plain HTML."""
    city_slug, redirect = resolve_ssg_city(request.path_params["city"])
    if redirect:
        return RedirectResponse(redirect, status_code=301)
    city = city_by_slug(city_slug)
    page = parse_int(request.query_params.get("pagina", "1")) or 1
    with session_scope() as session:
        result = listings.city_cards(
            session=session, section=Section.MUJERES.value, city_slug=city_slug, tab=DEFAULT_TAB, page=min(page, 10_000)
        )
    site = get_settings().site_url
    path = f"{SSG_HOME}/{city_slug}"
    return _html(
        ssg.render_page(
            title=f"Escorts en {city.name} | Escorts Chile",
            description=f"Avisos de escorts en {city.name}: fotos, tarifas y contacto. {result.total} avisos publicados.",
            canonical=f"{site}{path}" + (f"?pagina={result.page}" if result.page > 1 else ""),
            heading=f"Escorts en {city.name}",
            body=ssg.city_body(result.cards, result.total, result.page, result.page_count, city_slug),
            adult_ok=_adult(request),
            path=path,
        )
    )


async def confirm_age(request: Request) -> Response:
    """The no-JavaScript 18+ confirmation: sets the shared cookie and goes back."""
    form = await request.form()
    target = str(form.get("next", SSG_HOME))
    if not target.startswith(SSG_HOME):
        target = SSG_HOME
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(AGE_COOKIE, "1", max_age=AGE_COOKIE_MAX_AGE, samesite="lax", path="/")
    return response


async def health(_: Request) -> Response:
    """Liveness and database check for the hosting team."""
    with get_engine().connect() as connection:
        connection.execute(text("SELECT 1"))
    return JSONResponse({"status": "ok"})


def build_api() -> Starlette:
    """The Starlette app handed to Reflex's api_transformer."""
    media_dir = get_settings().media_dir
    media_dir.mkdir(parents=True, exist_ok=True)
    return Starlette(
        routes=[
            Route(SSG_HOME, ssg_home, methods=["GET"]),
            Route(f"{SSG_HOME}/confirmar-edad", confirm_age, methods=["POST"]),
            Route(SSG_HOME + "/{city}", ssg_city, methods=["GET"]),
            Route("/healthz", health, methods=["GET"]),
            Mount("/media", app=StaticFiles(directory=media_dir), name="media"),
        ]
    )
