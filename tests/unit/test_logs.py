"""Log lines (app.logs): one JSON object a line with the event's fields beside the base ones, or text; redacted;
every library's records through the one handler."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator

import pytest

from app import logs
from app.settings import Settings
from tests.logging_state import logging_restored as restored

EVENT = {"id": "r-7f3a", "route": "/escorts/[city]", "duration_ms": 12.5, "outcome": "200", "session": "a1b2c3d4"}


def _record(
    message: str, *args: object, event: dict | None = None, exc: BaseException | None = None
) -> logging.LogRecord:
    record = logging.LogRecord("app.access", logging.INFO, __file__, 1, message, args, None)
    if event is not None:
        record.event = event
    if exc is not None:
        record.exc_info = (type(exc), exc, exc.__traceback__)
    return record


def _failure() -> ValueError:
    try:
        raise ValueError("bad input from ana@x.cl")
    except ValueError as exc:
        return exc


def test_a_json_line_has_the_base_fields_and_the_event_flattened():
    line = logs.JsonFormatter("node-2").format(_record("%s %s", "GET", "/escorts/temuco", event=EVENT))
    assert "\n" not in line
    assert json.loads(line) == {
        "time": json.loads(line)["time"],
        "level": "INFO",
        "logger": "app.access",
        "message": "GET /escorts/temuco",
        "node": "node-2",
        "pid": json.loads(line)["pid"],
        **EVENT,
    }
    assert json.loads(line)["time"].endswith("+00:00")


def test_an_event_field_never_replaces_a_base_field():
    line = json.loads(
        logs.JsonFormatter("node-2").format(_record("hello", event={"message": "x", "node": "y", "id": 1}))
    )
    assert (line["message"], line["node"], line["id"]) == ("hello", "node-2", 1)


def test_a_json_line_with_a_traceback_stays_one_line_and_is_redacted():
    line = logs.JsonFormatter("n").format(_record("failed for %s", "ana@x.cl", exc=_failure()))
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["message"] == "failed for [email]"
    assert "ValueError: bad input from [email]" in parsed["exception"]
    assert "ana@x.cl" not in line


def test_event_values_are_redacted_too():
    line = json.loads(logs.JsonFormatter("n").format(_record("x", event={"id": "1", "route": "/u/ana@x.cl"})))
    assert line["route"] == "/u/[email]"


def test_a_text_line_carries_the_event_as_key_value_pairs_before_the_traceback():
    text = logs.TextFormatter().format(
        _record("done code 123456", event={"id": "r-1", "outcome": "ok"}, exc=_failure())
    )
    first, *rest = text.splitlines()
    assert first.endswith("INFO app.access: done code [code] id=r-1 outcome=ok")
    assert rest[-1] == "ValueError: bad input from [email]"


@pytest.fixture
def logging_restored() -> Iterator[None]:
    with restored():
        yield


def test_configure_sends_every_library_through_one_json_handler(logging_restored, capsys):
    granian = logging.getLogger("_granian")
    granian.addHandler(logging.StreamHandler(sys.stdout))  # as Granian's own dictConfig leaves it
    granian.propagate = False
    settings = Settings(log_format="json", log_level="DEBUG", node_name="nodo-1")
    logs.configure(settings)
    logs.configure(settings)  # again, as each web worker does: still one handler

    granian.info("Spawning worker-1 for ana@x.cl")
    logging.getLogger("procrastinate.worker").debug("Starting job mail.send[3](mail_uid='Ab12')")
    logging.getLogger("botocore.endpoint").debug("Sending http request: headers omitted")  # capped at INFO

    out = capsys.readouterr()
    assert out.out == ""
    lines = [json.loads(line) for line in out.err.splitlines()]
    assert [(line["logger"], line["message"], line["node"]) for line in lines] == [
        ("_granian", "Spawning worker-1 for [email]", "nodo-1"),
        ("procrastinate.worker", "Starting job mail.send[3](mail_uid='Ab12')", "nodo-1"),
    ]


def test_the_level_setting_filters_the_app_loggers(logging_restored, capsys):
    logs.configure(Settings(log_format="text", log_level="warning"))
    logging.getLogger("app.services.accounts").info("signed in")
    logging.getLogger("app.services.accounts").warning("refused")
    err = capsys.readouterr().err
    assert "signed in" not in err
    assert "WARNING app.services.accounts: refused" in err
