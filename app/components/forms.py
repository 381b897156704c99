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


def _error_parts(field_id: str, name: str, errors: rx.Var | None) -> tuple[dict, list[rx.Component]]:
    """The aria attributes of a control and its error paragraph, when ``errors`` may hold one under ``name``."""
    if errors is None:
        return {}, []
    message = errors.get(name, "")
    error_id = f"{field_id}-error"
    attrs = {
        "aria-invalid": rx.cond(message != "", "true", "false"),
        "aria-describedby": rx.cond(message != "", error_id, ""),
    }
    return attrs, [rx.cond(message != "", rx.el.p(message, id=error_id, role="alert", class_name="field-error"))]


def select_field(
    form: str,
    label: str,
    name: str,
    options: rx.Var,
    *,
    placeholder: str = "Elige…",
    errors: rx.Var | None = None,
    **props,
) -> rx.Component:
    """A label and its select; ``options`` is a list var of [value, text] pairs."""
    field_id = f"{form}-{name}"
    attrs, error = _error_parts(field_id, name, errors)
    return rx.el.div(
        rx.el.label(label, html_for=field_id),
        rx.el.select(
            rx.el.option(placeholder, value=""),
            rx.foreach(options, lambda option: rx.el.option(option[1], value=option[0])),
            id=field_id,
            name=name,
            custom_attrs=attrs,
            **props,
        ),
        *error,
        class_name="field",
    )


def textarea_field(form: str, label: str, name: str, *, errors: rx.Var | None = None, **props) -> rx.Component:
    """A label and its text area."""
    field_id = f"{form}-{name}"
    attrs, error = _error_parts(field_id, name, errors)
    return rx.el.div(
        rx.el.label(label, html_for=field_id),
        rx.el.textarea(id=field_id, name=name, custom_attrs=attrs, **props),
        *error,
        class_name="field",
    )


def checkbox_field(label: str, name: str, **props) -> rx.Component:
    """A checkbox with its label after it."""
    return rx.el.label(rx.el.input(type="checkbox", name=name, **props), " ", label, class_name="check")


DATE_MASK = "aaaa/mm/dd"
DATE_PATTERN = r"[0-9]{4}/[0-9]{2}/[0-9]{2}"


def date_field(form: str, label: str, name: str, *, on_pick, errors: rx.Var | None = None, **props) -> rx.Component:
    """A date typed as año/mes/día (the mask of every date in the site), with a calendar to pick it.

    ``on_pick`` receives the picked day as YYYY-MM-DD and should put it in the field's value as YYYY/MM/DD.
    """
    field_id = f"{form}-{name}"
    attrs, error = _error_parts(field_id, name, errors)
    return rx.el.div(
        rx.el.label(f"{label} ({DATE_MASK})", html_for=field_id),
        rx.el.div(
            rx.el.input(
                id=field_id,
                name=name,
                type="text",
                input_mode="numeric",
                placeholder=DATE_MASK,
                pattern=DATE_PATTERN,
                max_length=10,
                custom_attrs=attrs,
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
        *error,
        class_name="field",
    )
