"""The W3C Nu HTML checker over every kind of document the site serves: 0 errors.

Served documents (what a crawler or a browser without JavaScript reads): the homes, a
city, a filter tab, a city with filters (and with none matching them), a city's /all page, the trans pages, listing details, /login, each
information page, a 404, the SSG pages, and the pages of a data-export link (signed out, a
bad link signed in, and the download starting); first visits (the 18+ notice) and returning visitors. Then the DOM the
prerendered pages (a home, /login, an information page) have once the app has hydrated them,
"Mis publicaciones" with upgrade requests waiting for payment and with its "Mejorar" dialog open,
an advertiser's notice choices, and the staff pages: the upgrades desk with requests pending, a staff
table with its edit dialog open, and the review queue with an identity change. All of them go to one
run of the checker (tools/vnu, pinned vnu-jar on Debian's Java), and the test lists every error with
its document.

Not checked after hydration: the pages served from the app's SPA fallback (a city, a
listing). React mounts their <title> in a subtree it renders hidden first, so it makes a
title of its own beside the served one instead of taking it over (two <title> elements with
the same text until the next full load); the served documents themselves are checked.
"""

from __future__ import annotations

import io

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Page, expect
from sqlmodel import Session

from app.content.legal import LEGAL_PAGES
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import ListingStatus, ProfileId, User
from app.routes import (
    ADMIN_REVIEW_QUEUE,
    ADMIN_TASKS,
    ADMIN_UPGRADES,
    ADMIN_USERS,
    ADVERTISER_HOME,
    ADVERTISER_NOTICES,
    DATA_EXPORT_PREFIX,
    legal_path,
)
from app.seed import _ensure_catalogues
from app.services import listing_drafts, upgrades
from app.services.staff import reviews
from app.states.public import AGE_COOKIE
from app.storage.local import LocalStorage, PrivateLocalStorage
from app.web.private_api import PENDING_EXPORT_COOKIE
from tests.e2e.conftest import AREA_CITY, CITY, PAGED_CITY, Site
from tests.e2e.nu import nu_errors
from tests.factories import (
    actor_of,
    make_account,
    make_listing,
    open_session,
    processed_clip,
    tier_upgrade,
    wizard_draft,
)
from tests.video_samples import h264_mp4

pytestmark = pytest.mark.e2e

ADULT = {AGE_COOKIE: "1"}
# React marks every element it has hydrated with a __reactFiber$… property.
HYDRATED = (
    "() => { const root = document.querySelector('[data-is-root-theme]');"
    " return !!root && Object.keys(root).some((key) => key.startsWith('__reactFiber')); }"
)


def _served(site: Site) -> dict[str, tuple[str, dict[str, str], int]]:
    """Document name → (path, cookies, expected status)."""
    catalina = f"/escorts/{CITY}/catalina/{site.uids['diamante']}"
    maite = f"/escorts/trans/{CITY}/maite-{site.uids['trans']}"
    luciana = f"/escorts/{CITY}/luciana/{site.uids['video']}"
    return {
        "inicio-primera-visita": ("/escorts", {}, 200),
        "inicio": ("/escorts", ADULT, 200),
        "trans-inicio": ("/escorts/trans", ADULT, 200),
        "ciudad-primera-visita": (f"/escorts/{CITY}", {}, 200),
        "ciudad": (f"/escorts/{CITY}", ADULT, 200),
        "ciudad-pestana": (f"/escorts/{CITY}/verificadas", ADULT, 200),
        "ciudad-todos": (f"/escorts/{CITY}/all", ADULT, 200),
        "ciudad-filtrada": (f"/escorts/{CITY}/verificadas?precio_max=90000&edad_min=20&servicio=x", ADULT, 200),
        "ciudad-filtrada-vacia": (f"/escorts/{CITY}?precio_min=99999999", ADULT, 200),
        "trans-ciudad": (f"/escorts/trans/{CITY}", ADULT, 200),
        "ficha-primera-visita": (catalina, {}, 200),
        "ficha": (catalina, ADULT, 200),
        "ficha-trans": (maite, ADULT, 200),
        "ficha-video": (luciana, ADULT, 200),
        "login": ("/login", {}, 200),
        "favoritas": ("/favoritas", ADULT, 200),
        **{f"info-{page.slug}": (legal_path(page.slug), {}, 200) for page in LEGAL_PAGES},
        "no-existe": ("/no-existe", {}, 404),
        "no-existe-barra": ("/escorts/atlantida/", {}, 404),
        "ssg-primera-visita": ("/escorts-ssg", {}, 200),
        "ssg": ("/escorts-ssg", ADULT, 200),
        "ssg-ciudad": (f"/escorts-ssg/{PAGED_CITY}?pagina=2", ADULT, 200),
        "ssg-ciudad-comunas": (f"/escorts-ssg/{AREA_CITY}", ADULT, 200),
        "ssg-comuna": (f"/escorts-ssg/{AREA_CITY}/concon", ADULT, 200),
        "ssg-no-existe": (f"/escorts-ssg/{CITY}?pagina=99", {}, 404),
    }


def _hydrated(page: Page, site: Site) -> dict[str, str]:
    """The DOM of the prerendered pages once the app runs them (a returning visitor's)."""
    page.context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    documents = {}
    for name, path in (
        ("app-inicio", "/escorts"),
        ("app-trans-inicio", "/escorts/trans"),
        ("app-login", "/login"),
        ("app-info-terminos", legal_path("terminos")),
        ("app-ficha-video", f"/escorts/{CITY}/luciana/{site.uids['video']}"),
    ):
        page.goto(path)
        page.wait_for_function(HYDRATED)
        page.locator("#vista-previa").wait_for(state="detached")  # the server's preview has left
        documents[name] = page.content()
    # The Favoritas page with a saved listing and one no longer public, by the name the device kept (drawn by
    # assets/favourites.js).
    saved = [site.uids["diamante"], site.uids["hidden"]]
    page.evaluate(
        "([uids, names]) => { localStorage.setItem('favoritas', JSON.stringify(uids));"
        " localStorage.setItem('favoritas_nombres', JSON.stringify(names)); }",
        [saved, {site.uids["hidden"]: site.names["hidden"]}],
    )
    page.goto("/favoritas")
    page.wait_for_function(HYDRATED)
    page.get_by_test_id("favorita-no-disponible").wait_for()
    documents["app-favoritas"] = page.content()
    return documents


def _sign_in(page: Page, site: Site, db: Session, email: str, profile: ProfileId) -> User:
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=profile)
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )
    return user


def _signed_in(page: Page, site: Site, db: Session) -> dict[str, str]:
    """The DOM of the signed-in pages: "Mis publicaciones" with a card listing two upgrade requests waiting for
    payment, then its "Mejorar" dialog open; as an administrator, the upgrades desk with those requests pending, a
    staff table with its edit dialog open and the review queue with an identity change.
    """
    documents = {}
    owner = _sign_in(page, site, db, "nu-pagos@correo.cl", ProfileId.PROFESOR)
    # Paused: it is on no public page another test counts.
    listing = make_listing(db, owner, name="Nu Pagos", tier="platino", status=ListingStatus.PAUSADA.value)
    services = [
        tier_upgrade(db, "diamante", name="Nu Diamante", price_clp=59990),
        tier_upgrade(db, "ruby", name="Nu Ruby", price_clp=39990),
    ]
    db.add_all(services)
    db.commit()
    for service in services:
        upgrades.request_upgrade(session=db, owner_uid=owner.uid, listing_uid=listing.uid, app_service_uid=service.uid)
    page.goto(ADVERTISER_HOME)
    card = page.get_by_role("article", name="Nu Pagos")
    expect(card.get_by_role("list", name="Mejoras por pagar").get_by_role("listitem")).to_have_count(2)
    documents["app-mis-publicaciones-pagos"] = page.content()
    card.get_by_role("button", name="Mejorar").click()
    expect(page.get_by_role("dialog").get_by_role("table", name="Tus mejoras").get_by_role("row")).to_have_count(3)
    documents["app-mis-publicaciones-mejorar"] = page.content()

    staff = _sign_in(page, site, db, "nu-admin@correo.cl", ProfileId.ADMINISTRADOR)
    page.goto(ADMIN_UPGRADES)
    expect(page.get_by_role("button", name="Aprobar la mejora de Nu Pagos")).to_have_count(2)
    documents["app-admin-mejoras"] = page.content()
    page.goto(ADMIN_TASKS)
    expect(page.get_by_role("table")).to_have_count(2)
    documents["app-admin-trabajos"] = page.content()

    page.goto(ADMIN_USERS)
    page.get_by_label("Buscar por correo").fill("nu-pagos@correo.cl")
    page.get_by_role("button", name="Buscar").click()
    rows = page.get_by_role("table", name="Usuarios").get_by_role("row")
    expect(rows).to_have_count(2)  # the headers and the one account found
    row = rows.filter(has_text="nu-pagos@correo.cl")
    documents["app-admin-usuarios"] = page.content()
    row.get_by_role("button", name="Editar").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    documents["app-admin-usuarios-editar"] = page.content()

    # An advertiser whose second listing comes with a new identity: the queue shows it beside the approved one.
    _ensure_catalogues(db)
    media = LocalStorage(site.log_path.parent / "media")
    advertiser = make_account(
        db, LocalProvider(engine=db.get_bind()), "nu-identidad@correo.cl", profile=ProfileId.PROFESOR
    )
    # Constitución: no test counts the listings of its city page, where the first one goes.
    first = wizard_draft(
        db, media, advertiser, name="Nu Primera", city="constitucion", phone="+56 9 6300 0001", photo=_photo()
    )
    listing_drafts.send_to_review(session=db, owner_uid=advertiser.uid, uid=first)
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=first)
    second = wizard_draft(
        db,
        media,
        advertiser,
        name="Nu Segunda",
        city="constitucion",
        phone="+56 9 6300 0001",
        photo=_photo(),
        identity={"rut": "12.345.678-5"},
    )
    # ... and a clip, which the queue shows playable beside the photos.
    processed_clip(
        db,
        second,
        storage=media,
        private_storage=PrivateLocalStorage(site.log_path.parent / "private"),
        source=h264_mp4(site.log_path.parent / "samples", name="nu.mp4", size="640x360", seconds=1),
        approved=False,
    )
    listing_drafts.send_to_review(session=db, owner_uid=advertiser.uid, uid=second)
    page.goto(ADMIN_REVIEW_QUEUE)
    item = page.get_by_role("article", name="Nu Segunda")
    expect(item.get_by_role("heading", name="Identidad: aprobada y nueva")).to_be_visible()
    expect(item.get_by_label("Video enviado 1")).to_be_visible()
    documents["app-admin-revision"] = page.content()
    return documents


def _photo() -> bytes:
    """A JPEG of noise the photo pipeline accepts (no two alike)."""
    buffer = io.BytesIO()
    Image.effect_noise((900, 1200), 60).convert("RGB").save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def _data_link_documents(db: Session) -> tuple[dict[str, str], dict[str, str]]:
    """An advertiser's documents: the data-export page signed out, with a bad link, and once a download starts.

    Returns the served ones (name → path, cookies, status) and the session cookie for the hydrated one.
    """
    advertiser = make_account(
        db, LocalProvider(engine=db.get_bind()), "nu-avisos@correo.cl", profile=ProfileId.PROFESOR
    )
    session = {SESSION_COOKIE: open_session(db, advertiser.uid)}
    unknown_link = f"{DATA_EXPORT_PREFIX}/{'x' * 43}"
    served = {
        "datos-sin-sesion": (unknown_link, {}, 403),
        "datos-enlace-vencido": (unknown_link, session, 404),
        "datos-descarga": (DATA_EXPORT_PREFIX, {**session, PENDING_EXPORT_COOKIE: "x" * 43}, 200),
    }
    return served, session


def test_every_kind_of_document_is_valid_html(site: Site, page: Page, db: Session, tmp_path):
    private, session = _data_link_documents(db)
    documents = {}
    for name, (path, cookies, status) in {**_served(site), **private}.items():
        response = httpx.get(site.url + path, cookies=cookies, timeout=20)
        assert response.status_code == status, (name, path, response.status_code)
        documents[name] = response.text
    documents.update(_hydrated(page, site))
    documents.update(_signed_in(page, site, db))
    page.context.add_cookies([{"name": name, "value": value, "url": site.url} for name, value in session.items()])
    page.goto(ADVERTISER_NOTICES)
    expect(page.get_by_role("heading", name="Mi cuenta: avisos por correo", level=1)).to_be_visible()
    page.locator("#vista-previa").wait_for(state="detached")
    documents["app-avisos"] = page.content()
    errors = nu_errors(documents, tmp_path)
    assert not errors, f"{len(errors)} errors of the Nu HTML checker:\n" + "\n".join(errors)
