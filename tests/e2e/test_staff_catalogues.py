"""Catalogues in a real browser: a catalogue entry in use refuses deletion.

An administrator tries to delete a servicioProfesor that a listing offers: the page says where it
is used, and the row stays; an unused one is deleted after the confirmation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import redis
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.db import make_engine
from app.identity.local import LocalProvider
from app.models import AdvertiserService, AuditEntry, ListingService, ProfileId
from app.services.abuse import REDIS_KEY_PREFIX
from tests.e2e.conftest import Site
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import make_account, make_listing, make_owner

pytestmark = pytest.mark.e2e


@pytest.fixture
def db(site: Site) -> Iterator[Session]:
    engine = make_engine(site.database_url)
    with Session(engine, expire_on_commit=False) as session:
        yield session
    engine.dispose()


@pytest.fixture(autouse=True)
def no_earlier_attempts(site: Site) -> None:
    """Every test signs in from 127.0.0.1: start without the failed attempts counted before."""
    store = redis.Redis.from_url(site.redis_url)
    for key in store.scan_iter(f"{REDIS_KEY_PREFIX}*"):
        store.delete(key)


def test_a_catalogue_entry_in_use_refuses_deletion(page: Page, site: Site, db: Session):
    provider = LocalProvider(engine=db.get_bind())
    make_account(db, provider, "jefa-catalogos@correo.cl", profile=ProfileId.ADMINISTRADOR, password=PASSWORD)
    used = AdvertiserService(name="Masaje en uso e2e")
    unused = AdvertiserService(name="Servicio sin uso e2e")
    db.add_all([used, unused])
    db.commit()
    # A draft in a city no other test counts: it offers the service without showing anywhere public.
    listing = make_listing(db, make_owner(db, "ofrece-servicio@correo.cl"), status="borrador", city="constitucion")
    db.add(ListingService(listing_uid=listing.uid, service_uid=used.uid))
    db.commit()

    sign_in(page, "jefa-catalogos@correo.cl")
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/escorts") + "/?$"))
    page.get_by_role("navigation", name="Administración").get_by_role("link", name="Servicios", exact=True).click()
    page.wait_for_url(re.compile(re.escape(f"{site.url}/admin/servicioProfesor") + "/?$"))
    expect(page.get_by_role("heading", name="Servicios de los anunciantes", level=1)).to_be_visible()
    page.get_by_label("Buscar").fill("e2e")
    page.get_by_role("button", name="Buscar").click()
    row = page.get_by_role("row").filter(has_text="Masaje en uso e2e")
    expect(row).to_have_count(1)

    row.get_by_role("button", name="Eliminar").click()
    question = page.get_by_role("alertdialog")
    expect(question).to_contain_text("Masaje en uso e2e")
    question.get_by_role("button", name="Sí, eliminar").click()
    expect(page.get_by_text("Este servicio está en 1 publicación.")).to_be_visible()
    expect(row).to_have_count(1)

    other = page.get_by_role("row").filter(has_text="Servicio sin uso e2e")
    other.get_by_role("button", name="Eliminar").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Sí, eliminar").click()
    expect(page.get_by_text("Eliminado.")).to_be_visible()
    expect(other).to_have_count(0)
    expect(row).to_have_count(1)

    used_uid, unused_uid = used.uid, unused.uid
    db.expunge_all()
    assert db.get(AdvertiserService, used_uid) is not None
    assert db.get(AdvertiserService, unused_uid) is None
    assert [e.action for e in db.exec(select(AuditEntry).where(AuditEntry.entity_uid.in_([used_uid, unused_uid])))] == [
        "eliminar"
    ]
