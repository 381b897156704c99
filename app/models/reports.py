"""Reports sent through the public report form (trafficking, abuse, other).

The sender is anonymous; ``client_hash`` is a salted hash of the sender's
address, kept only to throttle repeated submissions.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from app.core.text import EMAIL_MAX
from app.models.base import new_uid, utc_now


class ReportKind(StrEnum):
    TRATA = "trata"
    MENOR = "menor"
    SIN_CONSENTIMIENTO = "sin_consentimiento"
    OTRO = "otro"


REPORT_KIND_LABELS: dict[ReportKind, str] = {
    ReportKind.TRATA: "Posible trata de personas o explotación",
    ReportKind.MENOR: "Posible persona menor de edad",
    ReportKind.SIN_CONSENTIMIENTO: "Fotos o datos publicados sin consentimiento",
    ReportKind.OTRO: "Otro problema",
}


class ReportStatus(StrEnum):
    NUEVO = "nuevo"
    EN_REVISION = "en_revision"
    CERRADO = "cerrado"


class Report(SQLModel, table=True):
    """reporte: one submission of the public report form, for staff."""

    __tablename__ = "reporte"

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    kind: str = Field(max_length=30)
    listing_uid: str | None = Field(default=None, foreign_key="publicacion.uid", max_length=40)
    message: str = Field(sa_column=Column(Text, nullable=False))
    contact: str = Field(default="", max_length=EMAIL_MAX)  # an e-mail address or a phone number
    status: str = Field(default=ReportStatus.NUEVO, max_length=12, index=True)
    client_hash: str = Field(default="", max_length=64, index=True)
    staff_notes: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utc_now, index=True)
    updated_at: datetime | None = None
