"""Migration 0016 on PostgreSQL and SQLite: listings learn whether their owner is hidden, triggers keep that in
step, the city-page indexes lead with it after the city, and the history goes down and up again."""

from __future__ import annotations

from sqlalchemy import inspect, text

from app.db import make_engine, migrate
from tests.conftest import fresh_pg_database

CITY_INDEXES = (
    "ix_publicacion_city_tier",
    "ix_publicacion_city_recent",
    "ix_publicacion_city_commune",
    "ix_publicacion_city_price",
    "ix_publicacion_city_filters",
    "ix_publicacion_city_porn",
    "ix_publicacion_city_available",
    "ix_publicacion_city_visiting",
)
USER = (
    "INSERT INTO usuarios (uid, email, display_name, profile_uid, activo, ban, online, created_at, updated_at)"
    " VALUES (:uid, :email, '', 'profesor', :activo, :ban, false, CURRENT_TIMESTAMP,"
    " CURRENT_TIMESTAMP)"
)
LISTING = (
    "INSERT INTO publicacion (uid, owner_uid, section, commune, description, phone, whatsapp, has_video,"
    " verified, porn_actress, curvy, status, created_at, updated_at)"
    " VALUES (:uid, :owner, 'mujeres', 'Talca', '', '', '', false, false, false, false, 'publicada',"
    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)


def _indexes(engine, table: str = "publicacion") -> dict[str, list[str]]:
    return {index["name"]: index["column_names"] for index in inspect(engine).get_indexes(table)}


def _hidden(engine) -> dict[str, bool]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT uid, owner_hidden FROM publicacion ORDER BY uid")).all()
    return {uid: bool(hidden) for uid, hidden in rows}


def _check(url: str) -> None:
    migrate(url, "0015")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            for uid, activo, ban in (("ok", True, False), ("banned", True, True), ("off", False, False)):
                conn.execute(text(USER), {"uid": uid, "email": f"{uid}@example.cl", "activo": activo, "ban": ban})
                conn.execute(text(LISTING), {"uid": f"l-{uid}", "owner": uid})
        migrate(url, "0016")
        engine.dispose()
        assert _hidden(engine) == {"l-banned": True, "l-off": True, "l-ok": False}  # filled from usuarios
        indexes = _indexes(engine)
        for name in CITY_INDEXES:
            assert indexes[name][:4] == ["status", "section", "city_slug", "owner_hidden"], name
            assert "owner_uid" not in indexes[name], name
        assert indexes["ix_publicacion_featured"][:3] == ["status", "section", "owner_hidden"]
        assert "ix_usuarios_hidden" not in _indexes(engine, "usuarios")
        with engine.begin() as conn:  # the triggers, both ways
            conn.execute(text("UPDATE usuarios SET ban = false WHERE uid = 'banned'"))
            conn.execute(text("UPDATE usuarios SET ban = true WHERE uid = 'ok'"))
            conn.execute(text(LISTING), {"uid": "l-new", "owner": "off"})
        assert _hidden(engine) == {"l-banned": False, "l-new": True, "l-off": True, "l-ok": True}
        migrate(url, "0015", downgrade=True)
        engine.dispose()
        assert "owner_hidden" not in {column["name"] for column in inspect(engine).get_columns("publicacion")}
        indexes = _indexes(engine)
        assert indexes["ix_publicacion_city_price"][5] == "owner_uid"
        assert indexes["ix_publicacion_city_tier"][-1] == "owner_uid"
        assert "ix_usuarios_hidden" in _indexes(engine, "usuarios")
        with engine.begin() as conn:  # no trigger left behind to write a column that is gone
            conn.execute(text("UPDATE usuarios SET ban = false WHERE uid = 'ok'"))
            conn.execute(text(LISTING), {"uid": "l-after", "owner": "ok"})
        migrate(url)
        engine.dispose()
        assert _hidden(engine)["l-off"] is True
    finally:
        engine.dispose()


def test_0016_keeps_owner_hidden_in_step_on_postgresql():
    with fresh_pg_database("mig16") as url:
        _check(url)


def test_0016_keeps_owner_hidden_in_step_on_sqlite(tmp_path):
    _check(f"sqlite:///{tmp_path / 'm16.db'}")
