"""Typed errors raised by the services, each carrying a Spanish message for people."""

from __future__ import annotations


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
    """The input was refused by validation; nothing was changed."""


class RateLimitedError(ServiceError):
    """Too many requests from the same client; try again later."""


class StorageError(ServiceError):
    """The database refused or failed a write; nothing was changed."""
