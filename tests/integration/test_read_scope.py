"""The public pages' read-only sessions (app.db.read_scope) on PostgreSQL: their statement runs without a
transaction around it, no transaction stays open after them, and the pooled connection they used goes back to
the writers transactional (a write rolled back there is not kept)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import Session, func, select

from app.db import get_engine, make_engine, read_scope, session_scope

pytestmark = pytest.mark.integration


def _backend_pid(session: Session) -> int:
    return session.exec(select(func.pg_backend_pid())).one()


def test_a_read_runs_outside_any_transaction_and_leaves_none_open(app_database):
    with read_scope() as session:
        pid = _backend_pid(session)
        # Inside a transaction PostgreSQL gives a transaction id once asked for one; outside, each statement is
        # its own: two statements see two different ones.
        first = session.exec(select(func.txid_current())).one()
        second = session.exec(select(func.txid_current())).one()
        assert first != second
    probe_engine = make_engine(app_database)  # a connection of its own: the pool's one is the reader's
    try:
        with probe_engine.connect() as probe:
            query = text("SELECT state FROM pg_stat_activity WHERE pid = :pid")
            assert probe.execute(query, {"pid": pid}).scalar() == "idle"
    finally:
        probe_engine.dispose()


def test_the_connection_goes_back_to_the_writers_transactional(app_database):
    with read_scope() as session:
        reader = _backend_pid(session)
    engine = get_engine()
    assert engine.pool.checkedin() == 1  # the one pooled connection: the writer below takes the reader's
    with session_scope() as session:
        assert _backend_pid(session) == reader
        session.exec(text("CREATE TABLE borrador (n integer)"))  # PostgreSQL's DDL is transactional
        session.rollback()
    with read_scope() as session:
        assert session.exec(text("SELECT to_regclass('borrador') IS NULL")).scalar() is True
