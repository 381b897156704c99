"""Staff second factor (issue 20 §1): TOTP secrets, recovery codes, and sessions that passed it.

- segundo_factor: one encrypted TOTP secret per staff user, its confirmation and the last accepted step.
- codigo_recuperacion: ten single-use recovery codes per staff user, argon2-hashed.
- sesion.second_factor_at / ticket_sesion.second_factor_at: a staff session grants staff rights only once set.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 14:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UID = sqlmodel.sql.sqltypes.AutoString(length=40)
UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "segundo_factor",
        sa.Column("user_uid", UID, nullable=False),
        sa.Column("secret_encrypted", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.Column("confirmed_at", UTC_DATETIME(), nullable=True),
        sa.Column("last_step", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_uid"),
    )
    op.create_table(
        "codigo_recuperacion",
        sa.Column("uid", UID, nullable=False),
        sa.Column("user_uid", UID, nullable=False),
        sa.Column("code_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.Column("used_at", UTC_DATETIME(), nullable=True),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("uid"),
    )
    with op.batch_alter_table("codigo_recuperacion", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_codigo_recuperacion_user_uid"), ["user_uid"], unique=False)
    with op.batch_alter_table("sesion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("second_factor_at", UTC_DATETIME(), nullable=True))
    with op.batch_alter_table("ticket_sesion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("second_factor_at", UTC_DATETIME(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ticket_sesion", schema=None) as batch_op:
        batch_op.drop_column("second_factor_at")
    with op.batch_alter_table("sesion", schema=None) as batch_op:
        batch_op.drop_column("second_factor_at")
    with op.batch_alter_table("codigo_recuperacion", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_codigo_recuperacion_user_uid"))
    op.drop_table("codigo_recuperacion")
    op.drop_table("segundo_factor")
