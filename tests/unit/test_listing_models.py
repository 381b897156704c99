"""Listing schemas and status columns: enum values in, the same stored strings underneath."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from sqlalchemy import text
from sqlmodel import select

from app.models import (
    Listing,
    ListingCreate,
    ListingPhotoPublic,
    ListingPublic,
    ListingStatus,
    ListingUpdate,
    ListingUpgrade,
    ListingUpgradeCreate,
    ListingUpgradePublic,
    Section,
    UpgradeStatus,
)
from tests.factories import make_listing, make_owner


def test_status_is_stored_as_the_same_string_and_read_back_as_the_enum(session):
    owner = make_owner(session, "duena@example.cl")
    listing = make_listing(session, owner, status="pausada", section="trans")
    assert listing.status is ListingStatus.PAUSADA
    assert listing.section is Section.TRANS

    raw = session.execute(text("SELECT status, section FROM publicacion WHERE uid = :uid"), {"uid": listing.uid})
    assert raw.one() == ("pausada", "trans")

    session.expunge_all()
    again = session.exec(select(Listing).where(Listing.status == ListingStatus.PAUSADA)).one()
    assert again.status is ListingStatus.PAUSADA
    assert again.section is Section.TRANS
    # Queries written with plain strings keep working.
    assert session.exec(select(Listing.uid).where(Listing.status == "pausada")).one() == listing.uid


def test_an_unknown_status_is_refused_before_the_database(session):
    owner = make_owner(session, "duena@example.cl")
    listing = make_listing(session, owner)
    with pytest.raises(ValueError):
        listing.status = "archivada"
    with pytest.raises(ValueError):
        ListingUpgrade(
            listing_uid=listing.uid, app_service_uid="x", requested_by_uid=owner.uid, amount_clp=0, status="x"
        )


def test_new_rows_default_to_the_first_status():
    upgrade = ListingUpgrade(listing_uid="l", app_service_uid="s", requested_by_uid="u", amount_clp=1000)
    assert upgrade.status is UpgradeStatus.SOLICITADA


def _create_data(**changes):
    data = {
        "city_slug": "santiago-de-chile",
        "tier_uid": "tier",
        "display_name": "Valentina",
        "age": 25,
        "price_hour_clp": 80000,
    }
    return {**data, **changes}


def test_create_validates_the_advertiser_fields():
    created = ListingCreate.model_validate(_create_data(section="trans"))
    assert created.section is Section.TRANS
    for bad in ({"age": 17}, {"section": "hombres"}, {"price_hour_clp": -1}, {"description": "x" * 4001}):
        with pytest.raises(ValidationError):
            ListingCreate.model_validate(_create_data(**bad))
    # Columns the service owns are not part of the input.
    assert not {"status", "owner_uid", "verified", "tier_rank", "uid"} & set(ListingCreate.model_fields)


def test_update_writes_only_what_was_set():
    update = ListingUpdate.model_validate({"display_name": "Camila"})
    assert update.model_dump(exclude_unset=True) == {"display_name": "Camila"}
    assert "status" not in ListingUpdate.model_fields
    with pytest.raises(ValidationError):
        ListingUpdate.model_validate({"age": 12})


def test_public_views_leave_internal_columns_out(session):
    owner = make_owner(session, "duena@example.cl")
    listing = make_listing(session, owner, status="publicada")
    public = ListingPublic.model_validate(listing)
    assert public.status is ListingStatus.PUBLICADA
    assert public.uid == listing.uid
    assert not {"owner_uid", "tier_rank"} & set(ListingPublic.model_fields)
    assert set(ListingPhotoPublic.model_fields) >= {"uid", "listing_uid", "position", "path"}
    assert "status" in ListingUpgradePublic.model_fields
    assert not {"status", "amount_clp", "requested_by_uid"} & set(ListingUpgradeCreate.model_fields)
