"""E-mail notices to advertisers (aviso) and the ones each advertiser turned off (aviso_desactivado).

Every notice is recorded under a ``key`` naming the event it tells about (the review decided, the
upgrade that started, the listing that expires on a given day…). The key is unique, so a notice is
recorded once however many workers see the event; only the worker that recorded it sends it.
``status`` says whether it was handed to the mail queue or why not.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import ClassVar

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.content.notices import NoticeKind
from app.models.base import new_uid, utc_now
from app.models.types import EnumColumns, EnumString


class NoticeStatus(StrEnum):
    """What became of a recorded notice."""

    SENT = "enviado"  # handed to the mail queue after the commit
    OVER_LIMIT = "sobre_limite"  # the recipient's daily cap was reached: not sent
    TURNED_OFF = "desactivado"  # the advertiser turned this kind off: not sent
    QUEUE_FULL = "cola_llena"  # rows of before issue 35 only: the in-process mail queue refused it


class Notice(EnumColumns, SQLModel, table=True):
    """aviso: one notice to one user, recorded once per event."""

    __tablename__ = "aviso"
    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"kind": NoticeKind, "status": NoticeStatus}
    # The daily cap counts a recipient's notices of the last day.
    __table_args__ = (Index("ix_aviso_user_created", "user_uid", "created_at"),)

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    key: str = Field(max_length=160, unique=True, description="The event told about: one notice per key.")
    user_uid: str = Field(foreign_key="usuarios.uid", max_length=40, ondelete="CASCADE")
    kind: NoticeKind = Field(sa_type=EnumString(NoticeKind, 30), nullable=False)
    status: NoticeStatus = Field(sa_type=EnumString(NoticeStatus, 12), nullable=False)
    created_at: datetime = Field(default_factory=utc_now)


class NoticeOptOut(EnumColumns, SQLModel, table=True):
    """aviso_desactivado: a kind of optional notice a user does not want by e-mail."""

    __tablename__ = "aviso_desactivado"
    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {"kind": NoticeKind}

    user_uid: str = Field(foreign_key="usuarios.uid", primary_key=True, max_length=40, ondelete="CASCADE")
    kind: NoticeKind = Field(sa_type=EnumString(NoticeKind, 30), primary_key=True)
