"""Logs and error reports of every process, set up where a process starts (app.app in each web worker, app.cli).

Every record, the app's and its libraries' (Reflex, Granian, Procrastinate...), leaves through one handler
on standard error: a line of text, or with ``LOG_FORMAT=json`` one JSON object a line (time in UTC, level,
logger, message, node, pid, the fields of an ``event`` extra, the exception). app.core.redaction rewrites
what each line says first. With ``SENTRY_DSN``, error records and :func:`report`'s exceptions go to Sentry
(or a compatible server), scrubbed by the same rules, without request bodies, cookies, header values or
query strings.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
from datetime import UTC, datetime
from typing import Any

import sentry_sdk
from sentry_sdk.integrations.logging import LoggingIntegration

from app.core.redaction import redact, redact_data
from app.settings import Settings, get_settings

# Loggers that come with handlers of their own (Reflex's console, Granian's stdout): theirs are removed so
# that their records reach the one handler, as every other library's do.
SERVER_LOGGERS = ("reflex", "_granian", "granian.access")
# Libraries whose DEBUG lines are their protocol's bytes (request headers and bodies, photos, websocket frames
# in Granian's Rust code): INFO at most.
CHATTY_LOGGERS = (
    "asyncio",
    "boto3",
    "botocore",
    "charset_normalizer",
    "hpack",
    "httpcore",
    "multipart",
    "PIL",
    "python_multipart",
    "s3transfer",
    "tokio_tungstenite",
    "tungstenite",
    "urllib3",
    "watchfiles",
)
# What a JSON line always has; an event's fields never replace them.
BASE_FIELDS = ("time", "level", "logger", "message", "node", "pid")
# What of a request an error report keeps: the method and the address without its query string.
REQUEST_KEPT = ("method", "url")


def node_name(settings: Settings) -> str:
    """The name of this node in log lines and error reports: NODE_NAME, else the host name."""
    return settings.node_name or socket.gethostname()


def event_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields of the record's ``event`` extra (id, route or handler, duration, outcome...), redacted."""
    event = getattr(record, "event", None)
    if not isinstance(event, dict):
        return {}
    return {str(key): redact_data(value) for key, value in event.items()}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: the base fields, the event's fields beside them, the exception; redacted."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
            "node": self.node,
            "pid": record.process,
        }
        for key, value in event_fields(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exception"] = redact(self.formatException(record.exc_info))
        if record.stack_info:
            line["stack"] = redact(self.formatStack(record.stack_info))
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A line for a person: time, level, logger, message, the event's fields as key=value; redacted.

    What is redacted is what a record carries (its message, traceback and fields), not the time, level and
    logger name in front of them: the time's colons would send every line through all of the rules.
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as text (a traceback follows on the next lines)."""
        fields = "".join(f" {key}={value}" for key, value in event_fields(record).items())
        line = f"{self.formatTime(record)} {record.levelname} {record.name}: {redact(record.getMessage())}{fields}"
        if record.exc_info:
            line += "\n" + redact(self.formatException(record.exc_info))
        if record.stack_info:
            line += "\n" + redact(self.formatStack(record.stack_info))
        return line


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]  # typeshed's generic over the stream
    """The one handler of this process (told apart from others when configure runs again)."""


def configure(settings: Settings | None = None) -> None:
    """Route every record of this process through one redacting handler, and start error reports if set.

    Safe to call again (a web worker calls it at import and once its server has set its own loggers up):
    the handler is replaced, never added twice.
    """
    settings = settings or get_settings()
    node = node_name(settings)
    handler = _Handler(sys.stderr)
    handler.setFormatter(JsonFormatter(node) if settings.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    for name in SERVER_LOGGERS:
        server_logger = logging.getLogger(name)
        for own in list(server_logger.handlers):
            server_logger.removeHandler(own)
        server_logger.propagate = True
    quiet = max(logging.INFO, logging.getLevelName(settings.log_level))
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(quiet)
    _start_error_reports(settings, node)


# The process and DSN Sentry was started for: once per process (a forked worker starts its own).
_reporting: tuple[int, str] | None = None


def _start_error_reports(settings: Settings, node: str) -> None:
    """Sentry, when SENTRY_DSN is set."""
    global _reporting
    if not settings.sentry_dsn or _reporting == (os.getpid(), settings.sentry_dsn):
        return
    sentry_sdk.init(
        dsn=settings.sentry_dsn,
        environment=settings.sentry_environment or settings.environment,
        server_name=node,
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        traces_sample_rate=settings.sentry_traces_sample_rate,
        before_send=scrub_event,
        before_send_transaction=scrub_event,
        before_breadcrumb=scrub_breadcrumb,
        # Error records become reports; lower ones only breadcrumbs of the next report.
        integrations=[LoggingIntegration(level=logging.INFO, event_level=logging.ERROR)],
    )
    _reporting = (os.getpid(), settings.sentry_dsn)


def scrub_event(event: Any, _hint: Any) -> Any:
    """An error report as sent: of the request only its method and address (no query, body, cookies or
    headers), every string redacted."""
    request = event.get("request")
    if isinstance(request, dict):
        event["request"] = {key: request[key] for key in REQUEST_KEPT if key in request}
    event.pop("user", None)
    return redact_data(event)


def scrub_breadcrumb(crumb: Any, _hint: Any) -> Any:
    """A breadcrumb (an earlier log line, an HTTP call), redacted."""
    return redact_data(crumb)


def report(exception: BaseException, **tags: str) -> None:
    """Send ``exception`` to the error reports, tagged (a no-op without SENTRY_DSN)."""
    with sentry_sdk.new_scope() as scope:
        for key, value in tags.items():
            scope.set_tag(key, value)
        scope.capture_exception(exception)


def flush_reports(timeout: float = 5.0) -> None:
    """Wait until the reports made so far are sent (before a process exits)."""
    sentry_sdk.flush(timeout=timeout)
