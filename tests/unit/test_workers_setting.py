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
