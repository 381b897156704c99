"""Helpers for tests of the abuse limits: which counter storage, a clock to move forward, concurrent calls."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from app.settings import get_settings
from tests.redis_server import empty_redis

STORAGES = ("memory", "redis")
COUNTER_MODULES = ("limits.storage.memory", "limits.storage.redis", "limits.strategies", "app.services.abuse")


def use_storage(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Fresh, empty counters in this process's memory or in this process's private Redis server."""
    monkeypatch.setenv("REDIS_URL", empty_redis() if kind == "redis" else "")
    get_settings.cache_clear()  # new settings, new limiter


class Clock:
    """Stands in for the ``time`` module of the counters: the time the test began plus what it skipped.

    Frozen otherwise: a slow machine taking seconds between two calls changes no window and no
    wait a message names."""

    def __init__(self) -> None:
        self.began = time.time()
        self.skipped = 0.0

    def time(self) -> float:
        return self.began + self.skipped

    def advance(self, seconds: float) -> None:
        """Move on by ``seconds`` and a millisecond: waiting the seconds a refusal names is enough."""
        self.skipped += seconds + 0.001


def install_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Let the test move the counters' time forward (moving windows in memory and Redis, sliding ones in memory)."""
    clock = Clock()
    for module in COUNTER_MODULES:
        monkeypatch.setattr(f"{module}.time", clock)
    return clock


def at_once(call: Callable[[int], object], count: int) -> list[object]:
    """Run ``call(i)`` for i in range(count) on as many threads, released together; results or exceptions."""
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = call(index)
        except Exception as exc:  # collected for the test to inspect
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a concurrent call never finished"
    return results


def redirect_paths(events: list) -> list[str]:
    """The paths of the redirects among the events a handler returned."""
    paths = []
    for event in events:
        handler = getattr(event, "handler", None)
        if handler is not None and handler.fn.__qualname__ == "_redirect":
            paths.append({str(k): str(v) for k, v in event.args}["path"].strip('"'))
    return paths
