"""Running a periodic job's loop (a lifespan task that works, then sleeps) once, in a test."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from tests.handlers import run_async


class _Stop(Exception):
    """Ends the loop at its first sleep."""


def first_run(
    loop: Callable[[], Coroutine[Any, Any, None]], loop_module: ModuleType, monkeypatch, *, commits_refused=False
) -> list[float]:
    """Run ``loop`` until its first sleep (``loop_module.asyncio.sleep``) and return the waits it asked for;
    with ``commits_refused``, the database refuses every commit meanwhile, as one that went away would."""

    def refused(self):
        raise OperationalError("COMMIT", {}, Exception("conexión perdida"))

    waits: list[float] = []

    async def stop_at_first_sleep(seconds):
        waits.append(seconds)
        raise _Stop

    if commits_refused:
        monkeypatch.setattr(Session, "commit", refused)
    monkeypatch.setattr(loop_module.asyncio, "sleep", stop_at_first_sleep)
    with pytest.raises(_Stop):
        run_async(loop())
    return waits
