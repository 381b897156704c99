"""Privacy rights in self-service (issue 20 §2).

- exportacion_datos: the "Descargar mis datos" requests, their ZIP in the private storage and the
  digest of the e-mailed link's token;
- codigo_accion.new_email: the address an e-mail change (a code sent to it) changes the account to;
- auditoria.actor_uid loses its foreign key: a deleted account's audit entries stay under an
  anonymous id that names no user.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 14:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UID = sqlmodel.sql.sqltypes.AutoString(length=40)
UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime
# SQLite's foreign keys have no name: batch mode names them by this convention to drop one.
NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}
AUDIT_FK_SQLITE = "fk_auditoria_actor_uid_usuarios"
AUDIT_FK_POSTGRESQL = "auditoria_actor_uid_fkey"


def _audit_fk() -> str:
    return AUDIT_FK_POSTGRESQL if op.get_bind().dialect.name == "postgresql" else AUDIT_FK_SQLITE


def upgrade() -> None:
    with op.batch_alter_table("codigo_accion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("new_email", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True))
    with op.batch_alter_table("auditoria", schema=None, naming_convention=NAMING) as batch_op:
        batch_op.drop_constraint(_audit_fk(), type_="foreignkey")
    op.create_table(
        "exportacion_datos",
        sa.Column("uid", UID, nullable=False),
        sa.Column("user_uid", UID, nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("storage_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.Column("ready_at", UTC_DATETIME(), nullable=True),
        sa.Column("expires_at", UTC_DATETIME(), nullable=True),
        sa.ForeignKeyConstraint(["user_uid"], ["usuarios.uid"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("uid"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("exportacion_datos", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_exportacion_datos_user_uid"), ["user_uid"], unique=False)
        batch_op.create_index("ix_exportacion_datos_status", ["status", "expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("exportacion_datos", schema=None) as batch_op:
        batch_op.drop_index("ix_exportacion_datos_status")
        batch_op.drop_index(batch_op.f("ix_exportacion_datos_user_uid"))
    op.drop_table("exportacion_datos")
    with op.batch_alter_table("auditoria", schema=None, naming_convention=NAMING) as batch_op:
        batch_op.create_foreign_key(_audit_fk(), "usuarios", ["actor_uid"], ["uid"])
    with op.batch_alter_table("codigo_accion", schema=None) as batch_op:
        batch_op.drop_column("new_email")
