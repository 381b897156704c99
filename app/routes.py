"""Every path of the site, named once, and the pure rules that map a path to what to show.

Layout of the route table (no import cycles):

- this module is pure: no Reflex, no pages, no states. It names every path
  (``PUBLIC_HOME``, ``LOGIN``, ``REPORT_PATH`` …), the guarded areas as data
  (``AREAS``: prefix, the one profile allowed, its landing page), the
  :class:`PageRoute` record, and the redirect rules. ``app.web.api``,
  ``app.identity.guards`` (area guards and landing pages, derived from
  ``AREAS``), the states and the components import it freely.
- ``app.route_table`` holds ``PAGE_ROUTES``, the one table of pages: each page
  declared once with its path, page component, title, allowed profiles and
  on_load. It imports the pages and states, so nothing but ``app.app`` (which
  registers every entry in one loop) imports it. Its guarded entries are built
  from ``AREAS``, and a unit test checks that table and guards agree.

Every public route renders the same directory page, whose on_load resolves the
browser path with :func:`resolve_public_path`: a view to show, or a redirect
(SPEC §2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from app.core.geo import city_by_slug, normalize_city_slug
from app.models import ProfileId, Section
from app.models.filter_tabs import TABS_BY_SLUG
from app.models.listing_filters import FILTER_PARAMS

PUBLIC_HOME = "/escorts"
TRANS_HOME = "/escorts/trans"
SSG_HOME = "/escorts-ssg"
ALL_SEGMENT = "all"

LOGIN = "/login"
SIGNUP_SUCCESSFUL = "/login/auth/signup-sucessful"
ACCOUNT_ACTION = "/login/accion"
# The second step of a staff member's sign-in: set up the second factor, or type its code (issue 20 §1).
SECOND_FACTOR = "/login/segundo-factor"
LEGAL_PREFIX = "/disclaimer"
REPORT_SLUG = "report"
# The visitor's saved listings (issue 19 §2), and the POST that gives the public cards of the ones on the device.
FAVOURITES = "/favoritas"
FAVOURITE_CARDS = "/favoritas/tarjetas"
# A detail page's view or contact click, sent by its document before the app runs (assets/site.js).
COUNT_HIT = "/contar"
# Reflex's catch-all: any path no page matches.
NOT_FOUND = "404"

ADMIN_HOME = "/admin/escorts"
ADMIN_UPGRADES = "/admin/mejorasPublicacion"
# How to pay for an upgrade, set by the administrator (issue 19 §4).
ADMIN_SETTINGS = "/admin/ajustes"
ADMIN_TASKS = "/admin/trabajos"
ADMIN_REPORTS = "/admin/reportes"
ADMIN_REVIEW_QUEUE = "/admin/revisarPublicacion"
SECRETARY_REVIEW_QUEUE = "/bbitamia/revisarPublicacion"
SECRETARY_HOME = "/bbitamia/publicacion"
ADVERTISER_HOME = "/my/publicacion/misPublicaciones"
ADVERTISER_NEW_LISTING = "/my/publicacion/nuevaPublicacion"
# Mi cuenta (every profile): download, correct or delete my data (issue 20 §2); an export's download link.
MY_ACCOUNT = "/mi-cuenta"
DATA_EXPORT_PREFIX = "/mi-cuenta/datos"
# POST a clip's file (the request body) to CLIP_UPLOAD_PREFIX/<listing uid> (app.web.video_api).
CLIP_UPLOAD_PREFIX = "/mi-cuenta/videos"
# Mi cuenta: which e-mail notices the advertiser gets (issue 19 §3).
ADVERTISER_NOTICES = "/my/cuenta/avisos"
# ?id=<uid> on the wizard continues or edits that listing of the advertiser.
WIZARD_LISTING_PARAM = "id"

# The staff areas' pages (issue 9); their menus are derived from the route table (app.route_table.staff_nav).
ADMIN_USERS = "/admin/usuarios"
SECRETARY_USERS = "/bbitamia/usuarios"
ADMIN_AUDIT = "/admin/auditoria"
ADMIN_ADVERTISERS = "/admin/profesor"
SECRETARY_ADVERTISERS = "/bbitamia/profesor"
ADMIN_AGENCIES = "/admin/agencia"
ADMIN_LISTINGS = "/admin/publicacion"
SECRETARY_LISTINGS = SECRETARY_HOME


def admin_catalogue_path(catalogue: str) -> str:
    """The administrator's page of a catalogue (categoriaProfesor, servicioApp…)."""
    return f"/admin/{catalogue}"


def wizard_path(uid: str = "") -> str:
    """The listing wizard: a new listing (or the newest draft), or the advertiser's listing ``uid``."""
    return f"{ADVERTISER_NEW_LISTING}?{WIZARD_LISTING_PARAM}={uid}" if uid else ADVERTISER_NEW_LISTING


def legal_path(slug: str) -> str:
    """The URL of one information page under /disclaimer."""
    return f"{LEGAL_PREFIX}/{slug}"


REPORT_PATH = legal_path(REPORT_SLUG)
REPORT_LISTING_PARAM = "publicacion"


@dataclass(frozen=True)
class Area:
    """A guarded area: every path under ``prefix`` is for ``profile`` only; ``home`` is where it lands."""

    prefix: str
    profile: ProfileId
    home: str


# SPEC §4, §6. A deliberate correction: the original sent the secretary to /my,
# which its own guard refuses; the secretary lands on their own area.
AREAS: tuple[Area, ...] = (
    Area("/admin", ProfileId.ADMINISTRADOR, ADMIN_HOME),
    Area("/bbitamia", ProfileId.SECRETARIA, SECRETARY_HOME),
    Area("/my", ProfileId.PROFESOR, ADVERTISER_HOME),
)


@dataclass(frozen=True)
class PageRoute:
    """One page of the site, declared once (entries live in ``app.route_table.PAGE_ROUTES``).

    ``profiles`` empty means public; otherwise the profile uids allowed in, and
    ``on_load`` starts with the area guard. ``description`` is the meta
    description (None: none). ``label`` is a staff page's own title, without the
    site's name: its link in the area's menu ("" for a page in no menu).
    """

    path: str
    page: Callable[[], Any] | Any
    """The page's function, or a component built once (Reflex takes either)."""
    title: Any
    """The document's title: text, or a state var the page sets when it loads."""
    profiles: frozenset[str] = frozenset()
    on_load: tuple[Any, ...] = ()
    description: str | None = None
    label: str = ""


@dataclass(frozen=True)
class PublicView:
    """What a public path shows.

    ``kind`` is one of: home, city, all, detail, redirect. For ``detail`` the
    ``uid`` is the listing to show; ``redirect_to`` is set only for redirect.
    """

    kind: str
    section: str = Section.MUJERES.value
    city_slug: str = ""
    tab_slug: str = "todas"
    uid: str = ""
    redirect_to: str = ""


def section_home(section: str) -> str:
    """The home of a section: /escorts, or /escorts/trans for the trans section (every other public path starts there)."""
    return TRANS_HOME if section == Section.TRANS else PUBLIC_HOME


def _redirect(target: str) -> PublicView:
    return PublicView(kind="redirect", redirect_to=target)


def _city_view(section: str, raw_city: str, rest: list[str]) -> PublicView:
    """Resolve /{prefix}/{city}/... once the section is known."""
    prefix = section_home(section)
    city = normalize_city_slug(raw_city)
    if city is None:
        return _redirect(prefix)
    if city != raw_city:
        return _redirect("/".join([prefix, city, *rest]))
    if not rest:
        return PublicView(kind="city", section=section, city_slug=city)
    if len(rest) == 1 and rest[0] == ALL_SEGMENT:
        return PublicView(kind="all", section=section, city_slug=city)
    if len(rest) == 1 and rest[0] in TABS_BY_SLUG:
        if rest[0] == "todas":
            return _redirect(f"{prefix}/{city}")
        return PublicView(kind="city", section=section, city_slug=city, tab_slug=rest[0])
    if section == Section.TRANS and len(rest) == 1:
        # /escorts/trans/{city}/{nombre}: the name segment ends with -{uid}.
        name, _, uid = rest[0].rpartition("-")
        if name and uid:
            return PublicView(kind="detail", section=section, city_slug=city, uid=uid)
        return _redirect(f"{prefix}/{city}")
    if section == Section.MUJERES and len(rest) == 2:
        return PublicView(kind="detail", section=section, city_slug=city, uid=rest[1])
    return _redirect(f"{prefix}/{city}")


def resolve_public_path(path: str) -> PublicView:
    """Map a browser path of the public or trans site to a view or a redirect."""
    parts = [unquote(p) for p in path.split("?", 1)[0].split("/") if p]
    if not parts:
        return _redirect(PUBLIC_HOME)
    head, rest = parts[0], parts[1:]
    if head == "escort" and len(rest) == 1:
        return PublicView(kind="detail", uid=rest[0])
    if head != "escorts":
        if len(parts) == 1:
            # Old /{city} URL: a valid city goes to /escorts/{city}.
            city = normalize_city_slug(head)
            return _redirect(f"{PUBLIC_HOME}/{city}" if city else PUBLIC_HOME)
        return _redirect(PUBLIC_HOME)
    if not rest:
        return PublicView(kind="home")
    section = Section.MUJERES.value
    if rest[0] == "trans":
        section, rest = Section.TRANS.value, rest[1:]
        if not rest:
            return PublicView(kind="home", section=section)
    if rest[:2] == ["inicio", "generated"]:
        if len(rest) == 4:
            city = normalize_city_slug(rest[2]) or ""
            return PublicView(kind="detail", section=section, city_slug=city, uid=rest[3])
        return _redirect(section_home(section))
    return _city_view(section, rest[0], rest[1:])


def is_pretty_detail_path(path: str) -> bool:
    """True for the detail URLs that carry city and name (/escorts/{city}/{name}/...)."""
    view = resolve_public_path(path)
    generated = "/inicio/generated/" in path
    return view.kind == "detail" and path.startswith("/escorts/") and not generated


def resolve_ssg_city(raw_city: str) -> tuple[str | None, str | None]:
    """For /escorts-ssg/{city}: (city slug to show, None) or (None, redirect target)."""
    city = normalize_city_slug(raw_city)
    if city is None:
        return None, SSG_HOME
    if city != raw_city:
        return None, f"{SSG_HOME}/{city}"
    return city, None


SSG_PAGE_PARAM = "pagina"
# 1 to 4 ASCII digits; str.isdigit() would also admit "٣" and "²".
_SSG_PAGE = re.compile(r"[0-9]{1,4}")
_SSG_NEXT = re.compile(rf"{re.escape(SSG_HOME)}(/[a-z0-9-]+){{0,2}}(\?{SSG_PAGE_PARAM}=[1-9][0-9]{{0,3}})?")


@dataclass(frozen=True)
class SsgPage:
    """The page a /escorts-ssg/{city} query asks for: ``page`` (0 = not found) or ``redirect_to``."""

    page: int = 0
    redirect_to: str = ""


def ssg_page_url(path: str, page: int) -> str:
    """The canonical URL of one page of an SSG city: no ``pagina`` for page 1."""
    return path if page == 1 else f"{path}?{SSG_PAGE_PARAM}={page}"


def resolve_ssg_page(path: str, values: Sequence[str]) -> SsgPage:
    """Map the ``pagina`` values of a request to ``path`` to a page, a redirect or not found.

    No value: page 1. One value of 1 to 4 ASCII digits naming page 1 or more:
    that page, or a 301 to its canonical URL when written otherwise ("1",
    "02"). Anything else (empty, letters, signs, decimals, other scripts'
    digits, 5+ digits, zero, the parameter twice) does not exist: 404. The
    caller answers 404 as well for a page past the last one.
    """
    if not values:
        return SsgPage(page=1)
    if len(values) > 1 or not _SSG_PAGE.fullmatch(values[0]) or int(values[0]) == 0:
        return SsgPage()
    page = int(values[0])
    if values[0] != str(page) or page == 1:
        return SsgPage(redirect_to=ssg_page_url(path, page))
    return SsgPage(page=page)


# The form of the 18+ notice that works without JavaScript (SSG pages, and the preview of app.web.preview).
AGE_FORM_PATH = f"{SSG_HOME}/confirmar-edad"
_PUBLIC_NEXT = re.compile(r"(/[A-Za-z0-9_-]+)+")
# A city page's filters, as their canonical query string spells them (app.models.listing_filters).
_FILTER_PAIR = "(?:" + "|".join(FILTER_PARAMS) + ")=[a-z0-9-]{1,60}"
_FILTER_QUERY = re.compile(rf"{_FILTER_PAIR}(?:&{_FILTER_PAIR}){{0,13}}")


def safe_age_next(target: str) -> str:
    """Where the no-JavaScript age confirmation may send the browser back to.

    An SSG page (the home, a city or one of its communes, one of their pages), or a page of the public
    directory that exists by its path (a home, a city, a tab, a listing), with
    a city page's filters in their canonical query string: anything else, ``//evil.example`` or ``/escorts-ssg.evil.com`` included,
    goes to the SSG home.
    """
    if _SSG_NEXT.fullmatch(target):
        return target
    path, mark, query = target.partition("?")
    if mark and not _FILTER_QUERY.fullmatch(query):
        return SSG_HOME
    if _PUBLIC_NEXT.fullmatch(path) and resolve_public_path(path).kind != "redirect":
        return target
    return SSG_HOME


# /login?volver=<path>: where the browser goes after sign-in (a data-export link opened signed out).
LOGIN_RETURN_PARAM = "volver"
_RETURN_MAX_LENGTH = 300


def safe_return_path(target: str) -> str:
    """``target`` if /login may send the browser back there after sign-in, else "".

    Only a path of this site, segments of letters, digits, ``-`` and ``_``: no scheme, host,
    ``//evil.example``, backslash, query or fragment.
    """
    if isinstance(target, str) and len(target) <= _RETURN_MAX_LENGTH and _PUBLIC_NEXT.fullmatch(target):
        return target
    return ""


def login_path(return_to: str = "") -> str:
    """/login, sending the browser back to ``return_to`` after sign-in when it is a safe path of this site."""
    back = safe_return_path(return_to)
    return f"{LOGIN}?{LOGIN_RETURN_PARAM}={back}" if back else LOGIN


def city_path(section: str, city_slug: str, tab_slug: str = "todas") -> str:
    """The URL of a city page (with a filter tab other than Todas)."""
    base = f"{section_home(section)}/{city_slug}"
    return base if tab_slug == "todas" else f"{base}/{tab_slug}"


def city_name(city_slug: str) -> str:
    """Display name of a city slug ('' when unknown)."""
    city = city_by_slug(city_slug)
    return city.name if city else ""


# Reflex page routes of the public site; each renders the directory page. The old /{city} URL
# has none: the server answers it (a 301 to the city, or a 404; app.web.seo_api), and a Reflex
# page there made every unknown one-segment path (/favicon.ico, /_event) a 200 app shell.
# A browser that reaches it inside the app gets the 404 page, whose loader redirects the same way.
PUBLIC_ROUTES: tuple[str, ...] = (
    "/",
    "/escorts",
    "/escorts/[city]",
    "/escorts/[city]/all",
    "/escorts/[city]/[slug]",
    "/escorts/[city]/[slug]/[uid]",
    "/escort/[uid]",
    "/escorts/inicio/generated/[city]/[uid]",
    "/escorts/trans",
    "/escorts/trans/[city]",
    "/escorts/trans/[city]/all",
    "/escorts/trans/[city]/[slug]",
    "/escorts/trans/inicio/generated/[city]/[uid]",
)
