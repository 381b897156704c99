"""How many backend workers the app asks Reflex for (WEB_WORKERS, REDIS_URL)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings


def _settings(**values) -> Settings:
    return Settings(_env_file=None, **values)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    for name in ("WEB_WORKERS", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)


def test_without_redis_one_worker_whatever_reflex_would_choose():
    assert _settings().backend_workers == 1
    assert _settings(web_workers=1).backend_workers == 1


def test_several_workers_without_redis_are_refused():
    with pytest.raises(ValidationError, match="WEB_WORKERS above 1 needs REDIS_URL"):
        _settings(web_workers=2)


def test_with_redis_web_workers_or_reflexs_choice():
    assert _settings(redis_url="redis://cache:6379/0", web_workers=3).backend_workers == 3
    assert _settings(redis_url="redis://cache:6379/0").backend_workers is None


def test_a_negative_count_is_refused():
    with pytest.raises(ValidationError, match="WEB_WORKERS must be 0"):
        _settings(redis_url="redis://cache:6379/0", web_workers=-1)


def _state_manager_locking(**env: str) -> str:
    """How Reflex's Redis state manager locks a tab's state once rxconfig.py is loaded with ``env``."""
    import os
    import subprocess
    import sys

    from app.settings import PROJECT_ROOT

    probe = (
        "import rxconfig\n"
        "from redis.asyncio import Redis\n"
        "from reflex.istate.manager.redis import StateManagerRedis\n"
        "manager = StateManagerRedis(redis=Redis())\n"
        "print(manager._oplock_enabled, manager.oplock_hold_time_ms)\n"
    )
    ours = (
        "REDIS_URL",
        "WEB_WORKERS",
        "REFLEX_OPLOCK_ENABLED",
        "REFLEX_OPLOCK_HOLD_TIME",
        "REFLEX_OPLOCK_HOLD_TIME_MS",
    )
    clean = {k: v for k, v in os.environ.items() if k not in ours}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=PROJECT_ROOT,
        env={**clean, "ENVIRONMENT": "test", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("\n")[-2]


def test_with_redis_a_worker_keeps_a_tabs_state_between_events():
    """The opportunistic lock is on with Redis (each event would otherwise lock, read, write and unlock the
    state in Redis), held 1 s (an overloaded worker still writes back before the lock's 10 s expire); an operator
    can still change both."""
    assert _state_manager_locking(REDIS_URL="redis://cache:6379/0") == "True 1000"
    assert _state_manager_locking(REDIS_URL="redis://cache:6379/0", REFLEX_OPLOCK_HOLD_TIME="3s") == "True 3000"
    assert _state_manager_locking(REDIS_URL="redis://cache:6379/0", REFLEX_OPLOCK_ENABLED="false").startswith("False")
    assert _state_manager_locking().startswith("False")
