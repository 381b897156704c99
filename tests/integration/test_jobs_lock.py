"""Periodic jobs run by one worker at a time (app.jobs_lock), against this process's private Redis.

Two wrapped copies of a job in one event loop stand for two workers: each copy
holds its own lease token, exactly as two processes would.

Nothing here measures wall time. Each step waits for the event it needs (a job's
tick, a worker's Redis call and its answer) with a generous deadline that only
turns a hang into a failure; a lease's expiry is made to happen (PEXPIRE) rather
than waited out, and leases are long enough never to run out while a loaded
machine delays a renewal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
import redis
import redis.asyncio as redis_asyncio

from app import jobs_lock
from app.jobs_lock import KEY_PREFIX, one_worker
from app.settings import get_settings
from tests.handlers import run_async
from tests.redis_server import empty_redis

LEASE = 60.0  # never runs out during a test: expiry is driven explicitly
RENEW = 0.02
NAME = "prueba-trabajo"
KEY = KEY_PREFIX + NAME
DEADLINE_S = 30.0


class LeaseCalls:
    """What each worker asked Redis about the lease, and what Redis answered, in order of the workers' start."""

    def __init__(self) -> None:
        self.by_worker: list[list[tuple[str, bool]]] = []
        self.holders: dict[int, bytes] = {}  # worker -> the holder token it takes the lease with

    def client_class(self) -> type[redis_asyncio.Redis]:
        calls = self

        class Recording(redis_asyncio.Redis):
            """The worker's Redis client, recording each take (SET NX) and renewal (EVAL) of the lease."""

            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                self.worker = len(calls.by_worker)
                self.record: list[tuple[str, bool]] = []
                calls.by_worker.append(self.record)

            async def set(self, *args, **kwargs):
                calls.holders[self.worker] = str(args[1]).encode()  # the value the lease key takes
                answer = await super().set(*args, **kwargs)
                self.record.append(("take", bool(answer)))
                return answer

            async def eval(self, script, numkeys, *keys_and_args):
                answer = await super().eval(script, numkeys, *keys_and_args)
                if len(keys_and_args) == 3:  # key, holder, lease length: a renewal (a release has no length)
                    self.record.append(("renew", bool(answer)))
                return answer

        return Recording

    def count(self, worker: int, kind: str, answer: bool) -> int:
        """How many calls of ``kind`` worker ``worker`` (0 = first started) made that got ``answer``."""
        if worker >= len(self.by_worker):
            return 0
        return sum(1 for call in self.by_worker[worker] if call == (kind, answer))


@pytest.fixture
def lease_redis(monkeypatch) -> redis.Redis:
    """This process's private Redis, empty, as the app's REDIS_URL."""
    url = empty_redis()
    monkeypatch.setenv("REDIS_URL", url)
    get_settings.cache_clear()
    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    yield client
    client.close()
    get_settings.cache_clear()


@pytest.fixture
def calls(monkeypatch) -> LeaseCalls:
    """Every Redis call the wrapped jobs make about their lease."""
    recorded = LeaseCalls()
    monkeypatch.setattr(jobs_lock.redis_asyncio, "Redis", recorded.client_class())
    return recorded


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds; fail (not hang) if it never does."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never happened: {what}")
        await asyncio.sleep(0.005)


def _workers(ticks: dict[str, int]):
    """Two copies ("a", "b") of one job that counts its ticks, each wrapped as its worker would wrap it."""

    def job_of(worker: str):
        async def job() -> None:
            while True:
                ticks[worker] += 1
                await asyncio.sleep(0.005)

        return one_worker(job, name=NAME, lease_seconds=LEASE, renew_every_seconds=RENEW)

    return job_of("a"), job_of("b")


async def _stop(task: asyncio.Task) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_only_one_of_two_workers_runs_the_job_and_the_other_takes_over_when_it_stops(lease_redis, calls):
    async def scenario() -> None:
        ticks = {"a": 0, "b": 0}
        run_a, run_b = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await until(lambda: ticks["a"] > 0, "worker a runs the job")
        task_b = asyncio.create_task(run_b())
        # Several rounds: b is refused the lease again and again while a keeps renewing it.
        await until(
            lambda: calls.count(1, "take", False) >= 3 and calls.count(0, "renew", True) >= 3,
            "b asks for the lease three times while a renews it three times",
        )
        assert ticks["b"] == 0
        assert calls.count(0, "renew", False) == 0
        await _stop(task_a)  # worker a shuts down and gives the lease back
        stopped = ticks["a"]
        # a gave the lease back: it is free, or b (asking every RENEW seconds) has taken it already.
        assert lease_redis.get(KEY) in (None, calls.holders[1])
        assert calls.holders[0] != calls.holders[1]
        await until(lambda: ticks["b"] > 0, "b takes the free lease and runs the job")
        await until(lambda: calls.count(1, "renew", True) >= 2, "b renews its lease")
        assert ticks["a"] == stopped  # a's job was cancelled with it
        await _stop(task_b)

    run_async(scenario())
    assert lease_redis.get(KEY) is None  # b gave it back when it stopped


def test_a_worker_whose_lease_was_taken_stops_its_job(lease_redis, calls):
    async def scenario() -> None:
        ticks = {"a": 0, "b": 0}
        run_a, _ = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await until(lambda: ticks["a"] > 0, "worker a runs the job")
        await asyncio.to_thread(lease_redis.set, KEY, "otro-proceso", px=60_000)
        await until(lambda: calls.count(0, "renew", False) == 1, "a's next renewal finds another holder")
        await until(lambda: calls.count(0, "take", False) >= 1, "a asks for the lease again")
        stopped = ticks["a"]
        await until(lambda: calls.count(0, "take", False) >= 3, "a asks for the lease twice more")
        assert ticks["a"] == stopped  # the job stopped when the lease was lost, and stays stopped
        await _stop(task_a)

    run_async(scenario())
    assert lease_redis.get(KEY) == b"otro-proceso"  # a left the other holder's lease alone


def test_a_lease_left_by_a_dead_worker_expires_and_is_taken(lease_redis, calls):
    lease_redis.set(KEY, "proceso-muerto", px=60_000)

    async def scenario() -> None:
        ticks = {"a": 0, "b": 0}
        run_a, _ = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await until(lambda: calls.count(0, "take", False) >= 3, "a is refused the dead worker's lease three times")
        assert ticks["a"] == 0
        await asyncio.to_thread(lease_redis.pexpire, KEY, 1)  # the dead worker's lease runs out now
        await until(lambda: ticks["a"] > 0, "a takes the expired lease and runs the job")
        assert calls.count(0, "take", True) == 1
        await _stop(task_a)

    run_async(scenario())


def test_without_redis_the_job_simply_runs(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "")
    get_settings.cache_clear()
    ran = []

    async def job() -> None:
        ran.append(True)

    try:
        run_async(one_worker(job, name=NAME)())
    finally:
        get_settings.cache_clear()
    assert ran == [True]
