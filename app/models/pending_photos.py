"""Photos received but not yet processed (issue 37 §4): ``publicacion_foto_pendiente``.

An upload is stored as received in the PRIVATE storage (``raw_key``) and a row is written ``procesando`` with
the job that processes it (app.tasks, ``photos.process``). The job turns it into a ``publicacion_foto`` row of
the same uid and deletes this one and the raw file. A file the photo pipeline refuses (or one that could not be
processed after the last retry) becomes ``rechazada`` with a Spanish ``failure`` the owner reads in the wizard
and dismisses (``file_name`` says which file it was); its raw file is deleted at once.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString

# The message shown for a refused photo, at most this long.
PENDING_FAILURE_MAX = 300
# The uploaded file's name as its owner knows it (no folder), at most this long.
PENDING_NAME_MAX = 80


class PendingPhotoStatus(StrEnum):
    """Where a received photo stands (stored values)."""

    PROCESANDO = "procesando"  # stored as received; a worker processes it
    RECHAZADA = "rechazada"  # refused (or could not be processed): the owner reads why and dismisses it


class PendingPhoto(EnumColumns, SQLModel, table=True):
    """publicacion_foto_pendiente: one photo of a listing received and not yet (or never) processed."""

    __tablename__ = "publicacion_foto_pendiente"
    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"status": PendingPhotoStatus}
    __table_args__ = (Index("ix_publicacion_foto_pendiente_listing", "listing_uid", "created_at"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    listing_uid: str = Field(foreign_key="publicacion.uid", max_length=40)
    status: PendingPhotoStatus = Field(
        default=PendingPhotoStatus.PROCESANDO, sa_type=EnumString(PendingPhotoStatus, 12), nullable=False
    )
    raw_key: str | None = Field(
        default=None, max_length=200, description="The upload in the private storage; deleted once processed."
    )
    file_name: str = Field(default="", max_length=PENDING_NAME_MAX, description="Shown to its owner beside a refusal.")
    failure: str = Field(default="", max_length=PENDING_FAILURE_MAX)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class PendingPhotoPublic(SQLModel):
    """What the owner sees of a photo not processed yet: that it is processing, or why it was refused."""

    uid: str
    status: PendingPhotoStatus
    file_name: str
    failure: str
