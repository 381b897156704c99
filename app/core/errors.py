"""Typed errors raised by the services (and the adapters below them), each carrying a Spanish message for people."""

from __future__ import annotations

from collections.abc import Mapping


class ServiceError(Exception):
    """Base error: ``message`` is Spanish text safe to show to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """The record asked for does not exist (or is not visible to the caller)."""


class ForbiddenError(ServiceError):
    """The caller's profile may not do this, or the record is not theirs."""


class ConflictError(ServiceError):
    """The write would break a uniqueness or state rule."""


class InvalidInputError(ServiceError):
    """The input was refused by validation; nothing was changed.

    ``field`` names the form field the message belongs to, when there is one.
    ``fields`` holds every refused field's message (a whole form step checked at once);
    ``message`` and ``field`` are then its first entry.
    """

    def __init__(self, message: str = "", *, field: str | None = None, fields: Mapping[str, str] | None = None) -> None:
        self.fields = dict(fields) if fields else ({field: message} if field else {})
        if fields:
            field, message = next(iter(self.fields.items()))
        super().__init__(message)
        self.field = field


class RateLimitedError(ServiceError):
    """Too many requests from the same client; try again later."""


class StorageError(ServiceError):
    """The database refused or failed a write; nothing was changed."""


class PhotoRejectedError(InvalidInputError):
    """An uploaded photo was refused; ``reason`` is a stable code, nothing was stored.

    Codes: ``empty``, ``too_large``, ``not_an_image``, ``too_many_pixels``, ``damaged``.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class TransitionNotAllowedError(ConflictError):
    """A listing status change that the lifecycle table does not allow for this kind of actor.

    ``current``, ``new`` and ``actor_kind`` are the stored values, for logs and tests;
    ``message`` names the statuses with the labels people see.
    """

    code = "transition-not-allowed"

    def __init__(self, *, current: str, new: str, actor_kind: str, current_label: str, new_label: str) -> None:
        super().__init__(f"Esta publicación no puede pasar de «{current_label}» a «{new_label}».")
        self.current = current
        self.new = new
        self.actor_kind = actor_kind
