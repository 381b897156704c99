"""Listings' video clips (issue 35 §1): publicacion_video, and publicacion.has_video kept by the database.

- publicacion_video: one clip of a listing (status procesando/lista/fallida, approved by staff, the private
  original's key until processed, the served MP4's key, the poster's stem and widths, duration, frame, failure).
- publicacion.has_video (the Video tab, the card badge, in the city-page indexes) stops being a checkbox the
  advertiser ticks: it says whether the listing has at least one approved, ready clip. Triggers keep it so on
  every write of either table, whichever code makes it (convention 20, as migration 0016 does for owner_hidden):
  a clip inserted, changed or deleted sets its listing's flag; a listing written with any other value of the flag
  gets the right one back.
- No clip exists yet: the flag goes false everywhere.

SQLite drops a table's triggers when a batch migration copies it: a later migration that rebuilds publicacion or
publicacion_video that way must create them again (``create_triggers``).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-29 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UID = sqlmodel.sql.sqltypes.AutoString(length=40)
UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime


def _has_clip(listing: str) -> str:
    """Whether the listing ``listing`` (an SQL expression) has an approved, ready clip."""
    return (
        "EXISTS (SELECT 1 FROM publicacion_video AS v "
        f"WHERE v.listing_uid = {listing} AND v.approved AND v.status = 'lista')"
    )


POSTGRESQL_TRIGGERS = f"""
CREATE FUNCTION publicacion_has_video() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.has_video := {_has_clip("NEW.uid")};
    RETURN NEW;
END $$;
CREATE TRIGGER publicacion_has_video BEFORE INSERT OR UPDATE OF has_video ON publicacion
    FOR EACH ROW EXECUTE FUNCTION publicacion_has_video();
CREATE FUNCTION publicacion_video_listing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE publicacion SET has_video = {_has_clip("OLD.listing_uid")}
        WHERE uid = OLD.listing_uid AND has_video IS DISTINCT FROM {_has_clip("OLD.listing_uid")};
    END IF;
    IF TG_OP <> 'DELETE' THEN
        UPDATE publicacion SET has_video = {_has_clip("NEW.listing_uid")}
        WHERE uid = NEW.listing_uid AND has_video IS DISTINCT FROM {_has_clip("NEW.listing_uid")};
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER publicacion_video_listing AFTER INSERT OR UPDATE OR DELETE ON publicacion_video
    FOR EACH ROW EXECUTE FUNCTION publicacion_video_listing();
"""
POSTGRESQL_DROP = """
DROP TRIGGER publicacion_video_listing ON publicacion_video;
DROP FUNCTION publicacion_video_listing();
DROP TRIGGER publicacion_has_video ON publicacion;
DROP FUNCTION publicacion_has_video();
"""


def _sqlite_sync(row: str) -> str:
    listing = f"{row}.listing_uid"
    return (
        f"UPDATE publicacion SET has_video = {_has_clip(listing)} "
        f"WHERE uid = {listing} AND has_video IS NOT {_has_clip(listing)};"
    )


# SQLite has no BEFORE trigger that can change the new row: the listing is corrected right after its write.
_SQLITE_LISTING = _has_clip("NEW.uid")
SQLITE_TRIGGERS = (
    f"""CREATE TRIGGER publicacion_has_video_insert AFTER INSERT ON publicacion
    WHEN NEW.has_video IS NOT {_SQLITE_LISTING}
    BEGIN UPDATE publicacion SET has_video = {_SQLITE_LISTING} WHERE uid = NEW.uid; END""",
    f"""CREATE TRIGGER publicacion_has_video_update AFTER UPDATE OF has_video ON publicacion
    WHEN NEW.has_video IS NOT {_SQLITE_LISTING}
    BEGIN UPDATE publicacion SET has_video = {_SQLITE_LISTING} WHERE uid = NEW.uid; END""",
    f"""CREATE TRIGGER publicacion_video_insert AFTER INSERT ON publicacion_video
    BEGIN {_sqlite_sync("NEW")} END""",
    f"""CREATE TRIGGER publicacion_video_update AFTER UPDATE ON publicacion_video
    BEGIN {_sqlite_sync("OLD")} {_sqlite_sync("NEW")} END""",
    f"""CREATE TRIGGER publicacion_video_delete AFTER DELETE ON publicacion_video
    BEGIN {_sqlite_sync("OLD")} END""",
)
SQLITE_DROP = (
    "publicacion_has_video_insert",
    "publicacion_has_video_update",
    "publicacion_video_insert",
    "publicacion_video_update",
    "publicacion_video_delete",
)


def create_triggers() -> None:
    """The triggers that keep publicacion.has_video in step with publicacion_video."""
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


def upgrade() -> None:
    op.create_table(
        "publicacion_video",
        sa.Column("uid", UID, nullable=False),
        sa.Column("listing_uid", UID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("approved", sa.Boolean(), nullable=False),
        sa.Column("original_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("video_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("poster_stem", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=True),
        sa.Column("poster_widths", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("failure", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
        sa.Column("updated_at", UTC_DATETIME(), nullable=False),
        sa.ForeignKeyConstraint(["listing_uid"], ["publicacion.uid"]),
        sa.PrimaryKeyConstraint("uid"),
    )
    op.create_index("ix_publicacion_video_listing", "publicacion_video", ["listing_uid", "position"])
    op.create_index(op.f("ix_publicacion_video_video_key"), "publicacion_video", ["video_key"])
    op.create_index(op.f("ix_publicacion_video_poster_stem"), "publicacion_video", ["poster_stem"])
    # The checkbox said it; no clip exists yet.
    op.execute("UPDATE publicacion SET has_video = false WHERE has_video")
    create_triggers()


def downgrade() -> None:
    _drop_triggers()
    op.drop_index(op.f("ix_publicacion_video_poster_stem"), table_name="publicacion_video")
    op.drop_index(op.f("ix_publicacion_video_video_key"), table_name="publicacion_video")
    op.drop_index("ix_publicacion_video_listing", table_name="publicacion_video")
    op.drop_table("publicacion_video")
