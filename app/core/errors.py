"""Typed errors raised by the services (and the adapters below them), each carrying a Spanish message for people."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

Model = TypeVar("Model", bound=BaseModel)

FORM_REFUSED = "Revisa los datos del formulario."


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


class VideoRejectedError(InvalidInputError):
    """An uploaded video clip was refused or could not be processed; ``reason`` is a stable code.

    Codes: ``empty``, ``too_large``, ``not_a_video``, ``unsupported``, ``no_video``, ``too_long``,
    ``too_many_pixels``, ``damaged``.
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


def validated_input(
    model: type[Model],
    data: object,
    *,
    context: dict[str, Any] | None = None,
    fallback: str = FORM_REFUSED,
    messages: Mapping[str, str] | None = None,
) -> Model:
    """``data`` validated by the pydantic ``model``; the first refusal becomes InvalidInputError, nothing else.

    Its message is the validator's own (a ``ValueError`` raised with Spanish
    text), else ``messages`` by pydantic error type (formatted with the
    error's context, e.g. ``{max_length}``), else ``fallback``; its field is
    the refused top-level field, when there is one.
    """
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        error = exc.errors()[0]
        ctx = error.get("ctx") or {}
        loc = error.get("loc") or ()
        field = loc[0] if loc and isinstance(loc[0], str) else None
        message = str(ctx.get("error") or "")
        if not message and messages and error["type"] in messages:
            message = messages[error["type"]].format(**ctx)
        raise InvalidInputError(message or fallback, field=field) from exc
