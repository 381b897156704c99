"""The staff audit log (auditoria) and staff notes on reports.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-21 18:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "auditoria",
        sa.Column("uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("actor_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("entity", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("entity_uid", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("before_json", sa.Text(), nullable=False),
        sa.Column("after_json", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["actor_uid"], ["usuarios.uid"]),
        sa.PrimaryKeyConstraint("uid"),
    )
    with op.batch_alter_table("auditoria", schema=None) as batch_op:
        batch_op.create_index("ix_auditoria_actor", ["actor_uid", "created_at"], unique=False)
        batch_op.create_index("ix_auditoria_entity", ["entity", "entity_uid", "created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_auditoria_created_at"), ["created_at"], unique=False)
    with op.batch_alter_table("reporte", schema=None) as batch_op:
        batch_op.add_column(sa.Column("staff_notes", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reporte", schema=None) as batch_op:
        batch_op.drop_column("updated_at")
        batch_op.drop_column("staff_notes")
    with op.batch_alter_table("auditoria", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auditoria_created_at"))
        batch_op.drop_index("ix_auditoria_entity")
        batch_op.drop_index("ix_auditoria_actor")
    op.drop_table("auditoria")
