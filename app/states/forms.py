"""A base for form states: a busy flag reset in ``finally``, a form-level error and field errors by name.

A form state mixes ``FormState`` in and runs its one service call through ``_submit``.
Nothing in ``FormState`` is an event handler (every name starts with ``_``), so a state
that mixes it in exposes exactly the handlers it marks itself. ``ClearingFormState`` adds
one public handler that only takes a field's message away once the field changes
(``app.components.forms`` wires it to the field's ``on_change``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any

import reflex as rx

from app.core.errors import InvalidInputError, ServiceError
from app.states.auth import public


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
        """Put each refused field's message under that field when the form shows it, the rest on the form."""
        shown = set(fields)
        messages = exc.fields if isinstance(exc, InvalidInputError) else {}
        self.field_errors = {field: message for field, message in messages.items() if field in shown}
        rest = [message for field, message in messages.items() if field not in shown]
        if rest or not self.field_errors:
            self.error = " ".join(rest) or exc.message

    def _forget_field_error(self, field: object) -> None:
        """Take a field's message away once the field changes (its handler calls this)."""
        if isinstance(field, str) and field in self.field_errors:
            self.field_errors = {name: text for name, text in self.field_errors.items() if name != field}

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


class ClearingFormState(FormState, mixin=True):
    """A form state whose field messages go away as soon as their field changes."""

    @public
    def clear_field_error(self, field: str) -> None:
        """Take away the message under a field the user just changed (the caller's own display only)."""
        self._forget_field_error(field)
