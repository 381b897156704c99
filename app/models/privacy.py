"""Exports of an account's data (issue 20 §2): the ZIP its owner asked for, and the link to it.

``exportacion_datos``: one request of "Descargar mis datos". A background job builds the ZIP
into the private storage (``storage_key``) and e-mails a link carrying a random token; only the
token's SHA-256 digest is kept (``token_hash``). The link works until ``expires_at`` (48 hours
after it was sent), for the signed-in owner only; then the job deletes the file and the row.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString


class ExportStatus(StrEnum):
    """Where a data export stands."""

    PENDING = "pendiente"  # asked for; the job has not built it yet
    READY = "lista"  # built, stored and e-mailed


class DataExport(EnumColumns, SQLModel, table=True):
    """exportacion_datos: one "Descargar mis datos" request."""

    __tablename__ = "exportacion_datos"
    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"status": ExportStatus}
    # The job's two queries: the pending requests, and the ready ones whose link expired.
    __table_args__ = (Index("ix_exportacion_datos_status", "status", "expires_at"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    user_uid: str = Field(foreign_key="usuarios.uid", ondelete="CASCADE", index=True, max_length=40)
    status: ExportStatus = Field(default=ExportStatus.PENDING, sa_type=EnumString(ExportStatus, 12), nullable=False)
    token_hash: str | None = Field(default=None, max_length=64, unique=True, description="SHA-256 of the link's token.")
    storage_key: str | None = Field(default=None, max_length=200, description="The ZIP in the private storage.")
    created_at: datetime = Field(default_factory=utc_now)
    ready_at: datetime | None = None
    expires_at: datetime | None = None
