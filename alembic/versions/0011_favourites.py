"""Favourites kept in an account, for users who choose to (issue 19 §2).

- favoritas_en_cuenta: one row per user who keeps their favourites in the account.
- favorita: the listings such a user keeps saved; deleted with the user, the listing, or the choice.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UID = sqlmodel.sql.sqltypes.AutoString(length=40)
UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "favoritas_en_cuenta",
        sa.Column("user_uid", UID, nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_uid"),
    )
    op.create_table(
        "favorita",
        sa.Column("user_uid", UID, nullable=False),
        sa.Column("listing_uid", UID, nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["listing_uid"], ["publicacion.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_uid", "listing_uid"),
    )
    with op.batch_alter_table("favorita", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_favorita_listing_uid"), ["listing_uid"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("favorita", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_favorita_listing_uid"))
    op.drop_table("favorita")
    op.drop_table("favoritas_en_cuenta")
