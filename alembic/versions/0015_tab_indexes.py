"""The filter tabs in the city-page indexes (issue 19 §1, the filtered city query's speed).

A tab's condition (Culonas, Disponible ahora, Video...) was in no index: its count read each listing of
the city from the table, 15-35 ms at 500,000 listings (docs/performance.md).

- ix_publicacion_city_filters, ix_publicacion_city_commune and ix_publicacion_city_price carry every
  column a tab checks (app.models.listings.TAB_COLUMNS), so a tab's count stays in the index; the price
  index also carries the commune and the services, so a rate range's count needs nothing else.
- Partial indexes, in tier order, for the tabs few listings match: Estrellas XXX (porn_actress),
  Disponible ahora (available_until set) and De pasada (visiting_until set). Their page and count walk
  only those listings instead of the whole city.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 23:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out (not imported from app.models): a migration keeps the schema of its own day.
CITY = ["status", "section", "city_slug"]
TIER_ORDER = ["tier_rank", sa.text("ranked_at DESC"), sa.text("uid DESC")]
CHECKED = ["owner_uid", "price_hour_clp", "age", "commune", "service_uids"]
TABS = [
    "curvy",
    "porn_actress",
    "verified",
    "has_video",
    "available_until",
    "visiting_from",
    "visiting_until",
    "published_at",
    "vip_until",
    "tier_uid",
]
COMMUNE_0014 = [*CITY, "commune", *TIER_ORDER, "owner_uid", "price_hour_clp", "age", "service_uids"]
FILTERS_0014 = [*CITY, *TIER_ORDER, *CHECKED]
PRICE_0014 = [*CITY, "price_hour_clp", "age", "owner_uid"]
PARTIAL = {
    "ix_publicacion_city_porn": ([], "porn_actress"),
    "ix_publicacion_city_available": (["available_until"], "available_until IS NOT NULL"),
    "ix_publicacion_city_visiting": (["visiting_from", "visiting_until"], "visiting_until IS NOT NULL"),
}


def _replace(name: str, columns: list) -> None:
    op.drop_index(name, table_name="publicacion")
    op.create_index(name, "publicacion", columns)


def upgrade() -> None:
    _replace("ix_publicacion_city_filters", [*FILTERS_0014, *TABS])
    _replace("ix_publicacion_city_commune", [*COMMUNE_0014, *TABS])
    _replace("ix_publicacion_city_price", [*PRICE_0014, "commune", "service_uids", *TABS])
    for name, (columns, where) in PARTIAL.items():
        condition = sa.text(where)
        op.create_index(
            name,
            "publicacion",
            [*CITY, *TIER_ORDER, *CHECKED, *columns],
            postgresql_where=condition,
            sqlite_where=condition,
        )


def downgrade() -> None:
    for name in PARTIAL:
        op.drop_index(name, table_name="publicacion")
    _replace("ix_publicacion_city_price", PRICE_0014)
    _replace("ix_publicacion_city_commune", COMMUNE_0014)
    _replace("ix_publicacion_city_filters", FILTERS_0014)
