"""Unexpected errors in event handlers: logged with the exception, told to the visitor in Spanish."""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from app.app import app
from app.states.failures import DATABASE_DOWN, UNEXPECTED, on_backend_exception


def _toast_text(spec) -> str:
    """The JavaScript the browser runs for the returned toast (strings in it are JSON literals)."""
    return str(spec.args[0][1])


def _database_down() -> OperationalError:
    engine = create_engine("sqlite:////nonexistent-folder/none.db")
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except OperationalError as error:
        return error
    finally:
        engine.dispose()
    raise AssertionError("connecting to a file in a missing folder should fail")


def test_the_app_uses_the_spanish_handler():
    assert app.backend_exception_handler is on_backend_exception
    app._validate_exception_handlers()  # Reflex accepts its signature


@pytest.mark.parametrize(
    "exception",
    [_database_down(), PoolTimeoutError("QueuePool limit reached"), RuntimeError("while saving")],
    ids=["operational", "pool-timeout", "wrapped"],
)
def test_a_database_outage_says_so(exception, caplog):
    if isinstance(exception, RuntimeError):
        exception.__cause__ = _database_down()
    with caplog.at_level(logging.ERROR, logger="app.states.failures"):
        spec = on_backend_exception(exception)
    assert json.dumps(DATABASE_DOWN) in _toast_text(spec)
    assert '"error"' in _toast_text(spec)
    assert caplog.records and caplog.records[0].exc_info[1] is exception


def test_any_other_error_is_logged_and_shown_in_spanish(caplog):
    exception = KeyError("falta")
    with caplog.at_level(logging.ERROR, logger="app.states.failures"):
        spec = on_backend_exception(exception)
    assert json.dumps(UNEXPECTED) in _toast_text(spec)
    assert "An error occurred" not in _toast_text(spec)
    assert caplog.records[0].exc_info[1] is exception
