"""Indexes for the city page's filters (comuna, hourly rate, age, services).

- ix_publicacion_city_commune: a city's listings of one commune in tier order (the commune's page,
  and any filter with a commune), carrying rate and age (its count reads no table rows), and the
  communes a city's filter offers (GROUP BY commune).
- ix_publicacion_city_filters: a city's listings in tier order carrying the hourly rate, age and
  commune: the page of a rate or age filter is read in order and checked in the index.
- ix_publicacion_city_price: a city's listings by hourly rate: the count of a rate filter reads
  only that range of the index.
- ix_publicacion_servicio_service: the listings that offer a service (the services filter).

Revision ID: 0010
Revises: 0008
Create Date: 2026-11-26 11:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIER_ORDER = ["tier_rank", sa.text("ranked_at DESC"), sa.text("uid DESC")]


def upgrade() -> None:
    op.create_index(
        "ix_publicacion_city_commune",
        "publicacion",
        ["status", "section", "city_slug", "commune", *TIER_ORDER, "owner_uid", "price_hour_clp", "age"],
    )
    op.create_index(
        "ix_publicacion_city_filters",
        "publicacion",
        ["status", "section", "city_slug", *TIER_ORDER, "owner_uid", "price_hour_clp", "age", "commune"],
    )
    op.create_index(
        "ix_publicacion_city_price",
        "publicacion",
        ["status", "section", "city_slug", "price_hour_clp", "age", "owner_uid"],
    )
    op.create_index("ix_publicacion_servicio_service", "publicacion_servicio", ["service_uid", "listing_uid"])


def downgrade() -> None:
    op.drop_index("ix_publicacion_servicio_service", table_name="publicacion_servicio")
    op.drop_index("ix_publicacion_city_price", table_name="publicacion")
    op.drop_index("ix_publicacion_city_filters", table_name="publicacion")
    op.drop_index("ix_publicacion_city_commune", table_name="publicacion")
