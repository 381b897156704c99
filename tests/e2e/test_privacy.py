"""Mi cuenta in a real browser (issue 20 §2): an advertiser asks for their data, gets the link by e-mail, downloads
the ZIP and finds their own data and photos in it; then deletes the account, and the storage, the database
and the outbox show that nothing of it is left."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
import zipfile
from email.header import decode_header, make_header
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import Session, SQLModel, select

from app.identity.guards import HOME
from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE
from app.models import DataExport, Listing, ListingPhoto, ListingVerification, ProfileId, User
from app.routes import DATA_EXPORT_PREFIX, MY_ACCOUNT
from app.services import listing_photos, verification
from app.storage.local import LocalStorage, PrivateLocalStorage
from tests.e2e.conftest import CITY, Site
from tests.factories import make_account, make_listing, open_session
from tests.photo_samples import jpeg_with_gps

pytestmark = pytest.mark.e2e

PASSWORD = "clave-de-prueba-91"  # tests.factories.make_account's
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
    listing_photos.add_photo(
        session=db, storage=media, owner_uid=owner.uid, uid=listing.uid, data=jpeg_with_gps((900, 1200))
    )
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
    # The link is the owner's alone: a browser without the session gets nothing.
    stranger = page.context.browser.new_context(base_url=site.url)
    try:
        assert stranger.request.get(site.url + link.group(0)).status == 404
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
