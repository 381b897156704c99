"""The background tasks and the worker that runs them (Procrastinate; app.task_queue says how jobs are queued).

Services defer a task by its name (``app.task_queue.MAIL``...), inside the transaction that justifies it;
this module, above the services, says what each name does:

- ``mail.send``: one e-mail, retried with exponential backoff (2 s, 4 s ... 17 min: 11 attempts over
  about 34 minutes); after the last attempt the job stays ``failed``, counted on the staff's queue page;
- ``videos.process``: a clip transcoded and its poster taken (on the ``videos`` queue);
- ``photos.process``: a photo received in the wizard decoded, cleaned and stored in its sizes (``photos`` queue);
- ``privacy.build_exports``: the data exports people asked for (deferred by the request, and every 5
  minutes besides for any request whose job was lost, as in-memory jobs are on a restart);
- periodic: the listings' clock (every minute), retention and the sign-in tables' purge (hourly), the
  queue's own upkeep: jobs of dead workers retried (every minute), old finished jobs deleted (daily).

Each periodic run records its success or failure in ``trabajo_periodico`` (app.models.jobs).
Workers: ``python -m app.cli worker`` (compose's ``worker`` service); with ``TASK_WORKER=in-process``
(the embedded default) the app runs one inside itself (:func:`run_in_process`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import procrastinate
from procrastinate import JobContext, RetryStrategy

from app import logs, metrics
from app.db import commit, session_scope
from app.identity.jobs import purge_once
from app.models import PeriodicRun, utc_now
from app.services import listing_videos, mail, monitoring, photo_uploads
from app.services.listing_jobs import run_clock_jobs
from app.services.privacy_jobs import build_exports, run_retention
from app.settings import get_settings
from app.storage.factory import get_private_storage, get_storage
from app.task_queue import (
    EXPORT,
    EXPORTS_CATCH_UP,
    HEARTBEAT_SECONDS,
    LISTINGS_CLOCK,
    MAIL,
    PHOTO,
    QUEUES,
    REMOVE_OLD_JOBS,
    RETENTION,
    RETRY_STALLED,
    SIGN_IN_PURGE,
    STALLED_AFTER_SECONDS,
    VIDEO,
    PeriodicTask,
    get_connector,
    is_durable,
)

log = logging.getLogger(__name__)

queue = procrastinate.App(connector=get_connector())

# Finished jobs are kept this long (failed ones, for staff to see), then deleted.
FAILED_JOBS_KEPT_HOURS = 7 * 24
MAIL_RETRY = RetryStrategy(max_attempts=10, exponential_wait=2)
# A clip whose processing failed for a reason other than the file (storage, a killed worker) is tried twice more.
VIDEO_RETRY = RetryStrategy(max_attempts=2, wait=30)
# A photo whose processing failed for a reason other than the file is tried twice more, sooner than a clip.
PHOTO_RETRY = RetryStrategy(max_attempts=2, wait=10)
# The longest pause before a worker that stopped by itself starts again (keep_working).
WORKER_RESTART_MAX_S = 60.0


@queue.task(name=MAIL.name, queue=MAIL.queue, retry=MAIL_RETRY, pass_context=True)
def send_mail(context: JobContext, *, mail_uid: str) -> None:
    """Deliver one queued e-mail now; MailError (SMTP down or refusing) makes the job try again later."""
    with session_scope() as session:
        mail.deliver(
            session=session, mail_uid=mail_uid, last_attempt=context.job.attempts >= (MAIL_RETRY.max_attempts or 0)
        )


@queue.task(name=EXPORT.name, queue=EXPORT.queue, lock=EXPORT.name)
def build_data_exports() -> None:
    """Build every data export waiting (one job at a time: the lock)."""
    built = build_exports()
    if built:
        log.info("%d data exports built", built)


@queue.task(name=VIDEO.name, queue=VIDEO.queue, retry=VIDEO_RETRY, pass_context=True)
def process_video(context: JobContext, *, clip_uid: str) -> None:
    """Transcode a clip and take its poster (app.services.listing_videos.process_clip, safe to run twice).

    A refused file fails the clip at once; any other error is retried, and after the last attempt the clip
    is marked failed (its original kept) so its owner sees it and may try again.
    """
    storage, private_storage = get_storage(), get_private_storage()
    try:
        with session_scope() as session:
            listing_videos.process_clip(
                session=session, storage=storage, private_storage=private_storage, clip_uid=clip_uid
            )
    except Exception:
        if context.job.attempts >= (VIDEO_RETRY.max_attempts or 0):  # no retry left
            with session_scope() as session:
                listing_videos.fail_clip(
                    session=session,
                    private_storage=private_storage,
                    clip_uid=clip_uid,
                    message=listing_videos.PROCESSING_FAILED,
                    keep_original=True,
                )
        raise


@queue.task(name=PHOTO.name, queue=PHOTO.queue, retry=PHOTO_RETRY, pass_context=True)
def process_photo(context: JobContext, *, pending_uid: str) -> None:
    """Process a photo received in the wizard (app.services.photo_uploads.process_pending, safe to run twice).

    A refused file is refused at once; any other error is retried, and after the last attempt the photo is
    refused with a message asking its owner to upload it again.
    """
    storage, private_storage = get_storage(), get_private_storage()
    try:
        with session_scope() as session:
            photo_uploads.process_pending(
                session=session, storage=storage, private_storage=private_storage, pending_uid=pending_uid
            )
    except Exception:
        if context.job.attempts >= (PHOTO_RETRY.max_attempts or 0):  # no retry left
            with session_scope() as session:
                photo_uploads.refuse_pending(
                    session=session,
                    private_storage=private_storage,
                    pending_uid=pending_uid,
                    message=photo_uploads.PROCESSING_FAILED,
                )
        raise


def _periodic(periodic: PeriodicTask) -> Callable[[Callable[[], Awaitable[object]]], Callable[[], Awaitable[object]]]:
    """A periodic task: deferred once per ``cron`` period across all workers (a period's job still waiting
    is not queued again), one run at a time, its outcome recorded in ``trabajo_periodico``."""

    name = periodic.name

    def register(run: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[object]]:
        async def task(timestamp: int) -> None:
            try:
                outcome = await run()
            except Exception:
                await asyncio.to_thread(_record, name, success=False)
                raise
            await asyncio.to_thread(_record, name, success=True)
            if outcome:
                log.info("%s: %s", name, outcome)

        queue.periodic(cron=periodic.cron, periodic_id=name)(queue.task(name=name, lock=name, queueing_lock=name)(task))
        return run

    return register


def _record(name: str, *, success: bool) -> None:
    with session_scope() as session:
        run = session.get(PeriodicRun, name) or PeriodicRun(name=name)
        if success:
            run.last_success_at = utc_now()
        else:
            run.last_failure_at = utc_now()
        session.add(run)
        commit(session)


@_periodic(LISTINGS_CLOCK)
async def listings_clock() -> object:
    """Expire listings, start and end upgrades, warn owners of listings about to expire."""
    return await asyncio.to_thread(run_clock_jobs)


@_periodic(RETENTION)
async def privacy_retention() -> object:
    """Delete expired exports and stale drafts, warn their owners, scrub old reports' contacts."""
    return await asyncio.to_thread(run_retention)


@_periodic(EXPORTS_CATCH_UP)
async def exports_catch_up() -> object:
    """Build exports whose own job was lost (the embedded queue forgets on restart)."""
    return await asyncio.to_thread(build_exports)


@_periodic(SIGN_IN_PURGE)
async def purge_sign_in_tables() -> object:
    """Delete sessions, tickets and codes that can no longer be used."""
    return await asyncio.to_thread(purge_once)


@_periodic(RETRY_STALLED)
async def retry_stalled_jobs() -> object:
    """Give the jobs of a worker that stopped beating (killed, its machine lost) to another worker."""
    manager = queue.job_manager
    stalled = list(await manager.get_stalled_jobs(seconds_since_heartbeat=STALLED_AFTER_SECONDS))
    for job in stalled:
        log.warning("job %s (%s) stalled: its worker stopped; retrying it", job.id, job.task_name)
        await manager.retry_job(job)
    return len(stalled)


@_periodic(REMOVE_OLD_JOBS)
async def remove_old_jobs() -> object:
    """Delete failed jobs after a week, with the e-mails they failed to deliver (succeeded jobs are
    deleted when they finish)."""
    await queue.job_manager.delete_old_jobs(nb_hours=FAILED_JOBS_KEPT_HOURS, include_failed=True)
    return await asyncio.to_thread(mail.forget_undelivered, older_than=timedelta(hours=FAILED_JOBS_KEPT_HOURS))


async def observe_job(call_next: Callable[[], Awaitable[Any]], context: JobContext, _worker: object) -> Any:
    """Every job a worker runs (Procrastinate's worker middleware): its outcome and time in
    escorts_task_jobs_total and escorts_task_job_duration_seconds (app.metrics), and one line of the
    ``app.tasks`` log. A failed job that its task's retry strategy runs again is ``retried``; one with no
    retry left goes to the error reports (app.logs)."""
    task = context.job.task_name
    started = time.perf_counter()
    outcome = metrics.SUCCEEDED
    try:
        return await call_next()
    except BaseException as exc:
        retry = context.task.get_retry_exception(exception=exc, job=context.job)
        outcome = metrics.RETRIED if retry is not None else metrics.FAILED
        if outcome == metrics.FAILED and isinstance(exc, Exception):
            logs.report(exc, task=task)
        raise
    finally:
        elapsed = time.perf_counter() - started
        metrics.TASK_JOBS.labels(task, outcome).inc()
        metrics.TASK_DURATION.labels(task).observe(elapsed)
        log.info(
            "job %s",
            outcome,
            extra={
                "event": {
                    "id": str(context.job.id),
                    "task": task,
                    "duration_ms": round(elapsed * 1000, 1),
                    "outcome": outcome,
                }
            },
        )


def worker_options(*, in_process: bool) -> dict[str, Any]:
    """How a worker runs: every queue, succeeded jobs deleted, a heartbeat others can watch, each job observed and
    its last failure reported."""
    return {
        "queues": list(QUEUES),
        "name": "app" if in_process else "worker",
        "concurrency": get_settings().task_concurrency,
        "delete_jobs": "successful",
        "update_heartbeat_interval": HEARTBEAT_SECONDS,
        "stalled_worker_timeout": STALLED_AFTER_SECONDS,
        "install_signal_handlers": False,  # the process's own (run_worker), or the web server's
        "worker_middleware": [observe_job],
    }


def run_worker() -> None:
    """A worker process until SIGTERM or SIGINT (jobs under way finish first): ``python -m app.cli worker``.

    With METRICS_TOKEN set it serves its metrics on METRICS_PORT (app.metrics), the database's figures
    included.
    """
    settings = get_settings()
    metrics.serve(settings.metrics_port, settings.metrics_token, monitoring.read_site_figures)
    asyncio.run(_worker_process())


async def _worker_process() -> None:
    work = asyncio.current_task()
    assert work is not None
    loop = asyncio.get_running_loop()
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(stop_signal, work.cancel)  # Procrastinate stops gracefully when cancelled
    async with queue.open_async():
        try:
            await keep_working(worker_options(in_process=False))
        except asyncio.CancelledError:
            log.info("worker stopped")


async def keep_working(options: dict[str, Any]) -> None:
    """Run a worker until cancelled. Procrastinate stops a worker whose database connection failed (a
    PostgreSQL restart), and raises when the database is still away as it stops or starts: either way it
    starts again after a pause, doubling from 1 s to a minute while it keeps failing."""
    pause = 1.0
    while True:
        started = time.monotonic()
        try:
            await queue.run_worker_async(**options)
        except procrastinate.exceptions.ConnectorException:  # the database away while it starts or stops
            log.warning("the worker could not reach its database", exc_info=True)
        if time.monotonic() - started > WORKER_RESTART_MAX_S:
            pause = 1.0
        log.warning("the worker stopped by itself (its database connection failed); starting again in %.0f s", pause)
        await asyncio.sleep(pause)
        pause = min(2 * pause, WORKER_RESTART_MAX_S)


async def run_in_process() -> None:
    """The app's own worker (``TASK_WORKER=in-process``): a lifespan task of the web app.

    Without PostgreSQL the queue lives in memory: the e-mails a previous run left undelivered, and the photos it
    left unprocessed, are queued again.
    """
    async with queue.open_async():
        if not is_durable() and (requeued := await asyncio.to_thread(mail.requeue_undelivered)):
            log.info("%d undelivered e-mails queued again", requeued)
        if not is_durable() and (requeued := await asyncio.to_thread(photo_uploads.requeue_processing)):
            log.info("%d unprocessed photos queued again", requeued)
        await keep_working(worker_options(in_process=True))
