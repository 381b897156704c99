"""A base for form states: a busy flag reset in ``finally``, a form-level error and field errors by name.

A form state mixes ``FormState`` in and runs its one service call through ``_submit``.
Nothing here is an event handler (every name starts with ``_``), so a state that mixes
it in exposes exactly the handlers it marks itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any

import reflex as rx

from app.services.errors import InvalidInputError, ServiceError


@dataclass(frozen=True)
class Outcome:
    """What a submitted call gave: its value, or the service error that was shown."""

    value: Any = None
    failure: ServiceError | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class FormState(rx.State, mixin=True):
    """Busy flag, form-level error and per-field errors of one form."""

    busy: bool = False
    error: str = ""
    field_errors: dict[str, str] = {}

    def _clear_errors(self) -> None:
        self.error = ""
        self.field_errors = {}

    def _show_error(self, exc: ServiceError, fields: Iterable[str] = ()) -> None:
        """Put a service error's message under its field when the form shows that field, else on the form."""
        field = exc.field if isinstance(exc, InvalidInputError) else None
        if field and field in set(fields):
            self.field_errors = {field: exc.message}
        else:
            self.error = exc.message

    async def _submit(self, call: Awaitable[Any], *, fields: Iterable[str] = ()) -> Outcome:
        """Await one service call with ``busy`` set; ``busy`` is reset in ``finally`` whatever happens.

        A ServiceError is shown (under its field when ``fields`` names it) and returned in the
        outcome; any other exception propagates after ``busy`` is reset.
        """
        self._clear_errors()
        self.busy = True
        try:
            return Outcome(value=await call)
        except ServiceError as exc:
            self._show_error(exc, fields)
            return Outcome(failure=exc)
        finally:
            self.busy = False
