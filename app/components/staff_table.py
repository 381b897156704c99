"""The one staff table on screen, drawn from a state's :class:`~app.services.staff.table_spec.TableSpec`.

``staff_table(State)`` gives the search box, the filters, the sortable headers, one page of
rows with their buttons, the pager, the create/edit dialog and the delete confirmation.
``row_actions`` adds buttons of the page's own to each row (``row`` is the row's var);
``toolbar`` adds controls next to the search box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.components.forms import form_alert
from app.services.staff.table_spec import CREATE, Filter, FormField
from app.states.staff.table import StaffTableState

# A row of the page shown: its cells by column key, all text.
Row = ObjectVar[dict[str, str]]
RowActions = Callable[[Row], Sequence[rx.Component]]


def _has(state: type[StaffTableState], handler: str) -> bool:
    """Whether the state has this handler (the spec offers its action to some profile)."""
    return handler in state.event_handlers


def _ids(state: type[StaffTableState]) -> str:
    return f"tabla-{state._spec.entity}"


def _search(state: type[StaffTableState]) -> rx.Component:
    spec = state._spec
    input_id = f"{_ids(state)}-q"
    return rx.el.form(
        rx.el.label(spec.search_label, html_for=input_id),
        rx.el.input(id=input_id, name="q", type="search", max_length=100, default_value=state.search_text),
        rx.el.button("Buscar", type="submit", class_name="btn"),
        on_submit=state.search,
        reset_on_submit=False,
        role="search",
        class_name="staff-search",
    )


def _options(state: type[StaffTableState], control: Filter | FormField) -> rx.Component:
    """The <option>s of a filter's or field's select: fixed in the spec, or read from the database."""
    if control.from_data:
        return rx.foreach(state.options.get(control.key, []), lambda option: rx.el.option(option[1], value=option[0]))
    return rx.fragment(*[rx.el.option(label, value=value) for value, label in control.options])


def _filters(state: type[StaffTableState]) -> list[rx.Component]:
    controls: list[rx.Component] = []
    for spec_filter in state._spec.filters:
        control_id = f"{_ids(state)}-f-{spec_filter.key}"
        control: rx.Component
        if spec_filter.kind == "date":
            control = rx.el.input(
                id=control_id,
                type="date",
                value=state.filters.get(spec_filter.key, ""),
                on_change=lambda value, key=spec_filter.key: state.set_filter(key, value),
            )
        else:
            control = rx.el.select(
                rx.el.option("Todos", value=""),
                _options(state, spec_filter),
                id=control_id,
                value=state.filters.get(spec_filter.key, ""),
                on_change=lambda value, key=spec_filter.key: state.set_filter(key, value),
            )
        controls.append(rx.el.div(rx.el.label(spec_filter.label, html_for=control_id), control, class_name="field"))
    return controls


def _header(state: type[StaffTableState]) -> list[rx.Component]:
    cells: list[rx.Component] = []
    for column in state._spec.columns:
        if column.sortable:
            current = state.sort_key == column.key
            cells.append(
                rx.el.th(
                    rx.el.button(
                        column.label,
                        # A no-break space: the arrow stays with the heading's last word.
                        rx.cond(current, rx.cond(state.sort_desc, "\u00a0▼", "\u00a0▲"), ""),
                        type="button",
                        on_click=state.sort(column.key),
                        class_name="sort-button",
                    ),
                    scope="col",
                    custom_attrs={
                        "aria-sort": rx.cond(current, rx.cond(state.sort_desc, "descending", "ascending"), "none"),
                        "role": "columnheader",
                    },
                )
            )
        else:
            cells.append(rx.el.th(column.label, scope="col", class_name="col-plain", role="columnheader"))
    cells.append(rx.el.th(rx.el.span("Acciones", class_name="staff-hidden"), scope="col", role="columnheader"))
    return cells


def stacked_table(
    label: str, head: Sequence[rx.Component], rows: rx.Component, *, class_name: str, wrap_class: str = ""
) -> rx.Component:
    """A table named ``label`` whose rows stack as blocks of "label value" lines below 600 px (``stack-table``).

    ``head``: its column headers (``th`` with role="columnheader"); ``rows``: its ``stacked_row``s.
    A table shown as blocks loses its semantics in some browsers, so every part carries its role explicitly. The
    Nu checker refuses row and cell roles inside a ``<table>`` exposed as a table, so the wrapping ``<div>`` is
    the table and the ``<table>`` element only lays the rows out (role="none").
    """
    wrap: dict[str, Any] = {"class_name": wrap_class} if wrap_class else {}
    return rx.el.div(
        rx.el.table(
            rx.el.thead(rx.el.tr(*head, role="row"), role="rowgroup"),
            rx.el.tbody(rows, role="rowgroup"),
            class_name=f"{class_name} stack-table",
            role="none",
        ),
        role="table",
        aria_label=label,
        **wrap,
    )


def stacked_row(*cells: rx.Component) -> rx.Component:
    """A row of a ``stacked_table``."""
    return rx.el.tr(*cells, role="row")


def stacked_cell(content: rx.Component | rx.Var[Any] | str, label: str = "", *, wrap: str = "anywhere") -> rx.Component:
    """A cell of a ``stacked_table``: below 600 px each row stacks its cells, each after its column's ``label``.

    ``wrap``: where the value may break across lines (``Column.wrap``).
    """
    extra: dict[str, Any] = {} if wrap == "anywhere" else {"class_name": f"cell-{wrap}"}
    return rx.el.td(content, role="cell", custom_attrs={"data-label": label}, **extra)


def _row(state: type[StaffTableState], row: Row, row_actions: RowActions | None) -> rx.Component:
    spec = state._spec
    buttons: list[rx.Component] = []
    if _has(state, "open_edit"):
        buttons.append(
            rx.cond(
                state.can_edit,
                rx.el.button("Editar", type="button", on_click=state.open_edit(row["uid"]), class_name="btn"),
            )
        )
    if row_actions is not None:
        buttons.extend(row_actions(row))
    if _has(state, "ask_delete"):
        buttons.append(
            rx.cond(
                state.can_delete,
                rx.el.button("Eliminar", type="button", on_click=state.ask_delete(row["uid"]), class_name="btn"),
            )
        )
    cells = [stacked_cell(row[column.key], column.label, wrap=column.wrap) for column in spec.columns]
    return stacked_row(*cells, stacked_cell(rx.el.div(*buttons, class_name="row-actions")))


def _pager(state: type[StaffTableState]) -> rx.Component:
    return rx.el.nav(
        rx.el.button("Anterior", type="button", on_click=state.prev_page, disabled=state.page <= 1, class_name="btn"),
        rx.el.span("Página ", state.page, " de ", state.page_count, aria_live="polite"),
        rx.el.button(
            "Siguiente",
            type="button",
            on_click=state.next_page,
            disabled=state.page >= state.page_count,
            class_name="btn",
        ),
        rx.el.span(state.total, " en total", class_name="muted"),
        class_name="staff-pager",
        aria_label="Páginas",
    )


def _field(state: type[StaffTableState], field: FormField) -> rx.Component:
    field_id = f"{_ids(state)}-{field.key}"
    error_id = f"{field_id}-error"
    message = state.field_errors.get(field.key, "")
    attrs = {
        "aria-invalid": rx.cond(message != "", "true", "false"),
        # Left out (null) when there is no message: an empty aria-describedby points at nothing.
        "aria-describedby": rx.cond(message != "", error_id, None).to(str),
    }
    value = state.form_values.get(field.key, "")
    error = rx.cond(message != "", rx.el.p(message, id=error_id, role="alert", class_name="field-error"))
    if field.kind == "display":
        return rx.el.div(
            rx.el.p(field.label, class_name="field-label"),
            rx.el.p(value, id=field_id, class_name="field-display"),
            class_name="field",
        )
    if field.kind == "checkbox":
        return rx.el.div(
            rx.el.label(
                rx.el.input(
                    id=field_id, type="checkbox", name=field.key, default_checked=value == "true", custom_attrs=attrs
                ),
                " ",
                field.label,
                class_name="check",
            ),
            error,
            class_name="field",
        )
    common: dict[str, Any] = {"id": field_id, "name": field.key, "required": field.required, "custom_attrs": attrs}
    control: rx.Component
    if field.kind == "select":
        control = rx.el.select(
            rx.el.option("Elige…" if field.required else "Ninguno", value=""),
            _options(state, field),
            default_value=value,
            **common,
        )
    elif field.kind == "textarea":
        control = rx.el.textarea(default_value=value, max_length=field.max_length, **common)
    else:
        control = rx.el.input(
            type="number" if field.kind == "number" else "text",
            default_value=value,
            max_length=field.max_length,
            **common,
        )
    return rx.el.div(rx.el.label(field.label, html_for=field_id), control, error, class_name="field")


def _form_dialog(state: type[StaffTableState]) -> rx.Component:
    spec = state._spec
    creating = state.dialog == CREATE
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(rx.cond(creating, f"Nuevo: {spec.entity}", f"Editar: {spec.entity}")),
            rx.el.form(
                rx.cond(
                    creating,
                    rx.fragment(*[_field(state, f) for f in spec.fields_for("crear")]),
                    rx.fragment(*[_field(state, f) for f in spec.fields_for("editar")]),
                ),
                form_alert(state.error),
                rx.el.div(
                    rx.el.button(
                        rx.cond(state.busy, "Guardando…", "Guardar"),
                        type="submit",
                        disabled=state.busy,
                        class_name="btn btn-primary",
                    ),
                    rx.dialog.close(rx.el.button("Cancelar", type="button", class_name="btn")),
                    class_name="dialog-actions",
                ),
                on_submit=state.save,
                reset_on_submit=False,
                no_validate=True,
                class_name="staff-form",
                key=state.dialog + state.edit_uid,
            ),
            class_name="staff-dialog",
        ),
        open=(state.dialog != "") & (state.delete_uid == ""),
        on_open_change=state.close_dialog,
    )


def _delete_dialog(state: type[StaffTableState]) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("¿Eliminar este registro?"),
            rx.alert_dialog.description("Vas a eliminar «", state.delete_label, "». No se puede deshacer."),
            rx.el.div(
                rx.alert_dialog.cancel(rx.el.button("Cancelar", type="button", class_name="btn")),
                rx.alert_dialog.action(
                    rx.el.button(
                        "Sí, eliminar", type="button", on_click=state.confirm_delete, class_name="btn btn-primary"
                    )
                ),
                class_name="dialog-actions",
            ),
            class_name="staff-dialog",
        ),
        open=state.delete_uid != "",
        on_open_change=state.close_dialog,
    )


def staff_table(
    state: type[StaffTableState],
    *,
    row_actions: RowActions | None = None,
    toolbar: Sequence[rx.Component] = (),
) -> rx.Component:
    """The table of ``state``'s spec: search, filters, headers, one page of rows, pager and dialogs."""
    spec = state._spec
    tools: list[rx.Component] = [_search(state), *_filters(state), *toolbar]
    if _has(state, "open_create"):
        tools.append(
            rx.cond(
                state.can_create,
                rx.el.button("Nuevo", type="button", on_click=state.open_create, class_name="btn btn-primary"),
            )
        )
    if _has(state, "export_csv"):
        tools.append(
            rx.cond(
                state.can_export,
                rx.el.button("Descargar CSV", type="button", on_click=state.export_csv, class_name="btn"),
            )
        )
    return rx.el.section(
        rx.el.h1(spec.title),
        rx.el.p(spec.intro, class_name="lead") if spec.intro else rx.fragment(),
        rx.el.div(*tools, class_name="staff-tools"),
        rx.cond(
            state.loaded,
            rx.cond(
                state.total > 0,
                stacked_table(
                    spec.title,
                    _header(state),
                    rx.foreach(state.rows, lambda row: _row(state, row, row_actions)),
                    class_name="staff-table",
                    wrap_class="staff-table-wrap",
                ),
                rx.el.p("No hay resultados.", class_name="muted"),
            ),
            rx.el.p("Cargando…", class_name="loading"),
        ),
        _pager(state),
        _form_dialog(state) if _has(state, "save") else rx.fragment(),
        _delete_dialog(state) if _has(state, "confirm_delete") else rx.fragment(),
        class_name="staff-table-section",
        aria_label=spec.title,
    )
