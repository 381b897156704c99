"""Form pieces every form shares: a labelled control with its error, and the form-level alert.

Forms are ``novalidate``: the browser's own checks would stop them in the browser's
language; the server's Spanish messages under the fields are the only ones.
A control's ``aria-describedby`` names its hint and its error only when they are shown,
and, given ``on_clear``, a field's message goes away as soon as that field changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import reflex as rx
from reflex_base.event import EventSpec
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import ArrayVar
from reflex_components_core.el.elements.forms import HTMLInputTypeAttribute

from app.core.dates import TYPED_DAY_MASK

# Called with a field's name, it gives the event that takes that field's message away.
Clear = Callable[[str], EventSpec]
# A form's messages by field name: a state var (a Var to Reflex, a dict to the type checker).
Errors = ObjectVar[dict[str, str]] | dict[str, str]


def form_alert(text: rx.Var[Any] | str) -> rx.Component:
    """The form-level error, announced to screen readers (role="alert") when there is one.

    Not before this load's loaders have run: after a reload the tab's old state shows first, and an
    error of an earlier visit would be announced as if it were new."""
    return cast(
        rx.Component,
        rx.cond(rx.State.is_hydrated & (text != ""), rx.el.p(text, role="alert", class_name="form-error")),
    )


def _described_by(ids: list[str], message: rx.Var[Any] | None, error_id: str) -> rx.Var[Any] | str | None:
    """The ids a control is described by (its hint, its error while shown), or None: never an empty attribute."""
    if message is None:
        return " ".join(ids) or None
    with_error = " ".join([*ids, error_id])
    return cast(rx.Var[Any], rx.cond(message != "", with_error, " ".join(ids) or None))


def _control(
    field_id: str, name: str, errors: Errors | None, on_clear: Clear | None, props: dict[str, Any], hint_id: str = ""
) -> tuple[dict[str, Any], list[rx.Component]]:
    """The props of a control (aria attributes, clearing its message on change) and its error paragraph."""
    message: Any = errors.get(name, "") if errors is not None else None
    error_id = f"{field_id}-error"
    attrs = dict(props.pop("custom_attrs", {}))
    described = _described_by([hint_id] if hint_id else [], message, error_id)
    if described is not None:
        attrs["aria-describedby"] = described
    error: list[rx.Component] = []
    if message is not None:
        attrs["aria-invalid"] = rx.cond(message != "", "true", "false")
        error = [rx.cond(message != "", rx.el.p(message, id=error_id, role="alert", class_name="field-error"))]
        if on_clear is not None:
            forget = rx.cond(message != "", on_clear(name), rx.noop())
            own = props.pop("on_change", None)
            props["on_change"] = [*(own if isinstance(own, list) else [own] if own is not None else []), forget]
    if attrs:
        props["custom_attrs"] = attrs
    return props, error


def text_field(
    form: str,
    label: str,
    name: str,
    *,
    type_: HTMLInputTypeAttribute = "text",
    auto_complete: str | None = None,
    errors: Errors | None = None,
    on_clear: Clear | None = None,
    **props: Any,
) -> rx.Component:
    """A label, its input (id ``{form}-{name}``) and, when ``errors`` holds one under ``name``, its error."""
    field_id = f"{form}-{name}"
    if auto_complete:
        props["auto_complete"] = auto_complete
    props, error = _control(field_id, name, errors, on_clear, props)
    return rx.el.div(
        rx.el.label(label, html_for=field_id),
        rx.el.input(id=field_id, name=name, type=type_, **props),
        *error,
        class_name="field",
    )


def password_field(
    form: str,
    label: str,
    name: str,
    auto_complete: str,
    *,
    max_length: int,
    errors: Errors | None = None,
    on_clear: Clear | None = None,
) -> rx.Component:
    """A required password input."""
    return text_field(
        form,
        label,
        name,
        type_="password",
        auto_complete=auto_complete,
        errors=errors,
        on_clear=on_clear,
        required=True,
        max_length=max_length,
    )


def select_field(
    form: str,
    label: str,
    name: str,
    options: rx.Var[Any] | list[list[str]],
    *,
    placeholder: str = "Elige…",
    errors: Errors | None = None,
    on_clear: Clear | None = None,
    **props: Any,
) -> rx.Component:
    """A label and its select; ``options`` is a list var of [value, text] pairs."""
    field_id = f"{form}-{name}"
    props, error = _control(field_id, name, errors, on_clear, props)
    return rx.el.div(
        rx.el.label(label, html_for=field_id),
        rx.el.select(
            rx.el.option(placeholder, value=""),
            rx.foreach(options, lambda option: rx.el.option(option[1], value=option[0])),
            id=field_id,
            name=name,
            **props,
        ),
        *error,
        class_name="field",
    )


def textarea_field(
    form: str, label: str, name: str, *, errors: Errors | None = None, on_clear: Clear | None = None, **props: Any
) -> rx.Component:
    """A label and its text area."""
    field_id = f"{form}-{name}"
    props, error = _control(field_id, name, errors, on_clear, props)
    return rx.el.div(
        rx.el.label(label, html_for=field_id),
        rx.el.textarea(id=field_id, name=name, **props),
        *error,
        class_name="field",
    )


def labelled_upload(label: str, *children: rx.Component, **props: Any) -> rx.Component:
    """``rx.upload`` whose file input has an accessible name (Reflex renders that input with no props of ours)."""
    zone = rx.upload(*children, **props)
    file_input = zone.children[0].children[0]
    if not isinstance(file_input, rx.el.elements.Input):
        raise TypeError("rx.upload no longer renders its file input first: label it another way")
    file_input.custom_attrs["aria-label"] = label
    return zone


def upload_hint(pointer: str, touch: str) -> rx.Component:
    """The words of an upload zone: ``pointer`` where files can be dragged, ``touch`` on a phone, where nothing
    can (assets/styles.css shows the one that fits the pointer)."""
    return rx.el.p(
        rx.el.span(pointer, class_name="upload-hint-pointer"), rx.el.span(touch, class_name="upload-hint-touch")
    )


def checkbox_field(label: str, name: str, **props: Any) -> rx.Component:
    """A checkbox with its label after it."""
    return rx.el.label(rx.el.input(type="checkbox", name=name, **props), " ", label, class_name="check")


# As Chileans write a day; year first ("1996/04/12") is read as well.
DATE_HINT = "Por ejemplo 12-04-1996. También puedes escribirla como año/mes/día."


def date_field(
    form: str,
    label: str,
    name: str,
    *,
    on_pick: Callable[[rx.Var[str]], EventSpec],
    errors: Errors | None = None,
    on_clear: Clear | None = None,
    **props: Any,
) -> rx.Component:
    """A date asked for as día-mes-año (año/mes/día and "/", "-" or "." are read too), with a calendar to pick it.

    No pattern: the server reads every shape and says what it could not read. ``on_pick`` receives the
    picked day as YYYY-MM-DD and should put it in the field's value as ``app.core.dates.typed_day`` writes it.
    """
    field_id = f"{form}-{name}"
    hint_id = f"{field_id}-hint"
    props, error = _control(field_id, name, errors, on_clear, props, hint_id=hint_id)
    return rx.el.div(
        rx.el.label(f"{label} ({TYPED_DAY_MASK})", html_for=field_id),
        rx.el.div(
            rx.el.input(
                id=field_id,
                name=name,
                type="text",
                input_mode="numeric",
                placeholder=TYPED_DAY_MASK,
                max_length=10,
                **props,
            ),
            rx.el.input(
                type="date",
                on_change=on_pick,
                class_name="date-picker",
                custom_attrs={"aria-label": f"Elegir {label.lower()} en el calendario"},
            ),
            class_name="date-field",
        ),
        rx.el.p(DATE_HINT, id=hint_id, class_name="hint muted"),
        *error,
        class_name="field",
    )


def thumbnail_list(items: ArrayVar[Any], item: Callable[[Any], rx.Component], label: str) -> rx.Component:
    """A summary's small pictures (the wizard's last step): one list item each, named ``label``; nothing when empty."""
    return cast(
        rx.Component,
        rx.cond(
            items.length() > 0, rx.el.ul(rx.foreach(items, item), class_name="wizard-thumbnails", aria_label=label)
        ),
    )
