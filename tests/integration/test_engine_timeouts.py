"""PostgreSQL limits of the app's engine: a slow statement, an exhausted pool
and an unanswering server each end in an error within their timeout."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import psycopg
import pytest
from pydantic import ValidationError
from sqlalchemy import exc, text
from sqlalchemy.engine import make_url

from app.db import make_engine
from app.settings import Settings
from tests.conftest import pg_server_url

pytestmark = pytest.mark.integration

LIMITS = Settings(db_connect_timeout_s=2, db_statement_timeout_ms=300, db_pool_timeout_s=1)


def _within(seconds: float, work):
    """Run ``work`` in a thread; fail if it has not finished after ``seconds``."""
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    try:
        return future.result(timeout=seconds)
    except FutureTimeout:
        pytest.fail(f"still waiting after {seconds} s: no timeout applied")
    finally:
        pool.shutdown(wait=False)


def test_a_statement_past_the_timeout_is_cancelled():
    engine = make_engine(pg_server_url(), settings=LIMITS)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW statement_timeout")).scalar() == "300ms"
            started = time.monotonic()
            with pytest.raises(exc.OperationalError) as raised:
                _within(5, lambda: connection.execute(text("SELECT pg_sleep(3)")))
            assert isinstance(raised.value.orig, psycopg.errors.QueryCanceled)
            assert time.monotonic() - started < 2
    finally:
        engine.dispose()


def test_the_default_statement_timeout_comes_from_the_settings():
    engine = make_engine(pg_server_url(), settings=Settings())
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW statement_timeout")).scalar() == "15s"
    finally:
        engine.dispose()


def test_prepared_statements_are_planned_with_their_own_values():
    """A statement run often keeps a plan made for its values (a generic plan was 2-7x slower on filtered pages)."""
    engine = make_engine(pg_server_url(), settings=Settings())
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW plan_cache_mode")).scalar() == "force_custom_plan"
    finally:
        engine.dispose()


def test_an_exhausted_pool_raises_within_the_pool_timeout():
    engine = make_engine(pg_server_url(), settings=LIMITS)
    held = []
    try:
        # Check out connections until the pool has none left to give.
        for _ in range(100):
            started = time.monotonic()
            try:
                held.append(_within(5, engine.connect))
            except exc.TimeoutError:
                break
        else:
            pytest.fail("the pool never ran out of connections")
        assert 0.9 <= time.monotonic() - started < 3
        assert len(held) == engine.pool.size() + engine.pool.overflow()
    finally:
        for connection in held:
            connection.close()
        engine.dispose()


def test_a_server_that_never_answers_fails_within_the_connect_timeout():
    # A listening socket nobody accepts: TCP connects, the server never speaks.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        url = make_url(pg_server_url()).set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
        engine = make_engine(url, settings=LIMITS)
        started = time.monotonic()
        with pytest.raises(exc.OperationalError, match="timeout"):
            _within(10, engine.connect)
        assert time.monotonic() - started < 5
        engine.dispose()


@pytest.mark.parametrize(
    ("field", "value"), [("db_connect_timeout_s", 1), ("db_statement_timeout_ms", 0), ("db_pool_timeout_s", -1)]
)
def test_timeouts_that_would_disable_the_limit_are_refused(field, value):
    with pytest.raises(ValidationError, match=field.upper()):
        Settings(_env_file=None, **{field: value})
