"""Initial schema, the four fixed profiles and the four listing tiers.

Revision ID: 0001
Revises:
Create Date: 2026-11-21 00:25:59.188865
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
import sqlmodel
from alembic import op

# Fixed rows, frozen here as they were when this revision was written.
PROFILES = (
    ("administrador", "Administrador"),
    ("cliente", "Cliente"),
    ("profesor", "Anunciante"),
    ("secretaria", "Secretaria"),
)
TIERS = (("diamante", "Diamante", 1), ("ruby", "Ruby", 2), ("platino", "Platino", 3), ("chicas-del-dia", "Chicas del día", 4))


revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('categoria_agencia',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('display_order', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid')
    )
    op.create_table('categoria_profesor',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('slug', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('display_order', sa.Integer(), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid'),
    sa.UniqueConstraint('slug')
    )
    op.create_table('perfil_usuario',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('label', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid')
    )
    op.create_table('servicio_app',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('price_clp', sa.Integer(), nullable=False),
    sa.Column('duration_days', sa.Integer(), nullable=False),
    sa.Column('activo', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid')
    )
    op.create_table('servicio_profesor',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid'),
    sa.UniqueConstraint('name')
    )
    op.create_table('tipo_profesor',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('uid')
    )
    op.create_table('agencia',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
    sa.Column('category_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('phone', sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
    sa.Column('activo', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['category_uid'], ['categoria_agencia.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    op.create_table('usuarios',
    sa.Column('display_name', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('profile_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('activo', sa.Boolean(), nullable=False),
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('ban', sa.Boolean(), nullable=False),
    sa.Column('online', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['profile_uid'], ['perfil_usuario.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('usuarios', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_usuarios_email'), ['email'], unique=True)
        batch_op.create_index('ix_usuarios_hidden', ['uid'], unique=False, postgresql_where=sa.text('ban OR NOT activo'), sqlite_where=sa.text('ban OR NOT activo'))
        batch_op.create_index(batch_op.f('ix_usuarios_profile_uid'), ['profile_uid'], unique=False)

    op.create_table('profesor',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('user_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('agency_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('type_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('display_name', sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
    sa.Column('rut', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True),
    sa.Column('birth_date', sa.Date(), nullable=False),
    sa.Column('phone', sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
    sa.Column('consent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('verified', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['agency_uid'], ['agencia.uid'], ),
    sa.ForeignKeyConstraint(['type_uid'], ['tipo_profesor.uid'], ),
    sa.ForeignKeyConstraint(['user_uid'], ['usuarios.uid'], ),
    sa.PrimaryKeyConstraint('uid'),
    sa.UniqueConstraint('user_uid')
    )
    op.create_table('publicacion',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('owner_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('section', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
    sa.Column('city_slug', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('commune', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('tier_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('tier_rank', sa.Integer(), nullable=False),
    sa.Column('display_name', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('name_slug', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
    sa.Column('age', sa.Integer(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('price_hour_clp', sa.Integer(), nullable=False),
    sa.Column('price_half_hour_clp', sa.Integer(), nullable=True),
    sa.Column('price_two_hours_clp', sa.Integer(), nullable=True),
    sa.Column('price_night_clp', sa.Integer(), nullable=True),
    sa.Column('phone', sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
    sa.Column('whatsapp', sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
    sa.Column('has_video', sa.Boolean(), nullable=False),
    sa.Column('verified', sa.Boolean(), nullable=False),
    sa.Column('porn_actress', sa.Boolean(), nullable=False),
    sa.Column('curvy', sa.Boolean(), nullable=False),
    sa.Column('available_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('visiting_from', sa.Date(), nullable=True),
    sa.Column('visiting_until', sa.Date(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('published_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['owner_uid'], ['usuarios.uid'], ),
    sa.ForeignKeyConstraint(['tier_uid'], ['categoria_profesor.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('publicacion', schema=None) as batch_op:
        batch_op.create_index('ix_publicacion_city_recent', ['status', 'section', 'city_slug', 'published_at', 'uid', 'owner_uid'], unique=False)
        batch_op.create_index(batch_op.f('ix_publicacion_owner_uid'), ['owner_uid'], unique=False)

    op.create_index(
        "ix_publicacion_city_tier",
        "publicacion",
        ["status", "section", "city_slug", "tier_rank", sa.text("published_at DESC"), sa.text("uid DESC"), "owner_uid"],
    )
    op.create_index(
        "ix_publicacion_featured",
        "publicacion",
        ["status", "section", "tier_rank", sa.text("published_at DESC"), sa.text("uid DESC")],
    )

    op.create_table('mejoras_publicacion',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('listing_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('app_service_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('requested_by_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('amount_clp', sa.Integer(), nullable=False),
    sa.Column('starts_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('ends_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['app_service_uid'], ['servicio_app.uid'], ),
    sa.ForeignKeyConstraint(['listing_uid'], ['publicacion.uid'], ),
    sa.ForeignKeyConstraint(['requested_by_uid'], ['usuarios.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('mejoras_publicacion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mejoras_publicacion_listing_uid'), ['listing_uid'], unique=False)

    op.create_table('publicacion_foto',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('listing_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('path', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['listing_uid'], ['publicacion.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('publicacion_foto', schema=None) as batch_op:
        batch_op.create_index('ix_publicacion_foto_listing', ['listing_uid', 'position'], unique=False)

    op.create_table('publicacion_servicio',
    sa.Column('listing_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('service_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.ForeignKeyConstraint(['listing_uid'], ['publicacion.uid'], ),
    sa.ForeignKeyConstraint(['service_uid'], ['servicio_profesor.uid'], ),
    sa.PrimaryKeyConstraint('listing_uid', 'service_uid')
    )
    op.create_table('reporte',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
    sa.Column('listing_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('contact', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('client_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['listing_uid'], ['publicacion.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('reporte', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_reporte_client_hash'), ['client_hash'], unique=False)
        batch_op.create_index(batch_op.f('ix_reporte_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_reporte_status'), ['status'], unique=False)

    op.create_table('revisar_publicacion',
    sa.Column('uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('listing_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
    sa.Column('reviewer_uid', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
    sa.Column('decision', sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('decided_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['listing_uid'], ['publicacion.uid'], ),
    sa.ForeignKeyConstraint(['reviewer_uid'], ['usuarios.uid'], ),
    sa.PrimaryKeyConstraint('uid')
    )
    with op.batch_alter_table('revisar_publicacion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_revisar_publicacion_listing_uid'), ['listing_uid'], unique=False)

    now = datetime.now(UTC)
    profiles = sa.table("perfil_usuario", *(sa.column(c) for c in ("uid", "name", "label", "created_at", "updated_at")))
    op.bulk_insert(
        profiles,
        [{"uid": p, "name": p, "label": label, "created_at": now, "updated_at": now} for p, label in PROFILES],
    )
    tiers = sa.table(
        "categoria_profesor",
        *(sa.column(c) for c in ("uid", "name", "slug", "display_order", "description", "created_at", "updated_at")),
    )
    op.bulk_insert(
        tiers,
        [
            {"uid": slug, "name": name, "slug": slug, "display_order": order, "description": "", "created_at": now, "updated_at": now}
            for slug, name, order in TIERS
        ],
    )

def downgrade() -> None:
    with op.batch_alter_table('revisar_publicacion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_revisar_publicacion_listing_uid'))

    op.drop_table('revisar_publicacion')
    with op.batch_alter_table('reporte', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_reporte_status'))
        batch_op.drop_index(batch_op.f('ix_reporte_created_at'))
        batch_op.drop_index(batch_op.f('ix_reporte_client_hash'))

    op.drop_table('reporte')
    op.drop_table('publicacion_servicio')
    with op.batch_alter_table('publicacion_foto', schema=None) as batch_op:
        batch_op.drop_index('ix_publicacion_foto_listing')

    op.drop_table('publicacion_foto')
    with op.batch_alter_table('mejoras_publicacion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mejoras_publicacion_listing_uid'))

    op.drop_table('mejoras_publicacion')
    with op.batch_alter_table('publicacion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_publicacion_owner_uid'))
        batch_op.drop_index('ix_publicacion_city_recent')
    op.drop_index("ix_publicacion_featured", table_name="publicacion")
    op.drop_index("ix_publicacion_city_tier", table_name="publicacion")

    op.drop_table('publicacion')
    op.drop_table('profesor')
    with op.batch_alter_table('usuarios', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_usuarios_profile_uid'))
        batch_op.drop_index('ix_usuarios_hidden', postgresql_where=sa.text('ban OR NOT activo'), sqlite_where=sa.text('ban OR NOT activo'))
        batch_op.drop_index(batch_op.f('ix_usuarios_email'))

    op.drop_table('usuarios')
    op.drop_table('agencia')
    op.drop_table('tipo_profesor')
    op.drop_table('servicio_profesor')
    op.drop_table('servicio_app')
    op.drop_table('perfil_usuario')
    op.drop_table('categoria_profesor')
    op.drop_table('categoria_agencia')
