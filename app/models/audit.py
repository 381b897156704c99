"""The audit log of staff writes (auditoria): who changed which record, from what to what, when.

Written by ``app.services.staff.audit.record`` in the same transaction as the change
itself, so a write and its entry land together or not at all.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from app.models.base import new_uid, utc_now


class AuditEntry(SQLModel, table=True):
    """auditoria: one staff write."""

    __tablename__ = "auditoria"
    __table_args__ = (
        Index("ix_auditoria_actor", "actor_uid", "created_at"),
        Index("ix_auditoria_entity", "entity", "entity_uid", "created_at"),
    )

    uid: str = Field(default_factory=new_uid, primary_key=True, max_length=40)
    # No foreign key: when an account is deleted its entries stay, under an anonymous id (app.services.privacy).
    actor_uid: str = Field(max_length=40)
    action: str = Field(max_length=40, description="e.g. aprobar, rechazar, crear, editar, eliminar, banear.")
    entity: str = Field(max_length=40, description="The table's name, e.g. publicacion, usuarios.")
    entity_uid: str = Field(max_length=80)
    before_json: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    after_json: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    created_at: datetime = Field(default_factory=utc_now, index=True)
