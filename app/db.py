"""Database engine and sessions for the configured DATABASE_URL, and the project's one unit of work.

One transaction per operation: inner steps only ``flush()``, and the
outermost operation commits once, either through :func:`commit` (a plain
service) or at the end of a :func:`transaction` block, which also runs side
effects such as e-mail only after the commit and undoes remote changes
(compensation) when it rolls back.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.orm import SessionTransaction
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection, QueuePool
from sqlmodel import Session, create_engine

from app import metrics
from app.core.errors import ConflictError, StorageError
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)

NOT_SAVED = "No pudimos guardar los cambios. Inténtalo de nuevo en un momento."
# SQLAlchemy's cache of compiled statements, per engine (its default is 500; see make_engine).
QUERY_CACHE_SIZE = 3000


class ObservedPool(QueuePool):
    """SQLAlchemy's QueuePool, counting in escorts_db_pool_connections{state="waiting"} the requests that
    find every connection taken and wait for one (until DB_POOL_TIMEOUT_S)."""

    def __init__(self, creator: Any, pool_size: int = 5, max_overflow: int = 10, **kwargs: Any) -> None:
        super().__init__(creator, pool_size=pool_size, max_overflow=max_overflow, **kwargs)
        self.limit = pool_size + max_overflow

    def _do_get(self) -> ConnectionPoolEntry:
        if self.checkedout() < self.limit:
            return super()._do_get()
        waiting = metrics.DB_POOL.labels(metrics.WAITING)
        waiting.inc()
        try:
            return super()._do_get()
        finally:
            waiting.dec()


_STARTED = "app.db.statement_started"


def observe(engine: Engine, *, slow_ms: int, pool: bool) -> None:
    """Count ``engine``'s statements slower than ``slow_ms`` and, with ``pool`` (the process's own engine),
    its connections in use (escorts_db_slow_statements_total, escorts_db_pool_connections)."""
    slow_s = slow_ms / 1000

    @event.listens_for(engine, "before_cursor_execute")
    def _started(conn: Connection, *_: object) -> None:
        conn.info[_STARTED] = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _finished(conn: Connection, *_: object) -> None:
        started = conn.info.pop(_STARTED, None)
        if started is not None and time.perf_counter() - started >= slow_s:
            metrics.DB_SLOW_STATEMENTS.inc()

    if not pool:
        return
    in_use = metrics.DB_POOL.labels(metrics.IN_USE)

    @event.listens_for(engine, "checkout")
    def _checked_out(_dbapi: DBAPIConnection, _record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
        in_use.inc()

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi: DBAPIConnection | None, _record: ConnectionPoolEntry) -> None:
        in_use.dec()


def make_engine(url: str, *, settings: Settings | None = None, statement_timeout_ms: int | None = None) -> Engine:
    """Create an engine; SQLite gets foreign keys on and a busy timeout.

    PostgreSQL connections give up after DB_CONNECT_TIMEOUT_S, statements are
    cancelled after DB_STATEMENT_TIMEOUT_MS (``statement_timeout_ms`` overrides
    it; 0 = no limit, for migrations), every statement is planned with its own
    values, and waiting for a pooled connection ends
    after DB_POOL_TIMEOUT_S. Pooled connections are checked before use, so the
    engine recovers by itself after a database restart.
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, query_cache_size=QUERY_CACHE_SIZE, connect_args={"check_same_thread": False, "timeout": 30}
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
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
        poolclass=ObservedPool,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=10,
        pool_timeout=settings.db_pool_timeout_s,
        # Compiled statements kept: the city page's filters and tabs make well over the default 500 shapes of
        # statement, and a shape compiled again costs about as much as its SQL (docs/performance.md).
        query_cache_size=QUERY_CACHE_SIZE,
        connect_args={
            "connect_timeout": settings.db_connect_timeout_s,
            # Always plan with the statement's values: psycopg prepares a statement from its 5th run, and PostgreSQL
            # may then switch to a generic plan, blind to a filter's rate or age range (at 500,000 listings, 2-7
            # times slower city pages; docs/performance.md).
            "options": f"-c statement_timeout={statement_timeout_ms} -c plan_cache_mode=force_custom_plan",
        },
    )


def is_database_outage(exception: BaseException) -> bool:
    """True when the database could not be reached or answered too late, anywhere in the exception's chain."""
    seen: set[int] = set()
    current: BaseException | None = exception
    while current is not None and id(current) not in seen:
        if isinstance(current, (OperationalError, PoolTimeoutError)):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


@functools.lru_cache
def get_engine() -> Engine:
    """The process-wide engine for the configured database, its pool and slow statements counted (app.metrics)."""
    settings = get_settings()
    engine = make_engine(settings.database_url)
    observe(engine, slow_ms=settings.db_slow_statement_ms, pool=True)
    return engine


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session that is closed on exit; callers commit through the services."""
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


@contextmanager
def read_scope() -> Iterator[Session]:
    """A session for reads alone, each statement committed on its own: a public page's one statement costs two
    round trips fewer (no BEGIN before it, no ROLLBACK when the session closes), 15–25 % of the render's CPU
    (docs/performance.md, 2026-11-29 11:40). Nothing may be written through it."""
    with Session(get_engine(), expire_on_commit=False) as session:
        session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        yield session


_AFTER_COMMIT = "app.db.after_commit"
_ON_ROLLBACK = "app.db.on_rollback"


def after_session_commit(session: Session, step: Callable[[], None], *, undo: Callable[[], None]) -> None:
    """Run ``step`` once ``session``'s current transaction commits, or ``undo`` if it ends any other way.

    For services that commit with :func:`commit` rather than in a
    :func:`transaction` block (the same thing happens inside one): a side effect such as an e-mail
    leaves only with the commit. A failing step is logged, never raised (the operation did happen).
    """
    session.info.setdefault(_AFTER_COMMIT, []).append(step)
    session.info.setdefault(_ON_ROLLBACK, []).append(undo)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    session.info.pop(_ON_ROLLBACK, None)
    for step in session.info.pop(_AFTER_COMMIT, []):
        try:
            step()
        except Exception:
            log.exception("a step after the commit failed")


@event.listens_for(Session, "after_transaction_end")
def _undo_uncommitted(session: Session, transaction: SessionTransaction) -> None:
    """A transaction that ended without committing (rolled back, or its session closed): undo its side effects."""
    if transaction.parent is not None or _ON_ROLLBACK not in session.info:
        return
    session.info.pop(_AFTER_COMMIT, None)
    for undo in reversed(session.info.pop(_ON_ROLLBACK)):
        try:
            undo()
        except Exception:
            log.exception("could not undo a change after a rollback")


def commit(session: Session, failure: str = NOT_SAVED, *, conflict: bool = False) -> None:
    """Commit the operation's writes once, or roll back and raise StorageError(``failure``): nothing was changed.

    With ``conflict``, a refused uniqueness or foreign key raises ConflictError (same message) instead.
    """
    try:
        session.commit()
    except SQLAlchemyError as exc:
        session.rollback()
        if conflict and isinstance(exc, IntegrityError):
            raise ConflictError(failure) from exc
        raise StorageError(failure) from exc


class Transaction:
    """One operation's unit of work: its database session, steps after the commit, remote changes.

    Made by :func:`transaction`, which commits once at the end or rolls back.
    """

    def __init__(self, session: Session) -> None:
        self.session = session
        self._before_commit: list[Callable[[], None]] = []
        self._after_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []

    def before_commit(self, step: Callable[[], None]) -> None:
        """Run ``step`` (a remote change that cannot be undone) after the last local write, just before the commit.

        Steps run in the order given; one that raises rolls the transaction back.
        """
        self._before_commit.append(step)

    def after_commit(self, step: Callable[[], None]) -> None:
        """Run ``step`` (a side effect such as handing an e-mail to the sender) once the transaction committed.

        Steps run in the order given; a failure is logged, never raised (the operation did happen).
        """
        self._after_commit.append(step)

    def on_rollback(self, undo: Callable[[], None]) -> None:
        """Undo a change already made (remote, or a place taken in a queue) if the transaction rolls back
        (undos run last first)."""
        self._on_rollback.append(undo)

    def _commit(self) -> None:
        self.session.flush()  # a refused local write fails here, before any remote change
        for step in self._before_commit:
            step()
        self.session.commit()

    def _roll_back(self) -> None:
        """Roll back and undo the changes already made; failures here are logged, never raised
        (the exception that caused the rollback is the one the caller must see)."""
        try:
            self.session.rollback()
        except Exception:
            log.exception("rollback failed")
        for undo in reversed(self._on_rollback):
            try:
                undo()
            except Exception:
                log.exception("could not undo a change after a rollback")

    def _committed(self) -> None:
        for step in self._after_commit:
            try:
                step()
            except Exception:
                log.exception("a step after the commit failed")


@contextmanager
def transaction(session: Session) -> Iterator[Transaction]:
    """``with transaction(session) as tx: ...``: commit once when the block ends, roll back if anything raises.

    The steps the block registered with ``tx.after_commit`` (e-mail) run after
    the commit; the undos it registered with ``tx.on_rollback`` run after a rollback.
    """
    tx = Transaction(session)
    try:
        yield tx
        tx._commit()
    except BaseException:
        tx._roll_back()
        raise
    tx._committed()


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
