"""Mi cuenta in a real browser (issue 20 §2): an advertiser asks for their data, gets the link by e-mail, downloads
the ZIP and finds their own data and photos in it; then deletes the account, and the storage, the database
and the outbox show that nothing of it is left."""

from __future__ import annotations

import hashlib
import io
import json
import re
import secrets
import time
import uuid
import zipfile
from datetime import timedelta
from email.header import decode_header, make_header
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlmodel import Session, SQLModel, select

from app.identity.guards import HOME
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import DataExport, ExportStatus, Listing, ListingPhoto, ListingVerification, ProfileId, User, utc_now
from app.routes import DATA_EXPORT_PREFIX, MY_ACCOUNT
from app.services import listing_photos, verification
from app.settings import get_settings
from app.storage.local import LocalStorage, PrivateLocalStorage
from tests.e2e.axe import serious_violations
from tests.e2e.conftest import CITY, Site
from tests.factories import add_photo, make_account, make_listing, open_session
from tests.photo_samples import jpeg_with_gps

pytestmark = pytest.mark.e2e

PASSWORD = "clave-de-prueba-91"  # tests.factories.make_account's
PHONE = {"width": 390, "height": 844}
MAIL_WAIT_S = 90
LINK = re.compile(re.escape(DATA_EXPORT_PREFIX) + r"/[A-Za-z0-9_-]+")


def _subject(message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def _wait_for_mail(site: Site, email: str, after: int, subject_part: str):
    """The first message to ``email`` past the first ``after`` whose subject says ``subject_part``."""
    deadline = time.monotonic() + MAIL_WAIT_S
    while time.monotonic() < deadline:
        for message in site.mailbox.to(email)[after:]:
            if subject_part in _subject(message):
                return message
        time.sleep(0.25)
    raise AssertionError(f"no e-mail «{subject_part}» to {email} within {MAIL_WAIT_S} s")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()} if root.exists() else set()


def _sign_in(db: Session, context: BrowserContext, site: Site, user: User) -> None:
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": open_session(db, user.uid), "url": site.url, "httpOnly": True}]
    )


def test_download_my_data_then_delete_my_account(page: Page, site: Site, db: Session):
    folder = site.log_path.parent
    media, private = LocalStorage(folder / "media"), PrivateLocalStorage(folder / "private")
    email = f"privada-{uuid.uuid4().hex[:8]}@example.cl"
    owner = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=ProfileId.PROFESOR)
    listing = make_listing(db, owner, name="Privadina", city=CITY, photos=0, phone="+56 9 7000 0001")
    add_photo(session=db, storage=media, owner_uid=owner.uid, uid=listing.uid, data=jpeg_with_gps((900, 1200)))
    verification.request_verification(
        session=db, storage=private, owner_uid=owner.uid, listing_uid=listing.uid, data=jpeg_with_gps((900, 1200))
    )
    photo = db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid)).one()
    variants = listing_photos.photo_variant_keys(photo)  # narrowest first
    photo_keys = set(variants)
    owner_uid, listing_uid = owner.uid, listing.uid
    verification_key = db.exec(
        select(ListingVerification.storage_key).where(ListingVerification.listing_uid == listing.uid)
    ).one()
    assert photo_keys <= _files(media.root) and verification_key in _files(private.root)
    _sign_in(db, page.context, site, owner)
    mails_before = len(site.mailbox.to(email))

    # Download my data: asked for on the page, built in the background, its link e-mailed.
    page.goto(MY_ACCOUNT)
    expect(page.get_by_role("heading", name="Mi cuenta", level=1)).to_be_visible()
    page.get_by_role("button", name="Pedir mis datos").click()
    expect(page.get_by_role("status").filter(has_text="Estamos preparando tu archivo")).to_be_visible()
    mail = _wait_for_mail(site, email, mails_before, "están listos")
    body = mail.get_payload(decode=True).decode()
    link = LINK.search(body)
    assert link, body
    download = page.request.get(site.url + link.group(0))
    assert download.status == 200
    assert download.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(download.body()))
    exported = json.loads(archive.read("datos.json"))
    assert exported["cuenta"]["email"] == email
    (mine,) = exported["publicaciones"]
    assert mine["uid"] == listing.uid and mine["phone"] == "+56 9 7000 0001"
    assert archive.read(mine["fotos"][0]["archivo"]) == media.get(variants[-1])
    assert archive.read(mine["verificaciones"][0]["archivo"]) == private.get(verification_key)
    assert any(key.startswith("exportaciones/") for key in _files(private.root))
    # Nobody else's data: the seeded advertiser's listings are not in it.
    assert "duena@example.cl" not in archive.read("datos.json").decode()
    # The link is the owner's alone: a browser without the session gets only the page asking to sign in.
    stranger = page.context.browser.new_context(base_url=site.url)
    try:
        refused = stranger.request.get(site.url + link.group(0))
        assert refused.status == 403 and refused.headers["content-type"].startswith("text/html")
        assert "Inicia sesión para descargar tus datos" in refused.text()
    finally:
        stranger.close()

    # Delete my account: the password and the confirmation, then signed out at home.
    page.reload()
    expect(page.get_by_role("heading", name="Mi cuenta", level=1)).to_be_visible()
    form = page.get_by_role("form", name="Eliminar mi cuenta")
    form.get_by_label("Tu contraseña").fill(PASSWORD)
    form.get_by_label("Entiendo que mi cuenta y mis datos se eliminan para siempre.").check()
    form.get_by_role("button", name="Eliminar mi cuenta").click()
    page.wait_for_url(re.compile(re.escape(site.url + HOME) + "/?$"))
    expect(page.get_by_text("Eliminamos tu cuenta con todos sus datos y fotos.")).to_be_visible()
    expect(page.get_by_role("link", name="Ingresar")).to_be_visible()

    # The outbox: a farewell to the address.
    farewell = _wait_for_mail(site, email, mails_before + 1, "Eliminamos tu cuenta")
    assert email in farewell["To"]
    # The storage: the photo's files, the verification photo and the export's ZIP are gone.
    assert photo_keys.isdisjoint(_files(media.root))
    assert verification_key not in _files(private.root)
    assert not any(key.startswith("exportaciones/") for key in _files(private.root))
    # The database: no row of any table names the account, its address or its listing.
    db.expire_all()
    assert db.get(User, owner_uid) is None and db.get(Listing, listing_uid) is None
    assert db.exec(select(DataExport).where(DataExport.user_uid == owner_uid)).all() == []
    for table in SQLModel.metadata.sorted_tables:
        for row in db.execute(select(table)).all():
            line = " ".join(str(value) for value in row)
            for needle in (owner_uid, email, listing_uid):
                assert needle not in line, f"{table.name} still names the account: {line}"


def _ready_export(db: Session, private: PrivateLocalStorage, owner: User) -> tuple[str, bytes]:
    """A built export of ``owner``'s in the site's private storage, as the job leaves it: its link's token and ZIP."""
    token = secrets.token_urlsafe(32)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("datos.json", json.dumps({"cuenta": {"email": owner.email}}))
    export = DataExport(
        user_uid=owner.uid, status=ExportStatus.READY, token_hash=hashlib.sha256(token.encode()).hexdigest()
    )
    export.storage_key = f"exportaciones/{export.uid[:2]}/{export.uid}.zip"
    export.ready_at = utc_now()
    export.expires_at = export.ready_at + timedelta(hours=48)
    private.put(export.storage_key, buffer.getvalue(), "application/zip")
    db.add(export)
    db.commit()
    return token, buffer.getvalue()


def test_a_data_link_opened_signed_out_on_a_phone_signs_in_and_downloads(browser: Browser, site: Site, db: Session):
    email = f"telefono-{uuid.uuid4().hex[:8]}@example.cl"
    owner = make_account(db, LocalProvider(engine=db.get_bind()), email, profile=ProfileId.PROFESOR)
    token, archive = _ready_export(db, PrivateLocalStorage(site.log_path.parent / "private"), owner)
    # CSP bypassed for axe-core alone (tests/e2e/test_accessibility.py).
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE, bypass_csp=True)
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        # The e-mailed link, read on a phone without a session: the site's page says why, and how.
        page.goto(f"{DATA_EXPORT_PREFIX}/{token}")
        expect(page.get_by_role("heading", name="Inicia sesión para descargar tus datos", level=1)).to_be_visible()
        expect(
            page.get_by_role("navigation", name="Principal").get_by_role("link", name=get_settings().site_name)
        ).to_be_visible()
        expect(page.get_by_text("no es válido")).to_have_count(0)
        found = serious_violations(page, "sin sesión")
        page.get_by_role("link", name="Ingresar y descargar").click()
        # /login's address (copied into the tab's state) does not carry the link's token.
        expect(page).to_have_url(re.compile(re.escape(f"/login?volver={DATA_EXPORT_PREFIX}") + "$"))

        # Sign in: the browser comes back to the link, and this time the file comes.
        form = page.get_by_role("form", name="Ingresar")
        expect(form.get_by_role("button", name="Ingresar")).to_be_enabled()  # the page is live
        form.get_by_label("Correo electrónico").fill(email)
        form.get_by_label("Contraseña").fill(PASSWORD)
        with page.expect_download() as download:
            form.get_by_role("button", name="Ingresar").click()
        assert download.value.suggested_filename == "mis-datos.zip"
        assert Path(download.value.path()).read_bytes() == archive
        # Under it, the site's page says so and offers the file again, not the sign-in form.
        expect(page.get_by_role("heading", name="Tu descarga está comenzando", level=1)).to_be_visible()
        expect(page.get_by_role("link", name="Descargar mis datos")).to_be_visible()
        found += serious_violations(page, "descarga")

        # A link that is really not valid says so, on the site's page, signed in.
        page.goto(f"{DATA_EXPORT_PREFIX}/{secrets.token_urlsafe(32)}")
        expect(page.get_by_role("heading", name="Este enlace no es válido o ya venció", level=1)).to_be_visible()
        expect(page.get_by_role("link", name="Ir a Mi cuenta")).to_be_visible()
        found += serious_violations(page, "enlace no válido")
        assert not found, "\n".join(found)
    finally:
        context.close()
