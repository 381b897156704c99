"""Database engine and sessions for the configured DATABASE_URL."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

from app.settings import Settings, get_settings


def make_engine(url: str, *, settings: Settings | None = None, statement_timeout_ms: int | None = None) -> Engine:
    """Create an engine; SQLite gets foreign keys on and a busy timeout.

    PostgreSQL connections give up after DB_CONNECT_TIMEOUT_S, statements are
    cancelled after DB_STATEMENT_TIMEOUT_MS (``statement_timeout_ms`` overrides
    it; 0 = no limit, for migrations) and waiting for a pooled connection ends
    after DB_POOL_TIMEOUT_S. Pooled connections are checked before use, so the
    engine recovers by itself after a database restart.
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        return engine
    settings = settings or get_settings()
    if statement_timeout_ms is None:
        statement_timeout_ms = settings.db_statement_timeout_ms
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=10,
        pool_timeout=settings.db_pool_timeout_s,
        connect_args={
            "connect_timeout": settings.db_connect_timeout_s,
            "options": f"-c statement_timeout={statement_timeout_ms}",
        },
    )


@functools.lru_cache
def get_engine() -> Engine:
    """The process-wide engine for the configured database."""
    return make_engine(get_settings().database_url)


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session that is closed on exit; callers commit through the services."""
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


def migrate(url: str | None = None, revision: str = "head", *, downgrade: bool = False) -> None:
    """Upgrade (or downgrade) the database at ``url`` with the Alembic history."""
    from alembic.config import Config

    from alembic import command
    from app.settings import PROJECT_ROOT

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.attributes["database_url"] = url or get_settings().database_url
    config.attributes["configure_logger"] = False
    if downgrade:
        command.downgrade(config, revision)
    else:
        command.upgrade(config, revision)
