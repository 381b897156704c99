"""Form pieces every form shares: a labelled input with its error, and the form-level alert."""

from __future__ import annotations

import reflex as rx


def form_alert(text: rx.Var) -> rx.Component:
    """The form-level error, announced to screen readers (role="alert") when there is one."""
    return rx.cond(text != "", rx.el.p(text, role="alert", class_name="form-error"))


def text_field(
    form: str,
    label: str,
    name: str,
    *,
    type_: str = "text",
    auto_complete: str = "",
    errors: rx.Var | None = None,
    **props,
) -> rx.Component:
    """A label, its input (id ``{form}-{name}``) and, when ``errors`` holds one under ``name``, its error."""
    field_id = f"{form}-{name}"
    error_id = f"{field_id}-error"
    children: list[rx.Component] = [rx.el.label(label, html_for=field_id)]
    if errors is None:
        children.append(rx.el.input(id=field_id, name=name, type=type_, auto_complete=auto_complete, **props))
    else:
        message = errors.get(name, "")
        children.append(
            rx.el.input(
                id=field_id,
                name=name,
                type=type_,
                auto_complete=auto_complete,
                custom_attrs={
                    "aria-invalid": rx.cond(message != "", "true", "false"),
                    "aria-describedby": rx.cond(message != "", error_id, ""),
                },
                **props,
            )
        )
        children.append(rx.cond(message != "", rx.el.p(message, id=error_id, role="alert", class_name="field-error")))
    return rx.el.div(*children, class_name="field")


def password_field(
    form: str, label: str, name: str, auto_complete: str, *, max_length: int, errors: rx.Var | None = None
) -> rx.Component:
    """A required password input."""
    return text_field(
        form,
        label,
        name,
        type_="password",
        auto_complete=auto_complete,
        errors=errors,
        required=True,
        max_length=max_length,
    )
