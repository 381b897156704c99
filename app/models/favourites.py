"""Favourites kept in an account: only for users who chose to keep them there (issue 19 §2).

By default a visitor's favourites live in their browser alone and never reach the
server. ``favoritas_en_cuenta`` records that a user chose to keep them in the
account (the switch on the Favoritas page); ``favorita`` holds that user's saved
listings while the choice stands. Turning it off deletes both. Nobody but the user
reads these rows: no staff page, log or other account's export shows them (the account's own
data export does, app.services.privacy); the advertiser sees only
how many accounts keep a listing saved (``app.services.favourites.saves_by_listing``).
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from app.models.base import utc_now


class FavouritesInAccount(SQLModel, table=True):
    """favoritas_en_cuenta: a user who keeps their favourites in the account (one row per user)."""

    __tablename__ = "favoritas_en_cuenta"

    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", primary_key=True, max_length=40)
    created_at: datetime = Field(default_factory=utc_now)


class Favourite(SQLModel, table=True):
    """favorita: one listing an account keeps saved (only while the user keeps favourites in the account)."""

    __tablename__ = "favorita"

    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", primary_key=True, max_length=40)
    # Indexed for the advertiser's aggregate count of saves per listing.
    listing_uid: str = Field(
        foreign_key="publicacion.uid", ondelete="CASCADE", primary_key=True, index=True, max_length=40
    )
    created_at: datetime = Field(default_factory=utc_now)
