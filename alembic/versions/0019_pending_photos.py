"""Photos processed on the task queue (issue 37 §4): publicacion_foto_pendiente.

One row per photo received and not processed yet (``procesando``, its raw file's key in the private storage),
or refused by the photo pipeline (``rechazada``, with the Spanish reason its owner reads and dismisses).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28 20:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UID = sqlmodel.sql.sqltypes.AutoString(length=40)
UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "publicacion_foto_pendiente",
        sa.Column("uid", UID, nullable=False),
        sa.Column("listing_uid", UID, nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("raw_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("failure", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME(), nullable=False),
        sa.ForeignKeyConstraint(["listing_uid"], ["publicacion.uid"]),
        sa.PrimaryKeyConstraint("uid"),
    )
    op.create_index(
        "ix_publicacion_foto_pendiente_listing", "publicacion_foto_pendiente", ["listing_uid", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_publicacion_foto_pendiente_listing", table_name="publicacion_foto_pendiente")
    op.drop_table("publicacion_foto_pendiente")
