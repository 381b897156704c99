"""Reflex's Redis state lock is given back when the event taking it is cancelled (app.web.state_locks).

Against this process's real Redis server. The window is the one a navigation hits when it cancels
the previous page's trailing event: the ``SET NX`` has taken the lock in Redis and the task is
cancelled before it learns so. The tests open that window on purpose by holding the client's
``set`` answer back (the command itself runs on the real server), then cancel the task there.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from reflex.istate.manager.redis import StateManagerRedis

from app.web import state_locks
from tests.redis_server import empty_redis

LOCK_KEY = b"pestana-1_lock"


def _manager(url: str) -> StateManagerRedis:
    # An expiry far longer than any test: a stranded lock stays stranded while the test looks.
    return StateManagerRedis(redis=aioredis.Redis.from_url(url), lock_expiration=600_000, lock_warning_threshold=1_000)


def _answer_held_after_set(manager: StateManagerRedis) -> asyncio.Event:
    """Make the client's SET run on the server, then never return: the returned event is set once it ran."""
    ran = asyncio.Event()
    real_set = manager.redis.set

    async def set_then_hang(*args, **kwargs):
        await real_set(*args, **kwargs)
        ran.set()
        await asyncio.Event().wait()  # the answer "never arrives": only a cancellation ends this

    manager.redis.set = set_then_hang  # type: ignore[method-assign]
    return ran


async def _cancel_while_taking(manager: StateManagerRedis, wait_lock, lock_id: bytes) -> None:
    ran = _answer_held_after_set(manager)
    attempt = asyncio.create_task(wait_lock(manager, LOCK_KEY, lock_id))
    await ran.wait()
    attempt.cancel()
    with pytest.raises(asyncio.CancelledError):
        await attempt


def test_a_lock_taken_as_its_event_is_cancelled_is_given_back_and_the_next_event_gets_it():
    url = empty_redis()

    async def scenario():
        manager = _manager(url)
        state_locks.release_locks_of_cancelled_events()
        await _cancel_while_taking(manager, StateManagerRedis._wait_lock, b"set_is_hydrated:1")
        assert await manager.redis.get(LOCK_KEY) is None
        # The tab's next event takes the lock at once (it would wait for the expiry otherwise).
        del manager.redis.set  # the client's own method again
        assert await manager._try_get_lock(LOCK_KEY, b"on_load_internal:2")
        assert await manager.redis.get(LOCK_KEY) == b"on_load_internal:2"
        await manager.redis.aclose()

    asyncio.run(scenario())


def test_reflex_alone_strands_the_lock_of_a_cancelled_event():
    """Why the wrapper exists: Reflex 0.10.1's own _wait_lock leaves the lock in Redis until it expires.
    When an upgrade of Reflex makes this test fail, the wrapper can go."""
    url = empty_redis()

    async def scenario():
        manager = _manager(url)
        await _cancel_while_taking(manager, state_locks._reflex_wait_lock, b"set_is_hydrated:1")
        assert await manager.redis.get(LOCK_KEY) == b"set_is_hydrated:1"
        assert await manager.redis.pttl(LOCK_KEY) > 0  # held until it expires
        await manager.redis.aclose()

    asyncio.run(scenario())


def test_a_cancelled_event_never_releases_a_lock_another_event_holds():
    url = empty_redis()

    async def scenario():
        manager = _manager(url)
        state_locks.release_locks_of_cancelled_events()
        assert await manager._try_get_lock(LOCK_KEY, b"otro-evento:1")
        # An event waiting for the lock that another holds is cancelled while it waits.
        waiting = asyncio.create_task(manager._wait_lock(LOCK_KEY, b"set_is_hydrated:2"))
        while not manager._n_lock_waiters(LOCK_KEY):
            await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await manager.redis.get(LOCK_KEY) == b"otro-evento:1"
        await manager.redis.aclose()

    asyncio.run(scenario())
