"""Waiting for the app's background work: the jobs of the task queue (e-mail...) and the listing counters."""

from __future__ import annotations

import asyncio
from typing import Any

from app import tasks
from app.states import public
from app.task_queue import get_connector


def run_queued_tasks(timeout: float = 60.0) -> None:
    """Run every job of the configured database's queue that is due, as a worker would, then return.

    Jobs they queue run too; a job scheduled for later (a retry after a failed delivery) waits.
    TimeoutError past ``timeout``.
    """

    async def drain() -> None:
        with tasks.queue.replace_connector(get_connector()):
            async with tasks.queue.open_async():
                await tasks.queue.run_worker_async(
                    **{**tasks.worker_options(in_process=True), "wait": False, "listen_notify": False}
                )

    asyncio.run(asyncio.wait_for(drain(), timeout))


def queued_jobs(task: str) -> list[dict[str, Any]]:
    """The arguments of each job of ``task`` waiting in the configured database's queue, oldest first."""

    async def read() -> list[dict[str, Any]]:
        with tasks.queue.replace_connector(get_connector()):
            async with tasks.queue.open_async():
                jobs = await tasks.queue.job_manager.list_jobs_async(task=task, status="todo")
                return [job.task_kwargs for job in jobs]

    return asyncio.run(read())


def wait_until_sent(timeout: float = 60.0) -> None:
    """Deliver every e-mail queued so far (or fail it for a retry later): the ``mail.send`` jobs a worker runs."""
    run_queued_tasks(timeout)


def wait_for_counts(timeout: float = 30.0) -> None:
    """Wait until the listing counts handed over so far are done (app.states.public.count_batches)."""
    public.count_batches.wait_until_counted(timeout)
