"""Lifespan jobs run by one app worker at a time.

Every backend worker runs the app's lifespan, so with several workers each
periodic job (sign-in tables clean-up, listings' clock) would start once per
worker. The jobs are idempotent, so that would be harmless, but it is wasted
work and contention on the rows they lock. :func:`one_worker` wraps a job so
that only the worker holding a Redis lease runs it: the lease is taken with
SET NX EX, renewed while the job runs, and given back on shutdown; when its
holder dies without giving it back, it expires and another worker takes over.

Without REDIS_URL the app runs one worker (see rxconfig.py) and the job just runs.
If Redis cannot be reached, a worker that holds the lease keeps running its job
(running it twice does no harm) and the others keep trying.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import redis.asyncio as redis_asyncio
from redis.exceptions import RedisError

from app.settings import get_settings

log = logging.getLogger(__name__)

KEY_PREFIX = "trabajos:"
LEASE_SECONDS = 90
RENEW_EVERY_SECONDS = 30
REDIS_TIMEOUT_S = 5.0

# Keep or take the lease: ours, or nobody's (it expired while Redis was out of reach).
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
# Give the lease back only if it is still ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

Job = Callable[[], Coroutine[Any, Any, None]]


def one_worker(
    job: Job,
    *,
    name: str | None = None,
    lease_seconds: float = LEASE_SECONDS,
    renew_every_seconds: float = RENEW_EVERY_SECONDS,
) -> Callable[[], Awaitable[None]]:
    """``job`` (a lifespan task that loops forever), run only by the worker holding the lease ``name``."""
    key = KEY_PREFIX + (name or job.__name__)

    @functools.wraps(job)
    async def run() -> None:
        url = get_settings().redis_url
        if not url:
            await job()
            return
        client = redis_asyncio.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )
        holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"
        try:
            await _lead(client, key, holder, job, lease_seconds, renew_every_seconds)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await client.eval(_RELEASE, 1, key, holder)  # type: ignore[misc]  # redis-py types eval() for both clients
            await client.aclose()

    return run


async def _lead(
    client: redis_asyncio.Redis, key: str, holder: str, job: Job, lease_seconds: float, renew_every: float
) -> None:
    """Wait for the lease, run ``job`` while the lease stays ours, stop it when the lease is lost; again."""
    lease_ms = max(1, round(lease_seconds * 1000))
    while True:
        try:
            taken = bool(await client.set(key, holder, nx=True, px=lease_ms))
        except RedisError as exc:
            log.warning("%s: Redis unreachable (%s); trying again in %.0f s", key, type(exc).__name__, renew_every)
            taken = False
        if taken:
            log.info("%s: this worker (pid %d) runs the job", key, os.getpid())
            if not await _run_while_held(client, key, holder, job, lease_ms, renew_every):
                return
            log.info("%s: lease lost; this worker (pid %d) stopped the job", key, os.getpid())
        await asyncio.sleep(renew_every)


async def _run_while_held(
    client: redis_asyncio.Redis, key: str, holder: str, job: Job, lease_ms: int, renew_every: float
) -> bool:
    """Run ``job``, renewing the lease every ``renew_every`` seconds.

    True once the lease is lost (the job is cancelled), False when the job ended by itself.
    """
    task = asyncio.create_task(job())
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=renew_every)
            if done:
                task.result()  # a job that failed raises here
                return False
            try:
                kept = bool(await client.eval(_RENEW, 1, key, holder, lease_ms))  # type: ignore[misc]  # as above
            except RedisError as exc:
                log.warning("%s: lease not renewed (%s); the job keeps running", key, type(exc).__name__)
                kept = True
            if not kept:
                return True
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
