"""A listing says whether its owner is hidden, kept by triggers (issue 19 §1, the filtered city query's speed).

A public listing's owner is neither banned nor inactive. Every city-page query checked that with
``owner_uid NOT IN (SELECT uid FROM usuarios WHERE ban OR NOT activo)``: each statement hashed every hidden user
(1,718 at 500,000 listings, and only ever more) and probed that hash for each index entry it walked, about half of
a filtered count's time (docs/performance.md).

- publicacion.owner_hidden (false by default), filled here from usuarios.
- Triggers keep it in step on every write, whichever code makes it: a change of usuarios.ban or usuarios.activo
  sets it on all that user's listings; a new listing, or one given another owner, takes its owner's.
- The city-page indexes lead with it after the city (status, section, city_slug, owner_hidden), so a page walks
  only public listings, and drop owner_uid, which only that check read. ix_usuarios_hidden served only that check.

SQLite drops a table's triggers when a batch migration copies it: a later migration that rebuilds publicacion or
usuarios that way must create them again (``create_triggers``).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out (not imported from app.models): a migration keeps the schema of its own day.
TIER_ORDER = ["tier_rank", sa.text("ranked_at DESC"), sa.text("uid DESC")]
TABS = [
    "curvy",
    "porn_actress",
    "verified",
    "has_video",
    "available_until",
    "visiting_from",
    "visiting_until",
    "published_at",
    "vip_until",
    "tier_uid",
]
PARTIAL_WHERE = {
    "ix_publicacion_city_porn": "porn_actress",
    "ix_publicacion_city_available": "available_until IS NOT NULL",
    "ix_publicacion_city_visiting": "visiting_until IS NOT NULL",
}
PARTIAL_EXTRA = {
    "ix_publicacion_city_porn": [],
    "ix_publicacion_city_available": ["available_until"],
    "ix_publicacion_city_visiting": ["visiting_from", "visiting_until"],
}


def _indexes(city: list, owner: list) -> dict[str, list]:
    """The city-page indexes: ``city`` their prefix, ``owner`` the owner's column where the check read it."""
    return {
        "ix_publicacion_city_tier": [*city, *TIER_ORDER, *owner],
        "ix_publicacion_city_recent": [*city, "published_at", "uid", *owner],
        "ix_publicacion_city_commune": [*city, "commune", *TIER_ORDER, *owner, "price_hour_clp", "age", "service_uids"]
        + TABS,
        "ix_publicacion_city_price": [*city, "price_hour_clp", "age", *owner, "commune", "service_uids", *TABS],
        "ix_publicacion_city_filters": [*city, *TIER_ORDER, *owner, "price_hour_clp", "age", "commune", "service_uids"]
        + TABS,
        **{
            name: [*city, *TIER_ORDER, *owner, "price_hour_clp", "age", "commune", "service_uids", *extra]
            for name, extra in PARTIAL_EXTRA.items()
        },
    }


CITY = ["status", "section", "city_slug"]
BEFORE = _indexes(CITY, ["owner_uid"])
AFTER = _indexes([*CITY, "owner_hidden"], [])
FEATURED_BEFORE = ["status", "section", *TIER_ORDER]
FEATURED_AFTER = ["status", "section", "owner_hidden", *TIER_ORDER]

POSTGRESQL_TRIGGERS = """
CREATE FUNCTION publicacion_owner_hidden() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.owner_hidden := COALESCE((SELECT ban OR NOT activo FROM usuarios WHERE uid = NEW.owner_uid), false);
    RETURN NEW;
END $$;
CREATE TRIGGER publicacion_owner_hidden BEFORE INSERT OR UPDATE OF owner_uid, owner_hidden ON publicacion
    FOR EACH ROW EXECUTE FUNCTION publicacion_owner_hidden();
CREATE FUNCTION usuarios_listings_hidden() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE publicacion SET owner_hidden = (NEW.ban OR NOT NEW.activo)
    WHERE owner_uid = NEW.uid AND owner_hidden IS DISTINCT FROM (NEW.ban OR NOT NEW.activo);
    RETURN NULL;
END $$;
CREATE TRIGGER usuarios_listings_hidden AFTER UPDATE OF ban, activo ON usuarios
    FOR EACH ROW EXECUTE FUNCTION usuarios_listings_hidden();
"""
POSTGRESQL_DROP = """
DROP TRIGGER usuarios_listings_hidden ON usuarios;
DROP FUNCTION usuarios_listings_hidden();
DROP TRIGGER publicacion_owner_hidden ON publicacion;
DROP FUNCTION publicacion_owner_hidden();
"""
# SQLite has no BEFORE trigger that can change the new row: the listing is corrected right after its write.
_SQLITE_OWNER = "COALESCE((SELECT ban OR NOT activo FROM usuarios WHERE uid = NEW.owner_uid), 0)"
SQLITE_TRIGGERS = (
    f"""CREATE TRIGGER publicacion_owner_hidden_insert AFTER INSERT ON publicacion
    WHEN NEW.owner_hidden IS NOT {_SQLITE_OWNER}
    BEGIN UPDATE publicacion SET owner_hidden = {_SQLITE_OWNER} WHERE uid = NEW.uid; END""",
    f"""CREATE TRIGGER publicacion_owner_hidden_update AFTER UPDATE OF owner_uid, owner_hidden ON publicacion
    WHEN NEW.owner_hidden IS NOT {_SQLITE_OWNER}
    BEGIN UPDATE publicacion SET owner_hidden = {_SQLITE_OWNER} WHERE uid = NEW.uid; END""",
    """CREATE TRIGGER usuarios_listings_hidden AFTER UPDATE OF ban, activo ON usuarios
    BEGIN
        UPDATE publicacion SET owner_hidden = (NEW.ban OR NOT NEW.activo)
        WHERE owner_uid = NEW.uid AND owner_hidden IS NOT (NEW.ban OR NOT NEW.activo);
    END""",
)
SQLITE_DROP = ("publicacion_owner_hidden_insert", "publicacion_owner_hidden_update", "usuarios_listings_hidden")


def create_triggers() -> None:
    """The triggers that keep publicacion.owner_hidden in step with usuarios."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_TRIGGERS)
    else:
        for statement in SQLITE_TRIGGERS:
            op.execute(statement)


def _drop_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_DROP)
    else:
        for name in SQLITE_DROP:
            op.execute(f"DROP TRIGGER {name}")


def _replace(name: str, columns: list) -> None:
    op.drop_index(name, table_name="publicacion")
    where = sa.text(PARTIAL_WHERE[name]) if name in PARTIAL_WHERE else None
    op.create_index(name, "publicacion", columns, postgresql_where=where, sqlite_where=where)


def upgrade() -> None:
    op.add_column("publicacion", sa.Column("owner_hidden", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute(
        "UPDATE publicacion SET owner_hidden = true "
        "WHERE owner_uid IN (SELECT uid FROM usuarios WHERE ban OR NOT activo)"
    )
    create_triggers()
    for name, columns in AFTER.items():
        _replace(name, columns)
    _replace("ix_publicacion_featured", FEATURED_AFTER)
    op.drop_index("ix_usuarios_hidden", table_name="usuarios")


def downgrade() -> None:
    hidden = sa.text("ban OR NOT activo")
    op.create_index("ix_usuarios_hidden", "usuarios", ["uid"], postgresql_where=hidden, sqlite_where=hidden)
    _replace("ix_publicacion_featured", FEATURED_BEFORE)
    for name, columns in BEFORE.items():
        _replace(name, columns)
    _drop_triggers()
    op.drop_column("publicacion", "owner_hidden")
