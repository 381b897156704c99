"""Sign-in attempts move to atomic counters (app.services.abuse): drop intento_acceso.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 16:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('intento_acceso', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_intento_acceso_email'))
        batch_op.drop_index(batch_op.f('ix_intento_acceso_client_hash'))
        batch_op.drop_index(batch_op.f('ix_intento_acceso_at'))

    op.drop_table('intento_acceso')


def downgrade() -> None:
    op.create_table('intento_acceso',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('client_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('succeeded', sa.Boolean(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('intento_acceso', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_intento_acceso_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_intento_acceso_client_hash'), ['client_hash'], unique=False)
        batch_op.create_index(batch_op.f('ix_intento_acceso_email'), ['email'], unique=False)
