"""The listing lifecycle: may this kind of actor move a listing from one status to another?

The rules are data (``LISTING_TRANSITIONS`` in app/models/listings.py, which
also records the decisions behind them); these functions only read that
table. They are pure: no session, no clock. A service that changes a status
calls :func:`ensure_transition` first, then writes the new status together
with whatever goes with it (a review row, ``published_at``) in one
transaction.

``actor_kind`` says in which role the change is made, not who the person is:
the owner pausing their listing is ``owner``; staff approving it is
``staff``; the expiry job is ``system``. Services derive it from the caller's
``Actor`` after checking ownership or staff profile.

What the owner may do with a listing ("my listings" buttons, and the services behind them) is
:func:`owner_may`: a named move of the table, or an action the status offers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from app.core.errors import TransitionNotAllowedError
from app.models.listings import (
    LISTING_STATUS_LABELS,
    LISTING_TRANSITIONS,
    OWNER_ACTIONS,
    OWNER_MOVES,
    ActorKind,
    ListingStatus,
)

E = TypeVar("E", bound=StrEnum)


def _member(enum_cls: type[E], value: str) -> E | None:
    try:
        return enum_cls(value)
    except ValueError:
        return None


def can_transition(current: ListingStatus | str, new: ListingStatus | str, actor_kind: ActorKind | str) -> bool:
    """True when ``actor_kind`` may move a listing from ``current`` to ``new``.

    Staying in the same status is not a move (False); unknown statuses or
    actor kinds are never allowed.
    """
    source = _member(ListingStatus, current)
    target = _member(ListingStatus, new)
    actor = _member(ActorKind, actor_kind)
    if source is None or target is None or actor is None:
        return False
    return actor in LISTING_TRANSITIONS.get((source, target), frozenset())


def ensure_transition(
    current: ListingStatus | str, new: ListingStatus | str, actor_kind: ActorKind | str
) -> ListingStatus:
    """The new status as a ``ListingStatus``, or :class:`TransitionNotAllowedError` in Spanish."""
    if not can_transition(current, new, actor_kind):
        raise TransitionNotAllowedError(
            current=str(current),
            new=str(new),
            actor_kind=str(actor_kind),
            current_label=_label(current),
            new_label=_label(new),
        )
    return ListingStatus(new)


def allowed_targets(current: ListingStatus | str, actor_kind: ActorKind | str) -> list[ListingStatus]:
    """The statuses ``actor_kind`` may move a listing in ``current`` to, in lifecycle order (for buttons)."""
    return [status for status in ListingStatus if can_transition(current, status, actor_kind)]


def owner_may(action: str, current: ListingStatus | str) -> bool:
    """Whether the owner may use ``action`` on a listing in ``current``: a move of ``OWNER_MOVES`` when the
    listing is where that move starts and ``LISTING_TRANSITIONS`` lets the owner make it, any other action
    when ``OWNER_ACTIONS`` offers it in that status. The buttons of "my listings" and the services behind
    them both ask this."""
    status = _member(ListingStatus, current)
    if status is None:
        return False
    if action in OWNER_MOVES:
        source, target = OWNER_MOVES[action]
        return status == source and can_transition(source, target, ActorKind.OWNER)
    return status in OWNER_ACTIONS[action]


def owner_statuses(action: str) -> frozenset[ListingStatus]:
    """The statuses in which the owner may use ``action``."""
    return frozenset(status for status in ListingStatus if owner_may(action, status))


def _label(value: ListingStatus | str) -> str:
    status = _member(ListingStatus, value)
    return LISTING_STATUS_LABELS[status] if status is not None else "desconocido"
