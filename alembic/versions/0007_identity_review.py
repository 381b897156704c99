"""Identity changes wait for review; every listing in review has its queue item.

- profesor: identity_reviewed_at (staff approved the identity), the pending_* values of a change
  to a reviewed identity, identity_pending_at and identity_listing_uid (the listing it was sent
  with). Backfill: an advertiser with a listing that was ever published or approved counts as
  reviewed.
- revisar_publicacion: a pending item for every listing waiting for review without one (a
  pendiente listing, or a public one with an edit sent), as the demo data used to leave them.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 01:30:00
"""

import secrets
import string
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime
ALPHABET = string.ascii_letters + string.digits

profesor = sa.table(
    "profesor",
    sa.column("user_uid", sa.String),
    sa.column("identity_reviewed_at", UTC_DATETIME()),
)
publicacion = sa.table(
    "publicacion",
    sa.column("uid", sa.String),
    sa.column("owner_uid", sa.String),
    sa.column("status", sa.String),
    sa.column("published_at", UTC_DATETIME()),
    sa.column("revision_at", UTC_DATETIME()),
    sa.column("updated_at", UTC_DATETIME()),
)
revisar = sa.table(
    "revisar_publicacion",
    sa.column("uid", sa.String),
    sa.column("listing_uid", sa.String),
    sa.column("decision", sa.String),
    sa.column("reason", sa.String),
    sa.column("created_at", UTC_DATETIME()),
)


def _uid() -> str:
    return "".join(ALPHABET[byte % 62] for byte in secrets.token_bytes(20))


def _backfill_reviewed(now: datetime) -> None:
    approved = sa.select(revisar.c.listing_uid).where(revisar.c.decision == "aprobada")
    reviewed_owners = sa.select(publicacion.c.owner_uid).where(
        sa.or_(publicacion.c.published_at.is_not(None), publicacion.c.uid.in_(approved))
    )
    op.get_bind().execute(
        sa.update(profesor).where(profesor.c.user_uid.in_(reviewed_owners)).values(identity_reviewed_at=now)
    )


def _open_missing_reviews(now: datetime) -> None:
    bind = op.get_bind()
    pending = sa.select(revisar.c.listing_uid).where(revisar.c.decision == "pendiente")
    waiting = bind.execute(
        sa.select(publicacion.c.uid, publicacion.c.revision_at, publicacion.c.updated_at).where(
            sa.or_(
                publicacion.c.status == "pendiente",
                sa.and_(publicacion.c.status.in_(("publicada", "pausada")), publicacion.c.revision_at.is_not(None)),
            ),
            publicacion.c.uid.not_in(pending),
        )
    ).all()
    if waiting:
        bind.execute(
            sa.insert(revisar),
            [
                {
                    "uid": _uid(),
                    "listing_uid": uid,
                    "decision": "pendiente",
                    "reason": "",
                    "created_at": revision_at or updated_at or now,
                }
                for uid, revision_at, updated_at in waiting
            ],
        )


def upgrade() -> None:
    with op.batch_alter_table("profesor", schema=None) as batch_op:
        batch_op.add_column(sa.Column("identity_reviewed_at", UTC_DATETIME(), nullable=True))
        batch_op.add_column(sa.Column("pending_rut", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True))
        batch_op.add_column(sa.Column("pending_passport", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True))
        batch_op.add_column(
            sa.Column("pending_nationality", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=True)
        )
        batch_op.add_column(sa.Column("pending_birth_date", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("identity_pending_at", UTC_DATETIME(), nullable=True))
        batch_op.add_column(
            sa.Column("identity_listing_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True)
        )
    now = datetime.now(UTC)
    _backfill_reviewed(now)
    _open_missing_reviews(now)


def downgrade() -> None:
    with op.batch_alter_table("profesor", schema=None) as batch_op:
        batch_op.drop_column("identity_listing_uid")
        batch_op.drop_column("identity_pending_at")
        batch_op.drop_column("pending_birth_date")
        batch_op.drop_column("pending_nationality")
        batch_op.drop_column("pending_passport")
        batch_op.drop_column("pending_rut")
        batch_op.drop_column("identity_reviewed_at")
