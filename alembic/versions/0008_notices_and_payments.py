"""E-mail notices to advertisers and how to pay for an upgrade (issue 19 §3 and §4).

- aviso: one row per notice, unique by the event it tells about (key), with what became of it;
- aviso_desactivado: the optional notices each user turned off;
- mejoras_publicacion.payment_code: each request's payment reference, unique (existing rows get one);
- ajuste_sitio: texts the administrator sets (the payment instructions).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26 11:30:00
"""

from collections.abc import Sequence

import secrets

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime
AUTO_STRING = sqlmodel.sql.sqltypes.AutoString
# As app.core.payment_codes (copied: a migration does not change when the app does).
CODE_ALPHABET = "34679ACDEFGHJKMNPQRTWXY"

mejoras = sa.table("mejoras_publicacion", sa.column("uid", sa.String), sa.column("payment_code", sa.String))


def _code() -> str:
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{code[:4]}-{code[4:]}"


def _add_payment_codes() -> None:
    with op.batch_alter_table("mejoras_publicacion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payment_code", AUTO_STRING(length=9), nullable=True))
    bind = op.get_bind()
    used: set[str] = set()
    for (uid,) in bind.execute(sa.select(mejoras.c.uid)).all():
        code = _code()
        while code in used:
            code = _code()
        used.add(code)
        bind.execute(sa.update(mejoras).where(mejoras.c.uid == uid).values(payment_code=code))
    with op.batch_alter_table("mejoras_publicacion", schema=None) as batch_op:
        batch_op.alter_column("payment_code", existing_type=AUTO_STRING(length=9), nullable=False)
        batch_op.create_unique_constraint("uq_mejoras_publicacion_payment_code", ["payment_code"])


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
    _add_payment_codes()
    op.create_table(
        "ajuste_sitio",
        sa.Column("key", AUTO_STRING(length=40), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade() -> None:
    op.drop_table("ajuste_sitio")
    with op.batch_alter_table("mejoras_publicacion", schema=None) as batch_op:
        batch_op.drop_constraint("uq_mejoras_publicacion_payment_code", type_="unique")
        batch_op.drop_column("payment_code")
    op.drop_table("aviso_desactivado")
    op.drop_index("ix_aviso_user_created", table_name="aviso")
    op.drop_table("aviso")
