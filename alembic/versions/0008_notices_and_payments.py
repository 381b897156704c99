"""E-mail notices to advertisers (issue 19 §3).

- aviso: one row per notice, unique by the event it tells about (key), with what became of it;
- aviso_desactivado: the optional notices each user turned off.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime
AUTO_STRING = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    op.create_table(
        "aviso",
        sa.Column("uid", AUTO_STRING(length=40), nullable=False),
        sa.Column("key", AUTO_STRING(length=160), nullable=False),
        sa.Column("user_uid", AUTO_STRING(length=40), nullable=False),
        sa.Column("kind", AUTO_STRING(length=30), nullable=False),
        sa.Column("status", AUTO_STRING(length=12), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("uid"),
        sa.UniqueConstraint("key"),
    )
    op.create_index("ix_aviso_user_created", "aviso", ["user_uid", "created_at"], unique=False)
    op.create_table(
        "aviso_desactivado",
        sa.Column("user_uid", AUTO_STRING(length=40), nullable=False),
        sa.Column("kind", AUTO_STRING(length=30), nullable=False),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_uid", "kind"),
    )


def downgrade() -> None:
    op.drop_table("aviso_desactivado")
    op.drop_index("ix_aviso_user_created", table_name="aviso")
    op.drop_table("aviso")
