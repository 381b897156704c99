"""Texts of the business that the administrator sets from the staff pages (ajuste_sitio), one row per key.

Today one key: ``instrucciones_pago``, how to pay for an upgrade (bank transfer details and any other
method), shown to advertisers with each request's reference and amount. Changes are audited.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from app.models.base import utc_now


class SiteSetting(SQLModel, table=True):
    """ajuste_sitio: one text the administrator sets."""

    __tablename__ = "ajuste_sitio"

    key: str = Field(primary_key=True, max_length=40)
    value: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    updated_at: datetime = Field(default_factory=utc_now)
