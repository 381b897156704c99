"""The one way a state runs blocking work (a service call, reading an upload) off the event loop.

``await run_service(fn, **kwargs)`` opens a database session, calls
``fn(session=session, **kwargs)`` on a worker thread, closes the session and
returns what ``fn`` returned (or raises what it raised). ``with_session=False``
calls ``fn(**kwargs)`` alone, for work that needs no database.

Work waits for the shared threads of the event loop (those of
``asyncio.to_thread``) unless ``pool`` names another: account operations
(argon2 hashing, identity-service calls) take ``ACCOUNT_POOL``, so that a
flood of sign-ups never holds the threads on which every guarded action
checks its session.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar

from app.db import session_scope

Result = TypeVar("Result")

ACCOUNT_WORKERS = 4
ACCOUNT_POOL = ThreadPoolExecutor(max_workers=ACCOUNT_WORKERS, thread_name_prefix="accounts")


def _in_session(fn: Callable[..., Result], kwargs: dict[str, Any]) -> Result:
    with session_scope() as session:
        return fn(session=session, **kwargs)


async def run_service(
    fn: Callable[..., Result], /, *, pool: Executor | None = None, with_session: bool = True, **kwargs: Any
) -> Result:
    """``fn(session=<a new session>, **kwargs)`` (or ``fn(**kwargs)`` without a session) on a worker thread.

    The call sees the caller's context variables, as with ``asyncio.to_thread``.
    """
    call = functools.partial(_in_session, fn, kwargs) if with_session else functools.partial(fn, **kwargs)
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(pool, context.run, call)
