"""Accounts and sessions: local credentials, one-time codes, sessions, sign-in attempts.

Also links each user to their account at the identity provider (identity_uid).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 02:28:26.659783
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('credencial_local',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('password_hash', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('email_verified', sa.Boolean(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('password_changed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('credencial_local', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_credencial_local_email'), ['email'], unique=True)

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

    op.create_table('codigo_accion',
    sa.Column('code_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('credential_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('purpose', sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('used_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['credential_uid'], ['credencial_local.uid'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('code_hash')
    )
    with op.batch_alter_table('codigo_accion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_codigo_accion_credential_uid'), ['credential_uid'], unique=False)

    op.create_table('sesion',
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('user_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['user_uid'], ['usuarios.uid'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('token_hash')
    )
    with op.batch_alter_table('sesion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sesion_user_uid'), ['user_uid'], unique=False)

    with op.batch_alter_table('usuarios', schema=None) as batch_op:
        batch_op.add_column(sa.Column('identity_uid', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True))
        batch_op.create_unique_constraint('uq_usuarios_identity_uid', ['identity_uid'])



def downgrade() -> None:
    with op.batch_alter_table('usuarios', schema=None) as batch_op:
        batch_op.drop_constraint('uq_usuarios_identity_uid', type_='unique')
        batch_op.drop_column('identity_uid')

    with op.batch_alter_table('sesion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sesion_user_uid'))

    op.drop_table('sesion')
    with op.batch_alter_table('codigo_accion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_codigo_accion_credential_uid'))

    op.drop_table('codigo_accion')
    with op.batch_alter_table('intento_acceso', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_intento_acceso_email'))
        batch_op.drop_index(batch_op.f('ix_intento_acceso_client_hash'))
        batch_op.drop_index(batch_op.f('ix_intento_acceso_at'))

    op.drop_table('intento_acceso')
    with op.batch_alter_table('credencial_local', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_credencial_local_email'))

    op.drop_table('credencial_local')
