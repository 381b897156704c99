"""Advertiser self-service: drafts, pending revisions, upgrades' effects, verification, daily stats.

- publicacion: the fields a wizard step fills become nullable (a draft is saved after every
  step); schedule, wizard_step, base_tier_uid (the advertiser's own tier while an upgrade
  lifts tier_uid), verified_at, vip_until, ranked_at (order within a tier, moved by a bump),
  revision / revision_at (an edit of a published listing waiting for review). The city and
  featured indexes order by ranked_at.
- publicacion_foto: stem and widths of the pipeline's WebP sizes, phash, approved.
- profesor: passport and nationality.
- servicio_app: effect (nivel, vip, subir) and tier_uid.
- mejoras_publicacion: the reviewer, the payment reference staff confirmed, a denial's reason.
- verificacion_publicacion and estadistica_publicacion.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 17:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DRAFT_COLUMNS = (
    ("city_slug", sqlmodel.sql.sqltypes.AutoString(length=40)),
    ("tier_uid", sqlmodel.sql.sqltypes.AutoString(length=40)),
    ("tier_rank", sa.Integer()),
    ("display_name", sqlmodel.sql.sqltypes.AutoString(length=60)),
    ("name_slug", sqlmodel.sql.sqltypes.AutoString(length=60)),
    ("age", sa.Integer()),
    ("price_hour_clp", sa.Integer()),
)
TIER_ORDER = ("status", "section", "city_slug", "tier_rank")


def _tier_indexes(order_column: str) -> None:
    op.create_index(
        "ix_publicacion_city_tier",
        "publicacion",
        [*TIER_ORDER, sa.text(f"{order_column} DESC"), sa.text("uid DESC"), "owner_uid"],
    )
    op.create_index(
        "ix_publicacion_featured",
        "publicacion",
        ["status", "section", "tier_rank", sa.text(f"{order_column} DESC"), sa.text("uid DESC")],
    )


def upgrade() -> None:
    op.drop_index("ix_publicacion_featured", table_name="publicacion")
    op.drop_index("ix_publicacion_city_tier", table_name="publicacion")
    with op.batch_alter_table("publicacion", schema=None) as batch_op:
        for name, type_ in DRAFT_COLUMNS:
            batch_op.alter_column(name, existing_type=type_, nullable=True)
        batch_op.add_column(sa.Column("base_tier_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
        batch_op.add_column(sa.Column("schedule", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("wizard_step", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(sa.Column("verified_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("vip_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("ranked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("revision", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("revision_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_foreign_key("fk_publicacion_base_tier", "categoria_profesor", ["base_tier_uid"], ["uid"])
    op.execute("UPDATE publicacion SET ranked_at = published_at, base_tier_uid = tier_uid, wizard_step = 10")
    op.execute("UPDATE publicacion SET verified_at = updated_at WHERE verified")
    _tier_indexes("ranked_at")

    with op.batch_alter_table("publicacion_foto", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stem", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=True))
        batch_op.add_column(
            sa.Column("widths", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("phash", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch_op.add_column(sa.Column("approved", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch_op.create_index(batch_op.f("ix_publicacion_foto_path"), ["path"], unique=False)
        batch_op.create_index(batch_op.f("ix_publicacion_foto_stem"), ["stem"], unique=False)
        batch_op.create_index(batch_op.f("ix_publicacion_foto_phash"), ["phash"], unique=False)

    with op.batch_alter_table("profesor", schema=None) as batch_op:
        batch_op.add_column(sa.Column("passport", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True))
        batch_op.add_column(
            sa.Column("nationality", sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False, server_default="")
        )

    with op.batch_alter_table("mejoras_publicacion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reviewer_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
        batch_op.add_column(
            sa.Column("payment_reference", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False, server_default="")
        )
        batch_op.add_column(
            sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False, server_default="")
        )
        batch_op.create_foreign_key("fk_mejoras_publicacion_reviewer", "usuarios", ["reviewer_uid"], ["uid"])

    with op.batch_alter_table("servicio_app", schema=None) as batch_op:
        batch_op.add_column(sa.Column("effect", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=True))
        batch_op.add_column(sa.Column("tier_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
        batch_op.create_foreign_key("fk_servicio_app_tier", "categoria_profesor", ["tier_uid"], ["uid"])

    op.create_table(
        "verificacion_publicacion",
        sa.Column("uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("listing_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("owner_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("storage_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("reviewer_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("decided_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["listing_uid"],
            ["publicacion.uid"],
        ),
        sa.ForeignKeyConstraint(
            ["owner_uid"],
            ["usuarios.uid"],
        ),
        sa.ForeignKeyConstraint(
            ["reviewer_uid"],
            ["usuarios.uid"],
        ),
        sa.PrimaryKeyConstraint("uid"),
    )
    with op.batch_alter_table("verificacion_publicacion", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_verificacion_publicacion_listing_uid"), ["listing_uid"], unique=False)

    op.create_table(
        "estadistica_publicacion",
        sa.Column("listing_uid", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("views", sa.Integer(), nullable=False),
        sa.Column("whatsapp_clicks", sa.Integer(), nullable=False),
        sa.Column("call_clicks", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["listing_uid"],
            ["publicacion.uid"],
        ),
        sa.PrimaryKeyConstraint("listing_uid", "day"),
    )


def downgrade() -> None:
    op.drop_table("estadistica_publicacion")
    with op.batch_alter_table("verificacion_publicacion", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_verificacion_publicacion_listing_uid"))
    op.drop_table("verificacion_publicacion")

    with op.batch_alter_table("servicio_app", schema=None) as batch_op:
        batch_op.drop_constraint("fk_servicio_app_tier", type_="foreignkey")
        batch_op.drop_column("tier_uid")
        batch_op.drop_column("effect")

    with op.batch_alter_table("mejoras_publicacion", schema=None) as batch_op:
        batch_op.drop_constraint("fk_mejoras_publicacion_reviewer", type_="foreignkey")
        batch_op.drop_column("reason")
        batch_op.drop_column("payment_reference")
        batch_op.drop_column("reviewer_uid")


    with op.batch_alter_table("profesor", schema=None) as batch_op:
        batch_op.drop_column("nationality")
        batch_op.drop_column("passport")

    with op.batch_alter_table("publicacion_foto", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_publicacion_foto_phash"))
        batch_op.drop_index(batch_op.f("ix_publicacion_foto_stem"))
        batch_op.drop_index(batch_op.f("ix_publicacion_foto_path"))
        batch_op.drop_column("approved")
        batch_op.drop_column("phash")
        batch_op.drop_column("widths")
        batch_op.drop_column("stem")

    op.drop_index("ix_publicacion_featured", table_name="publicacion")
    op.drop_index("ix_publicacion_city_tier", table_name="publicacion")
    # Drafts cannot survive the stricter schema.
    op.execute(
        "DELETE FROM publicacion_foto WHERE listing_uid IN (SELECT uid FROM publicacion WHERE city_slug IS NULL"
        " OR tier_uid IS NULL OR display_name IS NULL OR age IS NULL OR price_hour_clp IS NULL)"
    )
    op.execute(
        "DELETE FROM publicacion_servicio WHERE listing_uid IN (SELECT uid FROM publicacion WHERE city_slug IS"
        " NULL OR tier_uid IS NULL OR display_name IS NULL OR age IS NULL OR price_hour_clp IS NULL)"
    )
    op.execute(
        "DELETE FROM publicacion WHERE city_slug IS NULL OR tier_uid IS NULL OR display_name IS NULL"
        " OR age IS NULL OR price_hour_clp IS NULL"
    )
    op.execute("UPDATE publicacion SET name_slug = '' WHERE name_slug IS NULL")
    op.execute("UPDATE publicacion SET tier_rank = 0 WHERE tier_rank IS NULL")
    with op.batch_alter_table("publicacion", schema=None) as batch_op:
        batch_op.drop_constraint("fk_publicacion_base_tier", type_="foreignkey")
        for column in (
            "revision_at",
            "revision",
            "ranked_at",
            "vip_until",
            "verified_at",
            "wizard_step",
            "schedule",
            "base_tier_uid",
        ):
            batch_op.drop_column(column)
        for name, type_ in DRAFT_COLUMNS:
            batch_op.alter_column(name, existing_type=type_, nullable=False)
    _tier_indexes("published_at")
