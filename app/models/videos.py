"""Listings' video clips (issue 35): the table, its statuses and their transitions, and the limits an upload keeps.

``publicacion_video``: one clip of a listing. Its row is written once the upload is complete and probed (so no
row ever stands for a half-received file): ``procesando`` until a worker has transcoded it, then ``lista``, or
``fallida`` with a Spanish ``failure`` the owner reads (they may retry or delete it). The original upload lives
in the PRIVATE storage under ``original_key`` until processing ends; what visitors get is ``video_key`` (an
H.264 MP4 in the public storage) and a poster stored like a photo (``poster_stem``, ``poster_widths``).

``approved`` works like ``ListingPhoto.approved``: False until staff approve the clip with its listing; only an
approved, ready clip is public, and ``publicacion.has_video`` (the Video tab, the card badge) is kept by the
database's triggers to say whether a listing has one (migration 0018).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.core.stored_values import StoredValue
from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString

# A listing shows at most this many clips.
CLIPS_PER_LISTING = 2
# The longest clip accepted, in seconds.
CLIP_MAX_SECONDS = 60
# The largest upload accepted, in bytes (200 MB).
CLIP_MAX_BYTES = 200 * 1024 * 1024
# The largest frame accepted: 4K from a phone is fine, 8K is refused (longer side, shorter side, in pixels).
CLIP_MAX_FRAME = (4096, 2304)
# What visitors get: an H.264 MP4 whose shorter side is at most this many pixels (720p).
CLIP_SERVED_HEIGHT = 720
# The message shown when processing failed, at most this long.
CLIP_FAILURE_MAX = 300


class ClipStatus(StrEnum):
    """Where a clip stands (stored values)."""

    PROCESANDO = "procesando"  # received and probed; a worker transcodes it
    LISTA = "lista"  # transcoded: the MP4 and its poster are stored
    FALLIDA = "fallida"  # processing refused or failed; the owner may retry or delete it


# Which status may follow which: a retry sends a failed clip back to processing.
CLIP_TRANSITIONS: frozenset[tuple[ClipStatus, ClipStatus]] = frozenset(
    {
        (ClipStatus.PROCESANDO, ClipStatus.LISTA),
        (ClipStatus.PROCESANDO, ClipStatus.FALLIDA),
        (ClipStatus.FALLIDA, ClipStatus.PROCESANDO),
    }
)


def clip_may_move(current: ClipStatus, new: ClipStatus) -> bool:
    """Whether a clip in ``current`` may become ``new`` (CLIP_TRANSITIONS)."""
    return (ClipStatus(current), ClipStatus(new)) in CLIP_TRANSITIONS


class ListingVideo(EnumColumns, SQLModel, table=True):
    """publicacion_video: one clip of a listing."""

    __tablename__ = "publicacion_video"
    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"status": ClipStatus}
    __table_args__ = (Index("ix_publicacion_video_listing", "listing_uid", "position"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", max_length=40)
    position: int = Field(default=0, ge=0)
    status: ClipStatus = Field(default=ClipStatus.PROCESANDO, sa_type=EnumString(ClipStatus, 12), nullable=False)
    approved: bool = Field(default=False, description="False until staff approve the clip with its listing.")
    original_key: str | None = Field(
        default=None, max_length=200, description="The upload in the private storage; deleted once processed."
    )
    video_key: str | None = Field(default=None, max_length=200, index=True, description="The served MP4 (public).")
    poster_stem: str | None = Field(
        default=None, max_length=160, index=True, description="The poster's keys are {stem}-{width}.webp."
    )
    poster_widths: str = Field(default="", max_length=40, description="The poster's stored widths, comma separated.")
    duration_s: float = Field(default=0.0, ge=0)
    width: int = Field(default=0, ge=0)
    height: int = Field(default=0, ge=0)
    failure: str = Field(default="", max_length=CLIP_FAILURE_MAX)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class ListingVideoPublic(SQLModel):
    """What the owner (and staff) see of a clip: its state, its addresses once ready, and why it failed."""

    uid: str
    listing_uid: str
    position: int
    status: ClipStatus
    approved: bool
    video_url: str
    poster_url: str
    duration_s: float
    width: int
    height: int
    failure: str


@dataclass(frozen=True)
class PublicClip(StoredValue):
    """An approved, ready clip as a visitor gets it on a listing's detail page (app.services.listings).

    ``label``: its accessible name ("Video de Ana (1 de 2)"); ``width`` and ``height``: the served MP4's frame,
    so the page keeps its place before anything loads. Frozen, as the detail that carries it (ListingCard).
    """

    video_url: str
    poster_url: str
    width: int
    height: int
    label: str
