"""PROVISIONAL stub of the task queue (issue 35 §2), so the clip upload can name its one enqueue call.

The lead's task queue replaces this module at merge; until then a deferred task runs nowhere.
"""

from __future__ import annotations

from sqlmodel import Session


def defer(session: Session, task: str, **arguments: str) -> None:
    """Enqueue ``task`` with ``arguments`` in ``session``'s transaction (this stub keeps nothing)."""
