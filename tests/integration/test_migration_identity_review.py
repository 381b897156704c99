"""Migration 0007 on PostgreSQL: advertisers with a listing that was public count as reviewed, and
every listing in review gets its queue item."""

from __future__ import annotations

import psycopg
from sqlmodel import Session

from app.db import make_engine, migrate
from tests.conftest import _libpq, fresh_pg_database
from tests.invariants import listings_in_review_without_queue_item

USER = (
    "INSERT INTO usuarios (uid, email, display_name, profile_uid, activo, ban, online, created_at, updated_at)"
    " VALUES (%s, %s, 'Dueña', 'profesor', true, false, false, now(), now())"
)
ADVERTISER = (
    "INSERT INTO profesor (uid, user_uid, display_name, rut, birth_date, phone, verified, created_at, updated_at)"
    " VALUES (%s, %s, 'Dueña', '11.111.111-1', '1990-01-15', '', false, now(), now())"
)
LISTING = (
    "INSERT INTO publicacion (uid, owner_uid, section, commune, description, phone, whatsapp, has_video, verified,"
    " porn_actress, curvy, status, published_at, revision_at, created_at, updated_at)"
    " VALUES (%s, %s, 'mujeres', 'Talca', '', '', '', false, false, false, false, %s, %s, %s, now(), now())"
)


def test_0007_backfills_reviewed_identities_and_opens_missing_queue_items():
    with fresh_pg_database("mig7") as url:
        migrate(url, "0006")
        with psycopg.connect(_libpq(url)) as conn:
            for n in range(3):
                conn.execute(USER, (f"u{n}", f"u{n}@example.cl"))
                conn.execute(ADVERTISER, (f"a{n}", f"u{n}"))
            conn.execute(LISTING, ("publicada", "u0", "publicada", "2026-10-01", None))
            conn.execute(LISTING, ("editada", "u0", "pausada", "2026-10-01", "2026-11-01"))
            conn.execute(LISTING, ("pendiente", "u1", "pendiente", None, None))
            conn.execute(LISTING, ("en-cola", "u1", "pendiente", None, None))
            conn.execute(
                "INSERT INTO revisar_publicacion (uid, listing_uid, decision, reason, created_at)"
                " VALUES ('r1', 'en-cola', 'pendiente', '', now())"
            )
            conn.execute(LISTING, ("borrador", "u2", "borrador", None, None))
        migrate(url)
        with psycopg.connect(_libpq(url)) as conn:
            reviewed = conn.execute(
                "SELECT uid, identity_reviewed_at IS NOT NULL, identity_pending_at FROM profesor ORDER BY uid"
            ).fetchall()
            queued = conn.execute(
                "SELECT listing_uid, count(*) FROM revisar_publicacion WHERE decision = 'pendiente'"
                " GROUP BY listing_uid ORDER BY listing_uid"
            ).fetchall()
        assert reviewed == [("a0", True, None), ("a1", False, None), ("a2", False, None)]
        assert queued == [("editada", 1), ("en-cola", 1), ("pendiente", 1)]
        engine = make_engine(url)
        try:
            with Session(engine) as session:
                assert listings_in_review_without_queue_item(session) == []
        finally:
            engine.dispose()
        migrate(url, "0006", downgrade=True)
        migrate(url)
