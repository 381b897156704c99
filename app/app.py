"""The Reflex app: every page route, the plain HTTP routes and the app frame."""

from __future__ import annotations

import reflex as rx

from app.api import build_api
from app.components.failures import APP_WRAPS
from app.content.legal import LEGAL_PAGES
from app.identity.cookies import handshake_middleware
from app.identity.jobs import purge_sign_in_tables
from app.middleware import SecurityMiddleware
from app.pages.account import account_action_page, login_page, signup_successful_page
from app.pages.areas import ADMIN_HOME, ADVERTISER_HOME, SECRETARY_HOME, area_page
from app.pages.legal import legal_page_component
from app.pages.public import directory_page
from app.routes import PUBLIC_ROUTES
from app.states.account import AccountActionState, LoginState
from app.states.areas import AreaState
from app.states.auth import AuthState
from app.states.failures import on_backend_exception
from app.states.public import DirectoryState
from app.states.report import ReportState

SITE_TITLE = "Escorts Chile"
SITE_DESCRIPTION = "Directorio de avisos para adultos en Chile, por ciudad, revisados antes de publicarse."

app = rx.App(
    html_lang="es-CL",
    stylesheets=["/styles.css"],
    head_components=[rx.el.script(src="/site.js", defer=True)],
    # Plain HTTP routes first, then ASGI middleware wrapping everything (pages,
    # assets, the websocket) in order.
    api_transformer=[
        build_api(),
        handshake_middleware,
        # Last, so outermost: refuses unknown hosts first and sets the headers of every response.
        SecurityMiddleware,
    ],
    toaster=rx.toast.provider(position="bottom-center"),
    # Reflex's English notices in Spanish: lost connection, render failure, handler errors.
    extra_app_wraps=APP_WRAPS,
    backend_exception_handler=on_backend_exception,
)
app.register_lifespan_task(purge_sign_in_tables)

for route in PUBLIC_ROUTES:
    app.add_page(
        directory_page,
        route=route,
        title=SITE_TITLE,
        description=SITE_DESCRIPTION,
        on_load=[AuthState.check_session, DirectoryState.load],
    )

for legal in LEGAL_PAGES:
    app.add_page(
        legal_page_component(legal),
        route=f"/disclaimer/{legal.slug}",
        title=f"{legal.title} | {SITE_TITLE}",
        description=legal.description,
        on_load=[AuthState.check_session, ReportState.load] if legal.slug == "report" else AuthState.check_session,
    )

app.add_page(
    login_page, route="/login", title=f"Ingresar | {SITE_TITLE}", on_load=[AuthState.check_session, LoginState.load]
)
app.add_page(
    signup_successful_page,
    route="/login/auth/signup-sucessful",
    title=f"Confirma tu correo | {SITE_TITLE}",
    on_load=AuthState.check_session,
)
app.add_page(
    account_action_page,
    route="/login/accion",
    title=f"Tu cuenta | {SITE_TITLE}",
    on_load=[AuthState.check_session, AccountActionState.load],
)

# Guarded areas: the server accepts or refuses the caller before anything shows.
for page, opener in (
    (ADMIN_HOME, AreaState.open_admin),
    (SECRETARY_HOME, AreaState.open_secretary),
    (ADVERTISER_HOME, AreaState.open_advertiser),
):
    app.add_page(
        area_page(page), route=page.route, title=f"{page.title} | {SITE_TITLE}", on_load=[AreaState.close, opener]
    )

# Any path no page matches goes to the public home (SPEC §2).
app.add_page(
    directory_page,
    route="404",
    title=SITE_TITLE,
    on_load=[AuthState.check_session, DirectoryState.load],
)
