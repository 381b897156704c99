"""The Alembic history upgrades and downgrades cleanly on PostgreSQL."""

from __future__ import annotations

import psycopg
from sqlalchemy import inspect

from app.db import make_engine, migrate
from app.task_queue import not_task_queue
from tests.conftest import _libpq, fresh_pg_database

EXPECTED_TABLES = {
    "usuarios",
    "exportacion_datos",
    "perfil_usuario",
    "profesor",
    "agencia",
    "categoria_profesor",
    "categoria_agencia",
    "tipo_profesor",
    "servicio_profesor",
    "servicio_app",
    "publicacion",
    "publicacion_foto",
    "publicacion_foto_pendiente",
    "publicacion_video",
    "publicacion_servicio",
    "verificacion_publicacion",
    "estadistica_publicacion",
    "auditoria",
    "revisar_publicacion",
    "mejoras_publicacion",
    "reporte",
    "sesion",
    "ticket_sesion",
    "credencial_local",
    "codigo_accion",
    "aviso",
    "aviso_desactivado",
    "ajuste_sitio",
    "favoritas_en_cuenta",
    "favorita",
    "segundo_factor",
    "codigo_recuperacion",
    "trabajo_periodico",
    "correo_saliente",
}
# The task queue's own tables (Procrastinate), on PostgreSQL only: SQLite keeps its jobs in memory.
TASK_QUEUE_TABLES = {
    "procrastinate_jobs",
    "procrastinate_events",
    "procrastinate_periodic_defers",
    "procrastinate_workers",
}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade_on_postgresql():
    with fresh_pg_database("mig") as url:
        migrate(url)
        assert _tables(url) == EXPECTED_TABLES | TASK_QUEUE_TABLES
        with psycopg.connect(_libpq(url)) as conn:
            tiers = conn.execute("SELECT slug, display_order FROM categoria_profesor ORDER BY display_order").fetchall()
            profiles = conn.execute("SELECT uid FROM perfil_usuario ORDER BY uid").fetchall()
        assert tiers == [("diamante", 1), ("ruby", 2), ("platino", 3), ("chicas-del-dia", 4)]
        assert [p[0] for p in profiles] == ["administrador", "cliente", "profesor", "secretaria"]
        migrate(url, "base", downgrade=True)
        assert _tables(url) == set()
        with psycopg.connect(_libpq(url)) as conn:  # the queue's functions and types went too
            left = conn.execute("SELECT proname FROM pg_proc WHERE proname LIKE 'procrastinate%'").fetchall()
            left += conn.execute("SELECT typname FROM pg_type WHERE typname LIKE 'procrastinate%'").fetchall()
        assert left == []
        migrate(url)
        assert _tables(url) == EXPECTED_TABLES | TASK_QUEUE_TABLES


def test_upgrade_downgrade_on_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate(url)
    assert _tables(url) == EXPECTED_TABLES
    migrate(url, "0001", downgrade=True)
    assert "sesion" not in _tables(url)
    migrate(url)
    assert _tables(url) == EXPECTED_TABLES
    migrate(url, "base", downgrade=True)
    assert _tables(url) == set()


def test_models_and_migrations_agree_on_postgresql():
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    with fresh_pg_database("drift") as url:
        migrate(url)
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                context = MigrationContext.configure(conn, opts={"include_name": not_task_queue})
                diff = compare_metadata(context, SQLModel.metadata)
        finally:
            engine.dispose()
    assert diff == []
