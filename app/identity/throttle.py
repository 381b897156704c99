"""Brute-force limits on sign-in.

After ``max_failures`` failed sign-ins for one account, or from one client,
within ``window``, that account or client gets too-many-requests for
``window`` counted from the failure that crossed the limit. A successful
sign-in clears the account's count (not the client's: one client trying
many accounts stays limited). Refused attempts are not counted again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlmodel import Session, select

from app.models import SignInAttempt, utc_now


def locked_until(failures: Sequence[datetime], *, max_failures: int, window: timedelta) -> datetime | None:
    """When the lock ends, given failure times in ascending order (None: never locked).

    A lock starts at any failure that is the ``max_failures``-th within
    ``window`` and lasts ``window``.
    """
    end: datetime | None = None
    for index in range(max_failures - 1, len(failures)):
        if failures[index] - failures[index - max_failures + 1] <= window:
            end = failures[index] + window
    return end


def _failures(session: Session, *conditions, since: datetime) -> list[datetime]:
    rows = session.exec(
        select(SignInAttempt.at)
        .where(*conditions, SignInAttempt.succeeded.is_(False), SignInAttempt.at >= since)
        .order_by(SignInAttempt.at)
    ).all()
    return list(rows)


def is_locked(
    *, session: Session, email: str, client_hash: str, max_failures: int, window: timedelta, now: datetime | None = None
) -> bool:
    """True while the account or the client is locked out."""
    now = now or utc_now()
    since = now - 2 * window  # a lock can only come from failures this recent
    last_success = session.exec(
        select(SignInAttempt.at)
        .where(SignInAttempt.email == email, SignInAttempt.succeeded.is_(True), SignInAttempt.at >= since)
        .order_by(SignInAttempt.at.desc())
    ).first()
    account_since = max(since, last_success) if last_success else since
    for failures in (
        _failures(session, SignInAttempt.email == email, since=account_since),
        _failures(session, SignInAttempt.client_hash == client_hash, since=since),
    ):
        end = locked_until(failures, max_failures=max_failures, window=window)
        if end is not None and end > now:
            return True
    return False


KEEP_ATTEMPTS = timedelta(days=1)


def record_attempt(*, session: Session, email: str, client_hash: str, succeeded: bool, now: datetime | None = None) -> None:
    """Remember one sign-in attempt and forget those older than a day (committed at once)."""
    now = now or utc_now()
    session.execute(delete(SignInAttempt).where(SignInAttempt.at < now - KEEP_ATTEMPTS))
    session.add(SignInAttempt(email=email, client_hash=client_hash, succeeded=succeeded, at=now))
    session.commit()
