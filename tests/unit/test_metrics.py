"""app.metrics on its own: the token check, several processes adding up in one scrape (prometheus-client's
multiprocess mode, as Granian's workers run it), the worker's own scrape port, and the pure helpers of
app.web.observe (request ids, reconnects, the session digest prefix)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from starlette.datastructures import Headers

from app import metrics
from app.metrics import SiteFigures, scrape_status
from tests.metrics_scrape import value
from tests.ports import free_port

PROJECT = Path(__file__).resolve().parents[2]


def test_the_scrape_answers_the_bearer_of_the_token_only():
    assert scrape_status("Bearer s3creto-largo", "") == 404  # no token configured: no metrics at all
    assert scrape_status(None, "s3creto-largo") == 401
    assert scrape_status("Bearer otro", "s3creto-largo") == 401
    assert scrape_status("s3creto-largo", "s3creto-largo") == 401
    assert scrape_status("Bearer s3creto-largo ", "s3creto-largo") == 401
    assert scrape_status("Bearer s3creto-largo", "s3creto-largo") == 200


def _in_process(folder: Path, code: str) -> str:
    """Run ``code`` in a new Python process writing its metrics to ``folder``; its output."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    done = subprocess.run(
        [sys.executable, "-c", "from app import metrics\n" + code],
        env=env,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def test_two_processes_add_up_in_one_scrape_and_a_dead_ones_open_sockets_are_dropped(tmp_path):
    _in_process(tmp_path, "metrics.MAIL_MESSAGES.labels('sent').inc(2)\nmetrics.WS_OPEN_SOCKETS.inc(4)")
    _in_process(
        tmp_path, "metrics.MAIL_MESSAGES.labels('sent').inc(3)\nmetrics.TASK_JOBS.labels('mail.send', 'failed').inc()"
    )
    text = _in_process(
        tmp_path,
        "metrics.WS_OPEN_SOCKETS.inc(1)\nimport sys\nsys.stdout.write(metrics.exposition().decode())",
    )
    assert value("escorts_mail_messages_total", text, outcome="sent") == 5
    assert value("escorts_task_jobs_total", text, task="mail.send", outcome="failed") == 1
    # The first process ended: its 4 sockets are gone with it; the live scraper's one remains.
    assert value("escorts_ws_open_sockets", text) == 1


def test_a_worker_serves_its_metrics_on_its_port_with_the_token_only():
    port = free_port()
    server = metrics.serve(port, "token-del-worker-123", lambda: SiteFigures(backup_last_success=1234.0))
    assert server is not None
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=10)
        assert refused.value.code == 401
        request = urllib.request.Request(url, headers={"Authorization": "Bearer token-del-worker-123"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
        assert value("escorts_backup_last_success_timestamp_seconds", text) == 1234.0
        assert "escorts_task_jobs_total" in text or "escorts_task_job_duration_seconds" in text
        # Port taken (a second worker on the same machine): it goes on without serving.
        assert metrics.serve(port, "token-del-worker-123") is None
    finally:
        server.shutdown()
        server.server_close()
    assert metrics.serve(port, "") is None  # no token: nothing listens
    assert metrics.serve(0, "token-del-worker-123") is None  # METRICS_PORT=0


def test_figures_that_cannot_be_read_leave_the_rest_of_the_scrape_whole(caplog):
    def down() -> SiteFigures:
        raise ConnectionError("la base de datos no responde")

    text = metrics.exposition(down).decode()
    assert "escorts_http_requests_total" in text or "escorts_mail_messages_total" in text
    assert "escorts_backup_last_success_timestamp_seconds" not in text
    assert "site figures not read" in caplog.text


def test_a_request_id_is_kept_only_when_it_looks_like_one():
    from app.web.observe import request_id

    assert request_id(Headers({"x-request-id": "abc-1234-XYZ"})) == "abc-1234-XYZ"
    for foreign in ("", "corto", "a b c d e f g h", "x" * 65, "id;DROP"):
        made = request_id(Headers({"x-request-id": foreign}))
        assert made != foreign and len(made) == 32


def test_a_reconnect_is_a_hydrate_without_the_compiled_hashes():
    from app.web.observe import is_reconnect

    first = {"event": {"name": "state.hydrate_and_load", "payload": {"hashes": {"a": "1"}, "vars": {}}}}
    again = {"event": {"name": "state.hydrate_and_load", "payload": {"vars": {}}}}
    assert not is_reconnect(first)
    assert is_reconnect(again)
    assert not is_reconnect(None)  # an old frontend that sends no boot event: a connection, no more


def test_only_the_session_digests_first_eight_characters_are_taken():
    from app.web.observe import session_prefix

    digest = "0f1e2d3c" + "ab" * 28
    assert session_prefix({"headers": {"cookie": f"otra=1; sesion_hash={digest}"}}) == "0f1e2d3c"
    assert session_prefix({"headers": {"cookie": "otra=1"}}) is None
    assert session_prefix({}) is None
    assert session_prefix(None) is None


def test_the_image_command_starts_every_run_with_an_empty_metrics_folder(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("serve", PROJECT / "scripts" / "serve.py")
    assert spec is not None and spec.loader is not None
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    given = tmp_path / "metricas"
    given.mkdir()
    (given / "counter_4242.db").write_bytes(b"valores de la vez anterior")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(given))
    assert serve.fresh_metrics_dir() == (given, False)
    assert list(given.iterdir()) == []
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    made, made_here = serve.fresh_metrics_dir()
    assert made_here and made.is_dir() and os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(made)
    made.rmdir()
