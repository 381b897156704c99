"""Periodic jobs run by one worker at a time (app.jobs_lock), against the test Redis database.

Two wrapped copies of a job in one event loop stand for two workers: each copy
holds its own lease token, exactly as two processes would.
"""

from __future__ import annotations

import asyncio

import pytest
import redis

from app.jobs_lock import KEY_PREFIX, one_worker
from app.settings import get_settings
from tests.abuse import TEST_REDIS_URL
from tests.handlers import run_async

LEASE = 0.6
RENEW = 0.1
NAME = "prueba-trabajo"


@pytest.fixture
def lease_redis(monkeypatch) -> redis.Redis:
    """The test Redis, without this test's lease key."""
    client = redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=5)
    try:
        client.delete(KEY_PREFIX + NAME)
    except redis.RedisError as exc:  # pragma: no cover - environment failure
        pytest.fail(f"Redis is not reachable at {TEST_REDIS_URL}: {exc}")
    monkeypatch.setenv("REDIS_URL", TEST_REDIS_URL)
    get_settings.cache_clear()
    yield client
    client.delete(KEY_PREFIX + NAME)
    get_settings.cache_clear()


def _workers(ticks: dict[str, int]):
    """Two copies ("a", "b") of one job that counts its ticks, each wrapped as its worker would wrap it."""

    def job_of(worker: str):
        async def job() -> None:
            while True:
                ticks[worker] += 1
                await asyncio.sleep(0.02)

        return one_worker(job, name=NAME, lease_seconds=LEASE, renew_every_seconds=RENEW)

    return job_of("a"), job_of("b")


def test_only_one_of_two_workers_runs_the_job_and_the_other_takes_over_when_it_stops(lease_redis):
    async def scenario() -> tuple[dict, dict, dict]:
        ticks = {"a": 0, "b": 0}
        run_a, run_b = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await asyncio.sleep(0.05)
        task_b = asyncio.create_task(run_b())
        await asyncio.sleep(1.5)  # several lease lengths: the lease is renewed, never taken by b
        both_running = dict(ticks)
        task_a.cancel()  # worker a shuts down and gives the lease back
        await asyncio.gather(task_a, return_exceptions=True)
        stopped = dict(ticks)
        await asyncio.sleep(0.5)
        after = dict(ticks)
        task_b.cancel()
        await asyncio.gather(task_b, return_exceptions=True)
        return both_running, stopped, after

    both_running, stopped, after = run_async(scenario())
    assert both_running["a"] > 20 and both_running["b"] == 0
    assert after["a"] == stopped["a"]  # a's job was cancelled with it
    assert after["b"] > 5  # b took the lease within its retry interval
    assert lease_redis.get(KEY_PREFIX + NAME) is None  # b gave it back when it stopped


def test_a_worker_whose_lease_was_taken_stops_its_job(lease_redis):
    async def scenario() -> tuple[int, int]:
        ticks = {"a": 0, "b": 0}
        run_a, _ = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await asyncio.sleep(0.3)
        await asyncio.to_thread(lease_redis.set, KEY_PREFIX + NAME, "otro-proceso", px=60_000)
        await asyncio.sleep(3 * RENEW)  # a's next renewal finds another holder
        stopped = ticks["a"]
        await asyncio.sleep(0.3)
        task_a.cancel()
        await asyncio.gather(task_a, return_exceptions=True)
        return stopped, ticks["a"]

    stopped, later = run_async(scenario())
    assert stopped > 0 and later == stopped
    assert lease_redis.get(KEY_PREFIX + NAME) == b"otro-proceso"  # a left the other holder's lease alone


def test_a_lease_left_by_a_dead_worker_expires_and_is_taken(lease_redis):
    lease_redis.set(KEY_PREFIX + NAME, "proceso-muerto", px=round(LEASE * 1000))

    async def scenario() -> dict[str, int]:
        ticks = {"a": 0, "b": 0}
        run_a, _ = _workers(ticks)
        task_a = asyncio.create_task(run_a())
        await asyncio.sleep(0.3)
        early = ticks["a"]
        await asyncio.sleep(LEASE + 0.4)
        task_a.cancel()
        await asyncio.gather(task_a, return_exceptions=True)
        return {"early": early, "late": ticks["a"]}

    counts = run_async(scenario())
    assert counts["early"] == 0 and counts["late"] > 5


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
