"""A listing's services are kept twice, in publicacion_servicio (the detail) and on its row (``service_uids``,
what the city page's services filter reads in its index): the two never disagree. One function writes both
(app.services.listing_revisions.set_services), the demo data writes both, and nothing else in app/ writes
either; the wizard, the review of an edit and the copy to another city check it in their own tests
(test_my_listings.py, test_reviews_versions.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from sqlmodel import Session, select

from app.models import AdvertiserService, Listing
from app.models.listings import services_text
from app.seed import seed
from app.services import listing_revisions
from app.storage.local import LocalStorage
from tests.factories import make_listing, make_owner, services_disagreeing

APP = Path(__file__).resolve().parents[2] / "app"
WRITER = APP / "services" / "listing_revisions.py"
SEED = APP / "seed.py"
BULK = {"insert", "_bulk", "update"}


def test_set_services_writes_both_places_and_replaces_the_old_ones(db: Session):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner)
    a, b, c = (AdvertiserService(name=name) for name in ("Masajes", "Viajes", "Cena"))
    db.add_all([a, b, c])
    db.commit()
    listing_revisions.set_services(db, listing, [b.uid, a.uid, b.uid])
    db.commit()
    assert db.get(Listing, listing.uid).service_uids == services_text([a.uid, b.uid])
    assert services_disagreeing(db) == []
    listing_revisions.set_services(db, listing, [c.uid])
    db.commit()
    assert db.get(Listing, listing.uid).service_uids == f" {c.uid} "
    listing_revisions.set_services(db, listing, [])
    db.commit()
    assert db.get(Listing, listing.uid).service_uids == "" and services_disagreeing(db) == []


def test_the_demo_data_writes_both_places(db: Session, tmp_path):
    seed(session=db, listings=60, storage=LocalStorage(tmp_path / "media"))
    assert services_disagreeing(db) == []
    assert all(db.exec(select(Listing.service_uids)))  # 2-5 services each


def _writes(path: Path) -> list[str]:
    """Where ``path`` makes publicacion_servicio rows or sets a listing's ``service_uids``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ListingService":
            found.append(f"{path.name}:{node.lineno} ListingService(...)")
        bulk = isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in BULK
        if bulk and any(getattr(arg, "id", None) == "ListingService" for arg in node.args):
            found.append(f"{path.name}:{node.lineno} bulk write")
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(target, ast.Attribute) and target.attr == "service_uids" for target in targets):
                found.append(f"{path.name}:{node.lineno} .service_uids =")
    return found


def test_nothing_else_in_the_app_writes_either_place():
    writers = {path: _writes(path) for path in APP.rglob("*.py")}
    assert {path for path, found in writers.items() if found} == {WRITER, SEED}
    assert len(writers[WRITER]) == 2  # set_services: the rows, the column
    assert len(writers[SEED]) == 1  # the demo data's bulk rows (and their column: the test above)
