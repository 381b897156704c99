"""Error reports (app.logs, SENTRY_DSN) against a local server that records what the Sentry SDK sends.

Each test raises a real exception through a real report path (an event handler's failure, an HTTP request's,
a task's on the real queue) with secrets in it and around it, then checks that the report arrived and that
none of the secrets is in any byte sent.
"""

from __future__ import annotations

import gzip
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import sentry_sdk
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

from app import logs, task_queue, tasks
from app.db import commit, get_engine
from app.settings import Settings
from app.states.failures import on_backend_exception
from tests.logging_state import logging_restored
from tests.waits import run_queued_tasks

EMAIL = "camila.reporte@correo.cl"
PHONE = "+56 9 7654 3210"
PASSWORD = "Clave-Reporte-2026"
RUT = "15.432.876-3"
TOKEN = "Xq3v9TfLw2Rk8Zp1Bn4Hc7Jm5Dy0Gs6EaUiQw"
COOKIE = "Fp2Lq8Zr4Tn6Wv0Xb3Yc5Hd7Je9Kg1Mm-Ns_Pt"
SECRETS = (EMAIL, "7654 3210", PASSWORD, RUT, TOKEN, COOKIE)


@dataclass
class Envelopes:
    """What the SDK posted to the local server, decompressed."""

    bodies: list[bytes] = field(default_factory=list)

    def raw(self) -> bytes:
        return b"\n".join(self.bodies)


@pytest.fixture
def reports() -> Iterator[Envelopes]:
    """A local Sentry-compatible endpoint, and app.logs configured to report to it."""
    received = Envelopes()

    class Recorder(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            received.bodies.append(body)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    dsn = f"http://publickey@127.0.0.1:{server.server_address[1]}/1"
    try:
        with logging_restored():
            logs.configure(Settings(sentry_dsn=dsn, node_name="nodo-prueba"))
            yield received
            logs.flush_reports()
    finally:
        sentry_sdk.get_client().close()
        server.shutdown()
        server.server_close()


def _sent(received: Envelopes) -> bytes:
    logs.flush_reports()
    return received.raw()


def _assert_no_secret(raw: bytes) -> None:
    leaked = [secret for secret in SECRETS if secret.encode() in raw]
    assert leaked == [], f"secrets in what was sent: {leaked}"


def test_an_event_handler_failure_is_reported_without_its_secrets(reports):
    log = logging.getLogger("app.services.accounts")
    log.info("sign-in of %s with password=%s from %s", EMAIL, PASSWORD, PHONE)  # a breadcrumb of the report
    try:
        raise LookupError(f"no row for {{'email': '{EMAIL}', 'password': '{PASSWORD}', 'rut': '{RUT}'}} {TOKEN}")
    except LookupError as exc:
        on_backend_exception(exc)
    raw = _sent(reports)
    assert b'"type":"LookupError"' in raw
    assert b"nodo-prueba" in raw
    assert b"[email]" in raw
    _assert_no_secret(raw)


def test_an_http_failure_is_reported_without_the_request_body_cookies_headers_or_query(reports):
    async def failing(request: Request) -> None:
        await request.body()
        raise ZeroDivisionError("total of the request")

    client = TestClient(Starlette(routes=[Route("/datos", failing, methods=["POST"])]), raise_server_exceptions=False)
    client.cookies.set("sesion", COOKIE)
    response = client.post(
        f"/datos?correo={EMAIL}&fono={PHONE}",
        json={"password": PASSWORD, "rut": RUT},
        headers={"Authorization": f"Bearer {TOKEN}", "X-Telefono": PHONE},
    )
    assert response.status_code == 500
    raw = _sent(reports)
    assert b'"type":"ZeroDivisionError"' in raw
    assert b"/datos" in raw  # the method and address are kept
    _assert_no_secret(raw)


def test_a_task_that_fails_on_the_real_queue_is_reported_without_its_secrets(reports, app_database, monkeypatch):
    def failing_retention() -> None:
        raise PermissionError(f"retention stopped at the report of {EMAIL} ({PHONE}), cookie: sesion={COOKIE}")

    monkeypatch.setattr(tasks, "run_retention", failing_retention)
    retention = task_queue.TaskName(task_queue.RETENTION.name, "default", task_queue.RETENTION.label)
    with Session(get_engine()) as db:
        task_queue.defer(db, retention, timestamp=0)
        commit(db)
    run_queued_tasks()
    raw = _sent(reports)
    assert b'"type":"PermissionError"' in raw
    assert f'"task":"{task_queue.RETENTION.name}"'.encode() in raw
    _assert_no_secret(raw)
