"""The review queue in a real browser, as the secretary: approving puts a listing on its city page, a rejection's
reason reaches the advertiser's list, the same photo sent by two accounts is flagged on both items, and a change
to a reviewed identity is shown beside the approved one and applied with the listing it came with.

Advertisers and their listings are made through the services (the wizard's own steps, photos through the photo
pipeline, then send_to_review), and every browser carries a session opened through the session service.
"""

from __future__ import annotations

import io
import random
from datetime import date

import pytest
from PIL import Image
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import Advertiser, ProfileId, User
from app.seed import _ensure_catalogues
from app.services import listing_drafts
from app.services.staff import reviews
from app.storage.local import LocalStorage
from tests.e2e.conftest import Site, accept_age
from tests.factories import actor_of, make_account, open_session, wizard_draft

pytestmark = pytest.mark.e2e

QUEUE = "/bbitamia/revisarPublicacion"
MY_LISTINGS = "/my/publicacion/misPublicaciones"
WIZARD = "/my/publicacion/nuevaPublicacion"


@pytest.fixture
def db(db: Session) -> Session:
    """The running site's database, with the catalogues the wizard offers."""
    _ensure_catalogues(db)
    return db


@pytest.fixture
def media(site: Site) -> LocalStorage:
    """The running site's photo storage (the conftest serves MEDIA_DIR beside its log)."""
    return LocalStorage(site.log_path.parent / "media")


def _signed_in(db: Session, site: Site, page: Page, email: str, profile: ProfileId) -> User:
    """An account of ``profile`` whose session cookie this browser holds."""
    user = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=profile)
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )
    return user


def _photo(seed: int) -> bytes:
    """A JPEG of random light and dark blocks: ``seed`` picks them, so different seeds look different."""
    pick = random.Random(seed)
    image = Image.new("RGB", (900, 1200))
    for row in range(8):
        for column in range(6):
            shade = pick.choice((20, 235))
            image.paste(
                (shade, shade, pick.randrange(256)), (column * 150, row * 150, column * 150 + 150, row * 150 + 150)
            )
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _sent_listing(db: Session, media: LocalStorage, owner: User, **draft) -> str:
    """A complete listing made through the wizard's steps (tests.factories.wizard_draft), sent to review; its uid."""
    uid = wizard_draft(db, media, owner, **draft)
    listing_drafts.send_to_review(session=db, owner_uid=owner.uid, uid=uid)
    return uid


def _advertiser(db: Session, email: str) -> User:
    return make_account(db, LocalProvider(engine=db.get_bind()), email, profile=ProfileId.PROFESOR)


def _item(page: Page, name: str):
    return page.get_by_role("article", name=name)


def test_the_secretary_approves_a_sent_listing_and_it_appears_on_its_city_page(page: Page, site: Site, db, media):
    owner = _advertiser(db, "cola-aprobada@correo.cl")
    _sent_listing(db, media, owner, name="Renata Cola", city="curico", phone="+56 9 6100 0001", photo=_photo(1))
    _signed_in(db, site, page, "secretaria-cola@correo.cl", ProfileId.SECRETARIA)

    page.goto(QUEUE)
    expect(page.get_by_role("heading", name="Revisión de publicaciones", level=1)).to_be_visible()
    item = _item(page, "Renata Cola")
    expect(item.get_by_text("Publicación por revisar")).to_be_visible()
    expect(item.get_by_role("table", name="Datos de la publicación")).to_contain_text("+56 9 6100 0001")
    expect(item.get_by_role("table", name="Datos de la publicación")).to_contain_text("Culonas")
    expect(item.get_by_role("heading", name="Identidad: nueva")).to_be_visible()
    identity = item.get_by_role("table", name="Identidad")
    expect(identity).to_contain_text("RUT 11.111.111-1")
    expect(identity).to_contain_text(f"15/01/{date.today().year - 30} · ")
    expect(identity).to_contain_text("Chile")
    item.get_by_role("button", name="Aprobar").click()
    expect(page.get_by_text("Aprobaste «Renata Cola».")).to_be_visible()
    expect(_item(page, "Renata Cola")).to_have_count(0)

    page.goto("/escorts/curico")
    accept_age(page)
    expect(page.get_by_text("Renata Cola").first).to_be_visible()


def test_a_rejection_with_a_reason_reaches_the_advertisers_list(page: Page, site: Site, db, media, browser):
    owner = _advertiser(db, "cola-rechazada@correo.cl")
    _sent_listing(db, media, owner, name="Romina Cola", city="linares", phone="+56 9 6100 0002", photo=_photo(2))
    _signed_in(db, site, page, "secretaria-rechaza@correo.cl", ProfileId.SECRETARIA)

    page.goto(QUEUE)
    _item(page, "Romina Cola").get_by_role("button", name="Rechazar").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Rechazar: Romina Cola")
    dialog.get_by_role("button", name="Rechazar").click()  # no reason chosen: the browser asks for one
    expect(dialog).to_be_visible()
    dialog.get_by_label("Motivo").select_option("Datos de contacto inválidos")
    dialog.get_by_label("Explícale qué debe corregir").fill("El número no responde; revisa que esté bien escrito.")
    dialog.get_by_role("button", name="Rechazar").click()
    expect(page.get_by_text("Rechazaste «Romina Cola».", exact=False)).to_be_visible()
    expect(dialog).to_have_count(0)
    expect(_item(page, "Romina Cola")).to_have_count(0)

    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    try:
        mine = context.new_page()
        token = open_session(db, owner.uid)
        context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": site.url, "httpOnly": True}])
        mine.goto(MY_LISTINGS)
        card = mine.get_by_role("article", name="Romina Cola")
        expect(card.get_by_text("Rechazada", exact=True)).to_be_visible()
        expect(card).to_contain_text(
            "Motivo del rechazo: Datos de contacto inválidos: El número no responde; revisa que esté bien escrito."
        )
    finally:
        context.close()


def test_the_same_photo_sent_by_two_accounts_is_flagged_in_the_queue(page: Page, site: Site, db, media):
    same = _photo(3)
    first = _advertiser(db, "cola-foto-uno@correo.cl")
    second = _advertiser(db, "cola-foto-dos@correo.cl")
    third = _advertiser(db, "cola-foto-tres@correo.cl")
    _sent_listing(db, media, first, name="Paula Foto", city="macul", phone="+56 9 6100 0003", photo=same)
    _sent_listing(db, media, second, name="Pilar Foto", city="macul", phone="+56 9 6100 0004", photo=same)
    _sent_listing(db, media, third, name="Paz Distinta", city="macul", phone="+56 9 6100 0005", photo=_photo(7))
    _signed_in(db, site, page, "secretaria-fotos@correo.cl", ProfileId.SECRETARIA)

    page.goto(QUEUE)
    for name, other in (("Paula Foto", "Pilar Foto"), ("Pilar Foto", "Paula Foto")):
        signals = _item(page, name).get_by_role("list", name="Señales")
        expect(signals).to_contain_text("Una foto idéntica está en publicaciones de otras cuentas")
        expect(signals).to_contain_text(other)
        expect(_item(page, name).get_by_text("Repetida en otra cuenta")).to_be_visible()
    expect(_item(page, "Paz Distinta")).to_be_visible()
    expect(_item(page, "Paz Distinta").get_by_text("Repetida en otra cuenta")).to_have_count(0)


def test_a_changed_identity_is_shown_beside_the_approved_one_and_applied_with_its_listing(
    page: Page, site: Site, db, media, browser
):
    owner = _advertiser(db, "cola-identidad@correo.cl")
    staff = _signed_in(db, site, page, "secretaria-identidad@correo.cl", ProfileId.SECRETARIA)
    first = _sent_listing(
        db, media, owner, name="Ignacia Primera", city="chillan", phone="+56 9 6100 0006", photo=_photo(8)
    )
    reviews.approve_listing(session=db, actor=actor_of(staff), listing_uid=first)
    born = f"{date.today().year - 35}/03/02"
    _sent_listing(
        db,
        media,
        owner,
        name="Ignacia Segunda",
        city="chillan",
        phone="+56 9 6100 0006",
        photo=_photo(9),
        # The nationality stays Chile: only the document and the birth date change.
        identity={"rut": "12.345.678-5", "birth_date": born},
    )
    advertiser = db.exec(select(Advertiser).where(Advertiser.user_uid == owner.uid)).one()
    assert advertiser.rut == "11.111.111-1"  # nothing applies before the review
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport={"width": 1280, "height": 900})
    mine = context.new_page()
    try:
        context.add_cookies(
            [{"name": SESSION_COOKIE, "value": open_session(db, owner.uid), "url": site.url, "httpOnly": True}]
        )
        mine.goto(WIZARD)
        notice = mine.get_by_role("note").filter(has_text="Estos datos de identidad esperan revisión.")
        expect(notice).to_contain_text("Si rechazamos la publicación con la que los envías, se descartan.")

        page.goto(QUEUE)
        item = _item(page, "Ignacia Segunda")
        expect(item.get_by_role("heading", name="Identidad: aprobada y nueva")).to_be_visible()
        identity = item.get_by_role("table", name="Identidad")
        # Each field compared on its own: what changed is struck out beside its new value, the rest is left plain.
        nationality = identity.get_by_role("row").filter(has=page.get_by_role("rowheader", name="Nacionalidad"))
        expect(nationality.get_by_role("cell")).to_have_text(["Chile", "Chile"])
        for cell in (nationality.get_by_role("cell").nth(0), nationality.get_by_role("cell").nth(1)):
            expect(cell).not_to_have_css("text-decoration-line", "line-through")
        expect(nationality.get_by_role("deletion")).to_have_count(0)
        expect(nationality.get_by_role("insertion")).to_have_count(0)
        for row, approved, new in (
            ("Documento", "RUT 11.111.111-1", "RUT 12.345.678-5"),
            ("Fecha de nacimiento", f"15/01/{date.today().year - 30}", f"02/03/{date.today().year - 35}"),
        ):
            cells = identity.get_by_role("row").filter(has=page.get_by_role("rowheader", name=row)).get_by_role("cell")
            expect(cells.nth(0).get_by_role("deletion")).to_contain_text(approved)
            expect(cells.nth(0).get_by_role("deletion")).to_have_css("text-decoration-line", "line-through")
            expect(cells.nth(1).get_by_role("insertion")).to_contain_text(new)
        item.get_by_role("button", name="Aprobar").click()
        expect(page.get_by_text("Aprobaste «Ignacia Segunda».")).to_be_visible()

        db.refresh(advertiser)
        assert (advertiser.rut, advertiser.nationality) == ("12.345.678-5", "Chile")
        mine.reload()
        expect(mine.get_by_role("note").filter(has_text="Tu identidad ya fue revisada.")).to_be_visible()
        expect(mine.get_by_label("RUT", exact=True)).to_have_value("12.345.678-5")
    finally:
        context.close()
