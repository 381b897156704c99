"""Waiting for the app's background threads: the e-mail sender and the listing counters."""

from __future__ import annotations

import time

from app.services import mail
from app.states import public


def wait_until_sent(timeout: float = 30.0) -> None:
    """Block until every queued e-mail was sent or failed; TimeoutError past ``timeout``.

    The sender marks each message done on its ``queue.Queue`` (``task_done``), which counts the
    messages handed over and not yet finished in ``unfinished_tasks``, under ``all_tasks_done``.
    """
    messages = mail._sender._queue
    with messages.all_tasks_done:
        if not messages.all_tasks_done.wait_for(lambda: messages.unfinished_tasks == 0, timeout=timeout):
            raise TimeoutError(f"e-mails still queued after {timeout} s")


def wait_for_counts(timeout: float = 30.0) -> None:
    """Wait until the listing counts handed over so far are done: each one holds a backlog slot until then."""
    deadline = time.monotonic() + timeout
    taken = 0
    try:
        while taken < public.COUNT_BACKLOG:
            if not public._count_slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"listing counts still running after {timeout} s")
            taken += 1
    finally:
        for _ in range(taken):
            public._count_slots.release()
