"""The one way states run blocking work: off the event loop, on the pool asked for, in the caller's context."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from app.states.offload import ACCOUNT_POOL, run_service

caller = contextvars.ContextVar("caller", default="")


def _where(*, label: str) -> tuple[str, str, str]:
    return label, threading.current_thread().name, caller.get()


async def _call(**options):
    caller.set("visitante")
    return await run_service(_where, label="x", with_session=False, **options)


def test_work_runs_on_a_worker_thread_and_sees_the_callers_context():
    label, thread, seen = asyncio.run(_call())
    assert (label, seen) == ("x", "visitante")
    assert thread != threading.main_thread().name


def test_account_operations_wait_in_their_own_pool():
    _label, thread, seen = asyncio.run(_call(pool=ACCOUNT_POOL))
    assert thread.startswith("accounts") and seen == "visitante"


def test_what_the_work_raises_reaches_the_caller():
    def refuse():
        raise LookupError("no está")

    with pytest.raises(LookupError, match="no está"):
        asyncio.run(run_service(refuse, with_session=False))
