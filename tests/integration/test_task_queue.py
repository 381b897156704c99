"""The task queue's guarantees (issue 35 §2), on a real PostgreSQL with a real SMTP server and real worker processes.

- a job exists exactly when the write that justifies it commits;
- an e-mail outlives an SMTP outage: retried with growing waits, delivered once the server is back;
  after the last attempt it stays failed, on the administrators' page;
- the job of a worker killed mid-delivery goes to another worker and the e-mail arrives once;
- a worker whose database connection drops (a PostgreSQL restart) starts again and delivers what comes next;
- a periodic task is deferred once per period however many workers defer it;
- photos received by the web process are processed by a worker process.

Nothing waits for wall time: "ten minutes later" is the job made due in the database (its ``scheduled_at``),
"the worker stopped beating" is its heartbeat moved back, exactly as those minutes would leave them.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta

import procrastinate
import psycopg
import pytest
from aiosmtpd.controller import Controller
from procrastinate.periodic import PeriodicDeferrer
from sqlalchemy import make_url, text
from sqlmodel import Session, select

from app import tasks
from app.core.errors import ForbiddenError
from app.db import commit
from app.models import ClipStatus, ListingStatus, ListingVideo, PeriodicRun, ProfileId
from app.services import listing_videos, photo_uploads, photos
from app.services.listing_photos import list_photos
from app.services.mail import queue_mail
from app.services.staff.task_health import task_health
from app.settings import get_settings
from app.storage.factory import get_private_storage, get_storage
from app.task_queue import MAIL, PERIODIC_TASKS, PHOTO, VIDEO, connector_for, get_connector
from tests.factories import actor_of, make_listing, make_owner, make_staff
from tests.mailbox import Mailbox
from tests.photo_samples import jpeg_with_gps
from tests.ports import free_port
from tests.processes import stop_process_group
from tests.video_samples import h264_mp4
from tests.waits import run_queued_tasks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
DEADLINE_S = 60  # only turns a hang into a failure
# How far back a deferrer looks for a period it missed: far enough for the daily task.
EVERY_PERIOD_S = timedelta(days=2).total_seconds()


def _address() -> str:
    return f"cola-{uuid.uuid4().hex[:10]}@example.cl"


def _queue_one(db: Session, to: str) -> None:
    queue_mail(db, to=to, subject="Prueba de la cola", body="Hola")
    commit(db)


def _jobs(db: Session, task: str | None = MAIL.name) -> list:
    """The jobs of ``task`` (of every task with None), oldest first."""
    db.rollback()
    rows = db.exec(text("SELECT id, task_name, status, attempts FROM procrastinate_jobs ORDER BY id")).all()
    return [row for row in rows if task in (None, row.task_name)]


def _make_due(db: Session) -> None:
    """The time the job was told to wait has passed."""
    db.exec(text("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE status = 'todo'"))
    db.commit()


def _scheduled_wait(db: Session, job_id: int) -> float:
    """Seconds between the last failure and the retry it was scheduled for (both written by the database)."""
    db.rollback()
    return db.exec(
        text(
            "SELECT extract(epoch FROM j.scheduled_at - max(e.at)) FROM procrastinate_jobs j "
            "JOIN procrastinate_events e ON e.job_id = j.id AND e.type = 'deferred_for_retry' "
            "WHERE j.id = :id GROUP BY j.scheduled_at"
        ).bindparams(id=job_id)
    ).one()[0]


def test_a_job_is_queued_with_the_write_that_justifies_it_or_not_at_all(db):
    queue_mail(db, to=_address(), subject="Nunca", body="revertido")
    db.rollback()
    assert _jobs(db) == []
    _queue_one(db, _address())
    [job] = _jobs(db)
    assert (job.task_name, job.status) == (MAIL.name, "todo")


def test_without_postgresql_the_job_is_handed_to_the_queue_in_memory_at_the_commit(session, sqlite_url, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", sqlite_url)
    get_settings.cache_clear()
    try:
        memory = get_connector()
        queue_mail(session, to=_address(), subject="Nunca", body="revertido")
        session.rollback()
        assert memory.jobs == {}
        _queue_one(session, _address())
        assert [job["task_name"] for job in memory.jobs.values()] == [MAIL.name]
    finally:
        get_settings.cache_clear()


def test_mail_outlives_an_smtp_outage_with_growing_waits(db, smtp_to, smtp_server):
    port, mailbox = smtp_server
    smtp_to(free_port())  # the server is down: nothing listens there
    to = _address()
    _queue_one(db, to)
    waits = []
    for attempt in range(1, 7):
        run_queued_tasks()
        [job] = _jobs(db)
        assert (job.status, job.attempts) == ("todo", attempt)
        waits.append(_scheduled_wait(db, job.id))
        _make_due(db)
    assert mailbox.to(to) == []
    # Exponential backoff: 2, 4, 8 ... seconds; the whole series of attempts spans well over ten minutes.
    assert [round(wait) for wait in waits] == [2, 4, 8, 16, 32, 64]
    assert sum(2 ** (n + 1) for n in range(tasks.MAIL_RETRY.max_attempts)) > 600
    smtp_to(port)  # the server is back
    run_queued_tasks()
    assert len(mailbox.to(to)) == 1
    assert _jobs(db) == []  # a delivered e-mail's job is deleted with its one-time link


def test_after_the_last_attempt_the_failure_is_on_the_administrators_page(db, smtp_to):
    smtp_to(free_port())
    _queue_one(db, _address())
    attempts = tasks.MAIL_RETRY.max_attempts + 1  # the first, then each retry
    for _ in range(attempts):
        run_queued_tasks()
        _make_due(db)
    [job] = _jobs(db)
    assert (job.status, job.attempts) == ("failed", attempts)
    admin = make_staff(db, "jefa@example.cl", ProfileId.ADMINISTRADOR)
    [mail_row] = [row for row in task_health(session=db, actor=actor_of(admin)).tasks if row.label == MAIL.label]
    assert (mail_row.failed, mail_row.waiting, mail_row.alert) == ("1", "0", True)
    secretary = make_staff(db, "secre@example.cl", ProfileId.SECRETARIA)
    with pytest.raises(ForbiddenError):
        task_health(session=db, actor=actor_of(secretary))


class FirstMessageHeld(Mailbox):
    """An SMTP server that keeps the first message's DATA unanswered until told, then refuses it; takes the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.first_arrived = threading.Event()
        self.let_go = threading.Event()
        self._held = False

    async def handle_DATA(self, server, session, envelope):
        if not self._held:
            self._held = True
            self.first_arrived.set()
            await asyncio.get_running_loop().run_in_executor(None, self.let_go.wait, DEADLINE_S)
            return "451 Try again later"
        return await super().handle_DATA(server, session, envelope)


def test_the_job_of_a_worker_killed_mid_delivery_goes_to_another_and_arrives_once(db, smtp_to):
    box = FirstMessageHeld()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    smtp_to(controller.port)
    worker = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "worker"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": get_settings().database_url, "SMTP_PORT": str(controller.port)},
        start_new_session=True,
    )
    try:
        to = _address()
        _queue_one(db, to)
        assert box.first_arrived.wait(DEADLINE_S), "the worker never reached the SMTP server"
        os.killpg(worker.pid, 9)  # killed mid-delivery: no goodbye, no "failed" written
        worker.wait()
        box.let_go.set()
        [job] = _jobs(db)
        assert job.status == "doing"
        # The worker's heartbeat stops; once it is older than the limit, the periodic task hands the job on.
        db.exec(text("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour'"))
        db.commit()
        asyncio.run(_run_periodic(tasks.retry_stalled_jobs))
        assert [job.status for job in _jobs(db)] == ["todo"]
        run_queued_tasks()
        assert len(box.to(to)) == 1
    finally:
        if worker.poll() is None:
            stop_process_group(worker)
        controller.stop()


def _listener_pids(db: Session) -> list[int]:
    """The worker's connection that listens for new jobs (its last statement a LISTEN)."""
    db.rollback()
    return list(
        db.exec(
            text("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'")
        ).scalars()
    )


def test_a_worker_whose_database_connection_drops_starts_again_and_delivers(db, smtp_to, smtp_server):
    """A PostgreSQL restart, as the worker sees it: its listening connection ends and no new one is allowed
    for a while. Procrastinate stops such a worker; the process starts it again once the database is back
    (app.tasks.keep_working), and mail queued afterwards is delivered."""
    port, mailbox = smtp_server
    smtp_to(port)
    worker = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "worker"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": get_settings().database_url, "SMTP_PORT": str(port)},
        start_new_session=True,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(worker.stderr), daemon=True).start()
    url = make_url(get_settings().database_url)
    admin = psycopg.connect(
        url.set(drivername="postgresql", database="postgres").render_as_string(False), autocommit=True
    )
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not (listening := _listener_pids(db)):
            assert time.monotonic() < deadline and worker.poll() is None, "the worker never listened"
            time.sleep(0.05)
        admin.execute(f'ALTER DATABASE "{url.database}" ALLOW_CONNECTIONS false')
        admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [listening])
        while not any("stopped by itself" in line for line in said):
            assert time.monotonic() < deadline, f"the worker did not stop: {said}"
            time.sleep(0.05)
        admin.execute(f'ALTER DATABASE "{url.database}" ALLOW_CONNECTIONS true')
        while _listener_pids(db) in ([], listening):
            assert time.monotonic() < deadline, "the worker never listened again"
            assert worker.poll() is None, "the worker process ended"
            time.sleep(0.05)
        to = _address()
        _queue_one(db, to)
        mailbox.wait_for_subject(to, "Prueba de la cola", timeout=DEADLINE_S)
        assert len(mailbox.to(to)) == 1
    finally:
        admin.execute(f'ALTER DATABASE "{url.database}" ALLOW_CONNECTIONS true')
        admin.close()
        stop_process_group(worker)


def _wait_until_running(db: Session, task: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while [job.status for job in _jobs(db, task)] != ["doing"]:
        assert time.monotonic() < deadline, f"no worker took the {task} job"
        time.sleep(0.05)


def test_a_worker_killed_mid_transcode_leaves_the_clip_to_another_processed_once(db, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()
    owner = make_owner(db, "video-cola@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value)
    # Long enough to be caught mid-transcode: many seconds of work on the worker's one thread.
    source = h264_mp4(tmp_path, size="1280x720", seconds=20, noise=True)
    clip_uid = listing_videos.start_clip(
        session=db, private_storage=get_private_storage(), owner_uid=owner.uid, uid=listing.uid, source=source
    )
    worker = subprocess.Popen([sys.executable, "-m", "app.cli", "worker"], cwd=ROOT, start_new_session=True)
    try:
        _wait_until_running(db, VIDEO.name)
        os.killpg(worker.pid, 9)
        worker.wait()
    finally:
        if worker.poll() is None:
            stop_process_group(worker)
    db.expire_all()
    assert db.get(ListingVideo, clip_uid).status == ClipStatus.PROCESANDO  # the killed run finished nothing
    db.exec(text("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour'"))
    db.commit()
    asyncio.run(_run_periodic(tasks.retry_stalled_jobs))
    run_queued_tasks(timeout=300)
    db.expire_all()
    [clip] = db.exec(select(ListingVideo).where(ListingVideo.listing_uid == listing.uid)).all()
    assert clip.status == ClipStatus.LISTA and clip.original_key is None
    assert get_storage().list_keys() == sorted([clip.video_key, *listing_videos.poster_keys(clip)])  # one of each
    assert get_private_storage().list_keys() == []
    assert _jobs(db, VIDEO.name) == []


async def _run_periodic(run) -> object:
    with tasks.queue.replace_connector(get_connector()):
        async with tasks.queue.open_async():
            return await run()


def test_a_periodic_task_is_deferred_once_per_period_however_many_workers_defer_it(db):
    url = get_settings().database_url
    start = time.time()

    async def two_workers_defer(at: float) -> None:
        # Two workers, each with its own connections and its own memory of what it deferred.
        for connector in (connector_for(url), _another_connector(url)):
            with tasks.queue.replace_connector(connector):
                async with tasks.queue.open_async():
                    deferrer = PeriodicDeferrer(registry=tasks.queue.periodic_registry, max_delay=EVERY_PERIOD_S)
                    await deferrer.defer_jobs(deferrer.get_previous_tasks(at=at))

    asyncio.run(two_workers_defer(start))
    first = _periodic_jobs(db)
    assert sorted(first) == sorted(task.name for task in PERIODIC_TASKS)
    asyncio.run(two_workers_defer(start + timedelta(hours=1).total_seconds()))
    # An hour later each task has at most one job waiting (its queueing lock): the first period's job has not run.
    assert _periodic_jobs(db) == first
    run_queued_tasks()
    assert _periodic_jobs(db) == {}
    db.expire_all()
    runs = db.exec(select(PeriodicRun)).all()
    assert {run.name for run in runs} == {task.name for task in PERIODIC_TASKS}
    assert all(run.last_success_at and not run.last_failure_at for run in runs)


def _another_connector(url: str) -> procrastinate.PsycopgConnector:
    return procrastinate.PsycopgConnector(conninfo=url.replace("postgresql+psycopg://", "postgresql://", 1))


def _periodic_jobs(db: Session) -> dict[str, int]:
    """How many jobs wait for each task (the periodic tasks are the only ones queued in that test)."""
    counts: dict[str, int] = {}
    for job in _jobs(db, task=None):
        counts[job.task_name] = counts.get(job.task_name, 0) + 1
    return counts


def test_a_worker_process_adds_the_photos_the_web_process_only_received(db, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("PRIVATE_MEDIA_DIR", str(tmp_path / "private"))
    get_settings.cache_clear()

    def never(data):
        raise AssertionError("the web process decoded a photo")

    monkeypatch.setattr(photos, "process_photo", never)
    owner = make_owner(db, "fotos-cola@example.cl")
    listing = make_listing(db, owner, status=ListingStatus.BORRADOR.value, photos=0)
    uids = [
        photo_uploads.receive_photo(
            session=db,
            private_storage=get_private_storage(),
            owner_uid=owner.uid,
            uid=listing.uid,
            data=jpeg_with_gps(),
        )
        for _ in range(3)
    ]
    worker = subprocess.Popen([sys.executable, "-m", "app.cli", "worker"], cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while photo_uploads.photo_count(db, listing.uid) != 3 or photo_uploads.processing_count(db, listing.uid):
            assert time.monotonic() < deadline and worker.poll() is None, "the worker did not process the photos"
            db.rollback()
            time.sleep(0.05)
    finally:
        stop_process_group(worker)
    db.rollback()
    added = list_photos(session=db, owner_uid=owner.uid, uid=listing.uid)
    assert sorted(photo.uid for photo in added) == sorted(uids)
    assert get_private_storage().list_keys() == [] and _jobs(db, PHOTO.name) == []
