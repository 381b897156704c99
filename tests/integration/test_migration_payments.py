"""Migration 0008 on PostgreSQL: upgrade requests made before it get their own payment reference, and the
history goes down and up again."""

from __future__ import annotations

import re

import psycopg
import pytest

from app.core.payment_codes import ALPHABET
from app.db import migrate
from tests.conftest import _libpq, fresh_pg_database
from tests.integration.test_migration_identity_review import LISTING, USER

SERVICE = (
    "INSERT INTO servicio_app (uid, name, description, price_clp, duration_days, activo, created_at, updated_at)"
    " VALUES ('s1', 'VIP', '', 19990, 15, true, now(), now())"
)
UPGRADE = (
    "INSERT INTO mejoras_publicacion (uid, listing_uid, app_service_uid, requested_by_uid, status, amount_clp,"
    " payment_reference, reason, created_at, updated_at)"
    " VALUES (%s, 'l1', 's1', 'u1', %s, 19990, '', '', now(), now())"
)
CODE = re.compile(rf"^[{ALPHABET}]{{4}}-[{ALPHABET}]{{4}}$")


def test_0008_gives_every_existing_upgrade_request_its_own_reference():
    with fresh_pg_database("mig8") as url:
        migrate(url, "0007")
        with psycopg.connect(_libpq(url)) as conn:
            conn.execute(USER, ("u1", "u1@example.cl"))
            conn.execute(LISTING, ("l1", "u1", "publicada", "2026-10-01", None))
            conn.execute(SERVICE)
            for n, status in enumerate(("solicitada", "activa", "vencida")):
                conn.execute(UPGRADE, (f"m{n}", status))
        migrate(url)
        with psycopg.connect(_libpq(url)) as conn:
            codes = [row[0] for row in conn.execute("SELECT payment_code FROM mejoras_publicacion").fetchall()]
            assert len(codes) == 3 and len(set(codes)) == 3
            assert all(CODE.match(code) for code in codes)
            with pytest.raises(psycopg.errors.UniqueViolation):
                conn.execute("UPDATE mejoras_publicacion SET payment_code = %s WHERE uid = 'm1'", (codes[0],))
        migrate(url, "0007", downgrade=True)
        migrate(url)
