"""Sessions in HttpOnly cookies: single-use sign-in tickets, idle expiry.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('ticket_sesion',
    sa.Column('ticket_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('user_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['user_uid'], ['usuarios.uid'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('ticket_hash')
    )
    with op.batch_alter_table('ticket_sesion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_ticket_sesion_user_uid'), ['user_uid'], unique=False)

    with op.batch_alter_table('sesion', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_seen_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.execute("UPDATE sesion SET last_seen_at = created_at")
    with op.batch_alter_table('sesion', schema=None) as batch_op:
        batch_op.alter_column('last_seen_at', nullable=False)
        batch_op.create_index(batch_op.f('ix_sesion_expires_at'), ['expires_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('sesion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sesion_expires_at'))
        batch_op.drop_column('last_seen_at')

    with op.batch_alter_table('ticket_sesion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_ticket_sesion_user_uid'))

    op.drop_table('ticket_sesion')
