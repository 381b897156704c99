"""Migration 0014 on PostgreSQL and SQLite: listings made before it get their services on their row (as
services_text writes them), the filter indexes carry them, and the history goes down and up again."""

from __future__ import annotations

from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from app.db import make_engine, migrate
from app.models.listings import services_text
from tests.conftest import fresh_pg_database

ROWS = (
    "INSERT INTO usuarios (uid, email, display_name, profile_uid, activo, ban, online, created_at, updated_at)"
    " VALUES ('u1', 'u1@example.cl', 'Dueña', 'profesor', true, false, false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
    *(
        f"INSERT INTO servicio_profesor (uid, name, created_at, updated_at)"
        f" VALUES ('{uid}', '{uid}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        for uid in ("s2", "s1", "s3")
    ),
    *(
        "INSERT INTO publicacion (uid, owner_uid, section, commune, description, phone, whatsapp, has_video,"
        " verified, porn_actress, curvy, status, created_at, updated_at)"
        f" VALUES ('{uid}', 'u1', 'mujeres', 'Talca', '', '', '', false, false, false, false, 'publicada',"
        " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        for uid in ("l1", "l2")
    ),
    *(
        f"INSERT INTO publicacion_servicio (listing_uid, service_uid) VALUES ('l1', '{uid}')"
        for uid in ("s3", "s1", "s2")
    ),
)


def _previous() -> str:
    """The revision 0014 follows (re-chained when branches merge)."""
    script = ScriptDirectory(str(Path(__file__).resolve().parents[2] / "alembic"))
    return script.get_revision("0014").down_revision


def _check(url: str) -> None:
    previous = _previous()
    migrate(url, previous)
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            for statement in ROWS:
                conn.execute(text(statement))
        migrate(url, "0014")
        with engine.connect() as conn:
            found = dict(conn.execute(text("SELECT uid, service_uids FROM publicacion")).all())
        assert found == {"l1": services_text(["s1", "s2", "s3"]), "l2": ""}
        assert found["l1"] == " s1 s2 s3 "
        indexes = {index["name"]: index["column_names"] for index in inspect(engine).get_indexes("publicacion")}
        assert indexes["ix_publicacion_city_filters"][-1] == "service_uids"
        assert indexes["ix_publicacion_city_commune"][-1] == "service_uids"
        migrate(url, previous, downgrade=True)
        engine.dispose()
        columns = {column["name"] for column in inspect(engine).get_columns("publicacion")}
        indexes = {index["name"]: index["column_names"] for index in inspect(engine).get_indexes("publicacion")}
        assert "service_uids" not in columns
        assert indexes["ix_publicacion_city_filters"][-1] == "commune"
        assert indexes["ix_publicacion_city_commune"][-1] == "age"
        migrate(url)
        engine.dispose()
        with engine.connect() as conn:
            assert conn.execute(text("SELECT service_uids FROM publicacion WHERE uid = 'l1'")).scalar() == " s1 s2 s3 "
    finally:
        engine.dispose()


def test_0014_fills_and_indexes_the_services_on_postgresql():
    with fresh_pg_database("mig14") as url:
        _check(url)


def test_0014_fills_and_indexes_the_services_on_sqlite(tmp_path):
    _check(f"sqlite:///{tmp_path / 'm14.db'}")
