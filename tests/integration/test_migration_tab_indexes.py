"""Migration 0015 on PostgreSQL and SQLite: the city-page indexes carry the tabs' columns, the tabs few
listings match get partial indexes, listings are kept, and the history goes down and up again."""

from __future__ import annotations

from sqlalchemy import inspect, text

from app.db import make_engine, migrate
from app.models.listings import TAB_COLUMNS
from tests.conftest import fresh_pg_database

PARTIAL = ("ix_publicacion_city_porn", "ix_publicacion_city_available", "ix_publicacion_city_visiting")
LISTING = (
    "INSERT INTO usuarios (uid, email, display_name, profile_uid, activo, ban, online, created_at, updated_at)"
    " VALUES ('u1', 'u1@example.cl', 'Dueña', 'profesor', true, false, false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
    "INSERT INTO publicacion (uid, owner_uid, section, commune, description, phone, whatsapp, has_video,"
    " verified, porn_actress, curvy, status, created_at, updated_at)"
    " VALUES ('l1', 'u1', 'mujeres', 'Talca', '', '', '', false, false, true, false, 'publicada',"
    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
)


def _indexes(engine) -> dict[str, list[str]]:
    return {index["name"]: index["column_names"] for index in inspect(engine).get_indexes("publicacion")}


def _check(url: str, partial_definition) -> None:
    migrate(url, "0014")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            for statement in LISTING:
                conn.execute(text(statement))
        migrate(url, "0015")
        engine.dispose()
        indexes = _indexes(engine)
        for name in ("ix_publicacion_city_filters", "ix_publicacion_city_commune", "ix_publicacion_city_price"):
            assert indexes[name][-len(TAB_COLUMNS) :] == list(TAB_COLUMNS), name
        assert indexes["ix_publicacion_city_price"][3:8] == [
            "price_hour_clp",
            "age",
            "owner_uid",
            "commune",
            "service_uids",
        ]
        assert indexes["ix_publicacion_city_available"][-1] == "available_until"
        assert indexes["ix_publicacion_city_visiting"][-2:] == ["visiting_from", "visiting_until"]
        with engine.connect() as conn:
            assert "porn_actress" in partial_definition(conn, "ix_publicacion_city_porn")
            assert "available_until IS NOT NULL" in partial_definition(conn, "ix_publicacion_city_available")
            assert "visiting_until IS NOT NULL" in partial_definition(conn, "ix_publicacion_city_visiting")
            assert conn.execute(text("SELECT uid FROM publicacion WHERE porn_actress = true")).all() == [("l1",)]
        migrate(url, "0014", downgrade=True)
        engine.dispose()
        indexes = _indexes(engine)
        assert not set(PARTIAL) & set(indexes)
        assert indexes["ix_publicacion_city_filters"][-1] == "service_uids"
        assert indexes["ix_publicacion_city_commune"][-1] == "service_uids"
        assert indexes["ix_publicacion_city_price"][-1] == "owner_uid"
        migrate(url)
        engine.dispose()
        assert set(PARTIAL) <= set(_indexes(engine))
    finally:
        engine.dispose()


def _postgresql_definition(conn, name: str) -> str:
    return conn.execute(text("SELECT indexdef FROM pg_indexes WHERE indexname = :name"), {"name": name}).scalar_one()


def _sqlite_definition(conn, name: str) -> str:
    return conn.execute(text("SELECT sql FROM sqlite_master WHERE name = :name"), {"name": name}).scalar_one()


def test_0015_puts_the_tabs_in_the_city_indexes_on_postgresql():
    with fresh_pg_database("mig15") as url:
        _check(url, _postgresql_definition)


def test_0015_puts_the_tabs_in_the_city_indexes_on_sqlite(tmp_path):
    _check(f"sqlite:///{tmp_path / 'm15.db'}", _sqlite_definition)
