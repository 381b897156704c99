"""A listing's services on its row, in the filter indexes (issue 19 §1, the services filter's speed).

- publicacion.service_uids: the services of publicacion_servicio again, " uid1 uid2 " (sorted, each between
  spaces; app.models.listings.services_text), filled from publicacion_servicio here; from now on
  app.services.listing_revisions.set_services writes both.
- ix_publicacion_city_filters and ix_publicacion_city_commune carry it: a services filter is checked in the
  index, in tier order, instead of probing publicacion_servicio for every listing of the city.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIER_ORDER = ["tier_rank", sa.text("ranked_at DESC"), sa.text("uid DESC")]
COMMUNE = ["status", "section", "city_slug", "commune", *TIER_ORDER, "owner_uid", "price_hour_clp", "age"]
FILTERS = ["status", "section", "city_slug", *TIER_ORDER, "owner_uid", "price_hour_clp", "age", "commune"]


def _backfill() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        joined = "string_agg(s.service_uid, ' ' ORDER BY s.service_uid)"
        source = "publicacion_servicio s"
    else:  # SQLite's group_concat follows the order of its (sorted) source rows
        joined = "group_concat(s.service_uid, ' ')"
        source = "(SELECT listing_uid, service_uid FROM publicacion_servicio ORDER BY listing_uid, service_uid) s"
    op.execute(
        f"UPDATE publicacion SET service_uids = ' ' || ("  # noqa: S608 (no input: constant SQL)
        f"SELECT {joined} FROM {source} WHERE s.listing_uid = publicacion.uid) || ' ' "
        "WHERE uid IN (SELECT listing_uid FROM publicacion_servicio)"
    )


def upgrade() -> None:
    op.add_column("publicacion", sa.Column("service_uids", sa.Text(), nullable=False, server_default=""))
    _backfill()
    op.drop_index("ix_publicacion_city_filters", table_name="publicacion")
    op.drop_index("ix_publicacion_city_commune", table_name="publicacion")
    op.create_index("ix_publicacion_city_commune", "publicacion", [*COMMUNE, "service_uids"])
    op.create_index("ix_publicacion_city_filters", "publicacion", [*FILTERS, "service_uids"])


def downgrade() -> None:
    op.drop_index("ix_publicacion_city_filters", table_name="publicacion")
    op.drop_index("ix_publicacion_city_commune", table_name="publicacion")
    # ALTER TABLE ... DROP COLUMN on SQLite too (3.35+): a batch copy of publicacion would trip its foreign keys.
    op.drop_column("publicacion", "service_uids")
    op.create_index("ix_publicacion_city_commune", "publicacion", COMMUNE)
    op.create_index("ix_publicacion_city_filters", "publicacion", FILTERS)
