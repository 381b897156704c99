"""The Prometheus metrics (app.metrics) against the app's real pieces: /metrics and its token, HTTP requests
by route template through the app's own middleware, websocket events through Reflex's real event processor,
jobs run by the worker, mail delivered and failed, the figures read from the database at scrape time, and
no label that carries a person, a secret, an id or a raw path."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from reflex_base.event import Event
from reflex_base.event.processor.base_state_processor import BaseStateEventProcessor
from sqlalchemy import create_engine, text
from sqlmodel import select
from starlette.testclient import TestClient

from app.app import app as reflex_app
from app.core.errors import PhotoRejectedError
from app.db import ObservedPool, get_engine
from app.metrics import OTHER_ROUTE
from app.models import ListingReview, OutgoingMail, Report, utc_now
from app.services import photos
from app.services.backup import create_backup
from app.services.mail import MailError, deliver, queue_email
from app.settings import get_settings
from app.states.public import AgeGateState
from app.task_queue import MAIL
from app.web.api import build_api
from app.web.observe import observe_requests
from tests.factories import make_listing, make_owner
from tests.metrics_scrape import samples, scrape, value
from tests.ports import free_port
from tests.waits import run_queued_tasks

pytestmark = pytest.mark.integration

TOKEN = "token-de-metricas-0123456789abcdef"
SIGNED_IN_DIGEST = "deadbeef" * 8
HYDRATED = "reflex___state____state.set_is_hydrated"


def _client(monkeypatch, token: str | None) -> TestClient:
    """The app's HTTP side wrapped in the observing middleware, as app.app stacks it (outermost)."""
    if token is None:
        monkeypatch.delenv("METRICS_TOKEN", raising=False)
    else:
        monkeypatch.setenv("METRICS_TOKEN", token)
    get_settings.cache_clear()
    api = build_api(reflex_app)
    return TestClient(observe_requests(api)(api), base_url="http://localhost")


@pytest.fixture
def client(app_database, monkeypatch) -> TestClient:
    with _client(monkeypatch, TOKEN) as test_client:
        yield test_client


def test_metrics_answer_only_the_bearer_of_the_token(app_database, monkeypatch):
    with _client(monkeypatch, None) as client:
        assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404
    with _client(monkeypatch, TOKEN) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer otro"}).status_code == 401
        assert client.get("/metrics", headers={"Authorization": TOKEN}).status_code == 401
        answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert "escorts_http_requests_total" in answer.text
    assert "escorts_review_oldest_pending_age_seconds 0.0" in answer.text  # read from the (empty) database
    assert TOKEN not in answer.text


def test_requests_are_counted_by_route_template_never_by_their_path(client, caplog):
    city = value("escorts_http_requests_total", route="/escorts-ssg/{city}", method="GET", status="200")
    detail = value("escorts_http_request_duration_seconds_count", route="/escorts/{city}/{slug}/{uid}", method="GET")
    media = value("escorts_http_requests_total", route="/media/{key:path}", method="GET", status="404")
    other = value("escorts_http_requests_total", route=OTHER_ROUTE, method="GET", status="307")
    with caplog.at_level(logging.INFO, logger="app.access"):
        assert client.get("/escorts-ssg/temuco").status_code == 200
        client.get("/escorts/santiago-de-chile/valentina-4821/a1b2c3d4e5f6")
        client.get("/media/photos/ab/ab12cd34ef56-400.webp")
        # Nothing of the app's is there (Starlette's router proposes the path with a slash).
        assert client.get("/no-existe/12345/otra-cosa/6789", follow_redirects=False).status_code == 307
    text = scrape()
    assert (
        value("escorts_http_requests_total", text, route="/escorts-ssg/{city}", method="GET", status="200") == city + 1
    )
    assert (
        value("escorts_http_request_duration_seconds_count", text, route="/escorts/{city}/{slug}/{uid}", method="GET")
        == detail + 1
    )
    assert (
        value("escorts_http_requests_total", text, route="/media/{key:path}", method="GET", status="404") == media + 1
    )
    assert value("escorts_http_requests_total", text, route=OTHER_ROUTE, method="GET", status="307") == other + 1
    labels = "\n".join(line.rsplit(" ", 1)[0] for line in text.splitlines() if not line.startswith("#"))
    for raw in ("temuco", "valentina-4821", "a1b2c3d4e5f6", "ab12cd34ef56", "12345", "6789"):
        assert raw not in labels  # in no sample's name or labels (a value may hold any digits)
    records = [record.event for record in caplog.records if record.name == "app.access"]  # type: ignore[attr-defined]
    assert [record["route"] for record in records] == [
        "/escorts-ssg/{city}",
        "/escorts/{city}/{slug}/{uid}",
        "/media/{key:path}",
        OTHER_ROUTE,
    ]
    assert records[0]["outcome"] == 200 and records[0]["duration_ms"] >= 0
    assert all(re.fullmatch(r"[0-9a-f]{32}", record["id"]) for record in records)


def test_a_request_id_is_taken_when_it_looks_like_one_and_is_answered(client):
    assert client.get("/healthz", headers={"X-Request-ID": "abc-1234-XYZ"}).headers["x-request-id"] == "abc-1234-XYZ"
    for foreign in ("corto", "con espacios y mas", "x" * 65, "<script>"):
        answer = client.get("/healthz", headers={"X-Request-ID": foreign})
        assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])


def _run_event(name: str, *, cookie: str = "", payload: dict | None = None) -> None:
    """One event through Reflex's real event processor (memory state), as a tab's websocket would send it."""

    async def scenario() -> None:
        processor = BaseStateEventProcessor(backend_exception_handler=None).configure()
        async with processor:
            router_data = {"headers": {"cookie": cookie}} if cookie else {}
            future = await processor.enqueue(
                "pestana-1", Event(name=name, payload=payload or {}, router_data=router_data)
            )
            with contextlib.suppress(Exception):  # the handler's failure, counted as an error
                await future

    # On a loop of its own in a worker thread (tests.handlers.run_async), with this thread's context:
    # the handlers app.app registered live in a context variable.
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as worker:
        worker.submit(context.run, asyncio.run, scenario()).result()


def _event_records(caplog, handler: str) -> list[dict]:
    return [r.event for r in caplog.records if r.name == "app.events" and r.event["handler"] == handler]  # type: ignore[attr-defined]


def test_websocket_events_are_counted_by_handler_and_outcome_and_framework_steps_log_at_debug(app_database, caplog):
    ok = value("escorts_ws_events_total", handler="State.set_is_hydrated", outcome="ok")
    timed = value("escorts_ws_event_duration_seconds_count", handler="State.set_is_hydrated")
    signed_in = f"otra=1; sesion_hash={SIGNED_IN_DIGEST}"
    # Reflex's own step of a navigation, gone well: counted and timed, no INFO record...
    with caplog.at_level(logging.INFO, logger="app.events"):
        _run_event(HYDRATED, cookie=signed_in, payload={"value": True})
    assert value("escorts_ws_events_total", handler="State.set_is_hydrated", outcome="ok") == ok + 1
    assert value("escorts_ws_event_duration_seconds_count", handler="State.set_is_hydrated") == timed + 1
    assert _event_records(caplog, "State.set_is_hydrated") == []
    # ...its record at DEBUG.
    with caplog.at_level(logging.DEBUG, logger="app.events"):
        _run_event(HYDRATED, cookie=signed_in, payload={"value": True})
    [record] = _event_records(caplog, "State.set_is_hydrated")
    assert record["handler"] == "State.set_is_hydrated" and record["outcome"] == "ok"
    assert record["session"] == SIGNED_IN_DIGEST[:8]
    assert SIGNED_IN_DIGEST not in caplog.text
    caplog.clear()

    # The app's own handler, gone well: its record at INFO.
    with caplog.at_level(logging.INFO, logger="app.events"):
        _run_event(f"{AgeGateState.get_full_name()}.accept", cookie=signed_in)
    [accepted] = _event_records(caplog, "AgeGateState.accept")
    assert accepted["outcome"] == "ok" and accepted["session"] == SIGNED_IN_DIGEST[:8]
    caplog.clear()

    # Arguments the handler does not take: Reflex's call of it raises, and the failure is logged at INFO.
    errors = value("escorts_ws_events_total", handler="State.set_is_hydrated", outcome="error")
    with caplog.at_level(logging.INFO, logger="app.events"):
        _run_event(HYDRATED, payload={"otro": 1})
    assert value("escorts_ws_events_total", handler="State.set_is_hydrated", outcome="error") == errors + 1
    [failed] = _event_records(caplog, "State.set_is_hydrated")
    assert failed["outcome"] == "error" and "session" not in failed


def test_a_job_run_by_the_worker_and_its_mail_are_counted(app_database, mailbox, caplog):
    jobs = value("escorts_task_jobs_total", task=MAIL.name, outcome="succeeded")
    timed = value("escorts_task_job_duration_seconds_count", task=MAIL.name)
    sent = value("escorts_mail_messages_total", outcome="sent")
    queue_email(to="metricas@correo.cl", subject="Hola", body="Cuerpo")
    with caplog.at_level(logging.INFO, logger="app.tasks"):
        run_queued_tasks()
    text = scrape()
    assert value("escorts_task_jobs_total", text, task=MAIL.name, outcome="succeeded") == jobs + 1
    assert value("escorts_task_job_duration_seconds_count", text, task=MAIL.name) == timed + 1
    assert value("escorts_mail_messages_total", text, outcome="sent") == sent + 1
    [record] = [
        r.event  # type: ignore[attr-defined]
        for r in caplog.records
        if r.name == "app.tasks" and getattr(r, "event", {}).get("task") == MAIL.name
    ]
    assert record["task"] == MAIL.name and record["outcome"] == "succeeded" and record["id"].isdigit()
    # The app's records only: "mail.log" is the test's own SMTP server (aiosmtpd), which names the recipient.
    assert not any("metricas@correo.cl" in r.getMessage() for r in caplog.records if r.name != "mail.log")


def test_a_failed_delivery_is_retried_then_failed_on_its_last_attempt(app_database, smtp_to, db):
    smtp_to(free_port())  # nothing listens there
    retried_jobs = value("escorts_task_jobs_total", task=MAIL.name, outcome="retried")
    retried, failed = (
        value("escorts_mail_messages_total", outcome="retried"),
        value("escorts_mail_messages_total", outcome="failed"),
    )
    queue_email(to="perdida@correo.cl", subject="x", body="y")
    run_queued_tasks()
    # The first retry waits 2 s: on a busy machine it can come due, and fail again, before the drain ends.
    # Each failed attempt is counted once, as retried.
    attempts = db.exec(
        text("SELECT attempts FROM procrastinate_jobs WHERE task_name = :task"), params={"task": MAIL.name}
    ).scalar_one()
    assert attempts >= 1
    assert value("escorts_task_jobs_total", task=MAIL.name, outcome="retried") == retried_jobs + attempts
    assert value("escorts_mail_messages_total", outcome="retried") == retried + attempts
    assert value("escorts_mail_messages_total", outcome="failed") == failed
    [message] = db.exec(select(OutgoingMail)).all()
    with pytest.raises(MailError):
        deliver(session=db, mail_uid=message.uid, last_attempt=True)
    assert value("escorts_mail_messages_total", outcome="failed") == failed + 1


def test_the_scrape_reads_the_review_queue_the_reports_and_the_last_backup(app_database, db, tmp_path):
    now = utc_now()
    owner = make_owner(db, "duena@example.cl")
    waiting = make_listing(db, owner, name="Espera", city="temuco", status="pendiente")
    db.add(ListingReview(listing_uid=waiting.uid, created_at=now - timedelta(hours=30)))
    db.add_all(
        [
            Report(kind="trata", message="urgente", created_at=now - timedelta(hours=2)),
            Report(kind="menor", message="urgente", created_at=now - timedelta(minutes=10)),
            Report(kind="otro", message="normal", created_at=now - timedelta(days=3)),
            Report(kind="trata", message="cerrado", status="cerrado", created_at=now - timedelta(days=9)),
        ]
    )
    db.commit()
    text = scrape(figures=True)
    assert 30 * 3600 <= value("escorts_review_oldest_pending_age_seconds", text) < 31 * 3600
    assert value("escorts_reports_waiting", text, urgency="urgent") == 2
    assert value("escorts_reports_waiting", text, urgency="normal") == 1
    assert 2 * 3600 <= value("escorts_reports_oldest_urgent_age_seconds", text) < 3 * 3600
    assert value("escorts_backup_last_success_timestamp_seconds", text) == 0
    assert value("escorts_periodic_task_period_seconds", text, task="listings.clock") == 60
    assert value("escorts_periodic_task_last_success_timestamp_seconds", text, task="listings.clock") == 0

    create_backup(settings=get_settings(), dest=str(tmp_path / "respaldo"))
    after = value("escorts_backup_last_success_timestamp_seconds", scrape(figures=True))
    assert now.timestamp() <= after <= utc_now().timestamp()


def test_a_periodic_job_records_its_success_where_the_scrape_reads_it(app_database):
    from app import tasks

    before = utc_now().timestamp()
    tasks._record("listings.clock", success=True)
    assert (
        value("escorts_periodic_task_last_success_timestamp_seconds", scrape(figures=True), task="listings.clock")
        >= before
    )


# What no label value may look like.
FORBIDDEN = {
    "an e-mail": re.compile(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", re.I),
    "a phone": re.compile(r"\+?\d[\d\s-]{7,}\d"),
    "a RUT": re.compile(r"\b\d{1,2}\.?\d{3}\.?\d{3}-[\dkK]\b"),
    "a uuid or hex id": re.compile(r"[0-9a-f]{8,}|[0-9a-f]{8}-[0-9a-f]{4}", re.I),
    "a token": re.compile(r"[A-Za-z0-9_\-]{24,}"),
    "a path with digits": re.compile(r"/.*\d"),
}


def test_no_label_of_any_metric_carries_a_person_a_secret_an_id_or_a_raw_path(
    client, mailbox, db, tmp_path, monkeypatch
):
    owner = make_owner(db, "dueña.secreta@example.cl")
    listing = make_listing(db, owner, name="Valentina Secreta", city="temuco", phone="+56 9 8765 4321")
    # HTTP: pages, documents, photos and made-up paths full of ids, twice each (the second from the page cache).
    paths = [
        "/escorts-ssg/temuco",
        f"/escorts/temuco/{listing.name_slug}/{listing.uid}",
        f"/escort/{listing.uid}",
        "/media/photos/ab/ab12cd34ef56-400.webp",
        "/mi-cuenta/datos/tok_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
        "/privado/verificacion/" + listing.uid,
        "/no-existe/12.345.678-5/+56987654321/x@y.cl",
    ]
    for path in paths * 2:
        client.get(path, headers={"X-Request-ID": "rid-" + listing.uid[:20]})
    client.post("/sesion", headers={"X-Ticket": "ticket-secreto-0123456789abcdef"})
    # A websocket event of a signed-in tab, a job with its e-mail, a photo processed and one refused.
    _run_event(HYDRATED, cookie=f"sesion_hash={SIGNED_IN_DIGEST}", payload={"value": True})
    queue_email(to="dueña.secreta@example.cl", subject="Hola", body="y")
    run_queued_tasks()
    photos.process_photo(photos.placeholder_photo(7))
    with pytest.raises(PhotoRejectedError):
        photos.process_photo(b"no es una foto")
    answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    names = {name for name, _, _ in samples(answer.text)}
    for expected in (
        "escorts_http_requests_total",
        "escorts_ws_events_total",
        "escorts_task_jobs_total",
        "escorts_mail_messages_total",
        "escorts_photo_uploads_total",
        "escorts_page_cache_total",
        "escorts_page_cache_renders_total",
        "escorts_db_pool_connections",
        "escorts_reports_waiting",
        "escorts_periodic_task_last_success_timestamp_seconds",
    ):
        assert expected in names
    found, label_values = [], []
    for name, labels, _ in samples(answer.text):
        for label, label_value in labels.items():
            if label == "le" or name.startswith("python_info"):  # bucket bounds; the interpreter's version
                continue
            label_values.append(label_value)
            found += [(name, label, label_value, kind) for kind, rule in FORBIDDEN.items() if rule.search(label_value)]
    assert found == []
    every_label = "\n".join(label_values)
    for secret in (listing.uid, "dueña.secreta", "8765", "Secreta", "tok_ABCDEF", "ticket-secreto", "deadbeef"):
        assert secret not in every_label
    assert TOKEN not in answer.text


def test_route_templates_cover_the_route_table():
    from app.route_table import PAGE_ROUTES
    from app.web.observe import route_of, route_templates, static_files

    api = build_api(reflex_app)
    templates, files = route_templates(api), static_files()
    assert route_of("/escorts/trans/temuco", templates, files) == "/escorts/trans/{city}"
    assert route_of("/escorts/temuco/providencia", templates, files) == "/escorts/{city}/{slug}"
    assert route_of("/admin/revisarPublicacion", templates, files) == "/admin/revisarPublicacion"
    assert route_of("/assets/index-AbCdEf12.js", templates, files) == "/assets/{file}"
    assert route_of("/styles.css", templates, files) == "/styles.css"
    assert route_of("/.env", templates, files) == OTHER_ROUTE
    for page in PAGE_ROUTES:
        if page.path.startswith("/") and "[" not in page.path:
            assert route_of(page.path, templates, files) == page.path


def test_slow_statements_and_connections_in_use_are_counted(app_database, monkeypatch):
    monkeypatch.setenv("DB_SLOW_STATEMENT_MS", "40")
    get_settings.cache_clear()
    get_engine.cache_clear()
    engine = get_engine()
    slow, in_use = value("escorts_db_slow_statements_total"), value("escorts_db_pool_connections", state="in_use")
    with engine.connect() as connection:
        assert value("escorts_db_pool_connections", state="in_use") == in_use + 1
        connection.execute(text("SELECT 1"))
        assert value("escorts_db_slow_statements_total") == slow
        connection.execute(text("SELECT pg_sleep(0.05)"))
        assert value("escorts_db_slow_statements_total") == slow + 1
    assert value("escorts_db_pool_connections", state="in_use") == in_use


def test_a_request_waiting_for_a_pooled_connection_is_counted_until_it_gets_one(app_database):
    engine = create_engine(app_database, poolclass=ObservedPool, pool_size=1, max_overflow=0, pool_timeout=30)
    waiting = value("escorts_db_pool_connections", state="waiting")
    held = engine.connect()
    with ThreadPoolExecutor(max_workers=1) as worker:
        second = worker.submit(lambda: engine.connect().close())
        deadline = time.monotonic() + 30
        while value("escorts_db_pool_connections", state="waiting") != waiting + 1:  # the second request waits
            assert time.monotonic() < deadline and not second.done()
        held.close()
        second.result(timeout=30)
    assert value("escorts_db_pool_connections", state="waiting") == waiting
    engine.dispose()
