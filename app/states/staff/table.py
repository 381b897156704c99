"""The state base every staff table uses, driven by the table's spec.

Each table's :class:`~app.services.staff.table_spec.TableSpec` (columns, sort keys, filters, form,
who may do what) lives beside its list service, which reads it too. A staff list page names it in
a state class::

    class UsersTableState(StaffTableState, rx.State):
        _spec: ClassVar[TableSpec] = USERS_SPEC

        @staticmethod
        def _query(session, *, actor, query: TableQuery):
            ...  # -> (rows: list[dict[str, str]], total: int); each row has "uid"

and optionally the hooks ``_options`` (the choices of the ``from_data`` filters and form selects),
``_read`` (the edit form's values), ``_create``, ``_update`` and ``_delete`` (each
``(session, *, actor, ...)``, calling one staff-checked, audited service).
Hooks run off the event loop with their own database session.

The event handlers (``open_admin``/``open_secretary``, ``search``, ``sort``…, see ``TABLE_HANDLERS``) are not
inherited: a mixin's handlers would carry one access mark for every table. Each concrete (non-mixin) class
defines them, one line each, and ``__init_subclass__`` marks each ``@requires`` with the profiles the spec
allows for its action (:meth:`TableSpec.profiles_for`). A class may mark one itself instead.
The state holds one page (at most 50 rows); sort keys, filters and the search text are
checked against the spec before a query sees them.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import ServiceError
from app.models import ProfileId
from app.services.staff.shared import MAX_QUERY_ROWS, TableQuery
from app.services.staff.table_spec import ADMIN, CREATE, EDIT, SECRETARY, TableSpec
from app.states.areas import AreaState
from app.states.auth import ACCESS_ATTR, current_actor, requires
from app.states.forms import FormState
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service

EXPORT_MAX_ROWS = 50_000
NOT_ALLOWED_MESSAGE = "No tienes permiso para esta acción."
GONE_MESSAGE = "Ese registro ya no está en la lista. Actualizamos la tabla."
# Spreadsheet programs run a cell that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """A value as a CSV cell that a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


class StaffTableState(FormState, mixin=True):
    """One page of a staff table, its search/sort/filters, the create/edit dialog and the delete question.

    FormState brings ``busy``, ``error`` and ``field_errors`` for the dialog.
    """

    _spec: ClassVar[TableSpec]

    if TYPE_CHECKING:
        # The handlers of TABLE_HANDLERS, which each concrete class defines (and the spec's profiles mark), as the
        # pages that take any table's class read them: Reflex's event handlers, which mypy cannot see on the class.
        open_admin: ClassVar[Callable[..., Any]]
        open_secretary: ClassVar[Callable[..., Any]]
        search: ClassVar[Callable[..., Any]]
        sort: ClassVar[Callable[..., Any]]
        set_filter: ClassVar[Callable[..., Any]]
        next_page: ClassVar[Callable[..., Any]]
        prev_page: ClassVar[Callable[..., Any]]
        close_dialog: ClassVar[Callable[..., Any]]
        open_create: ClassVar[Callable[..., Any]]
        open_edit: ClassVar[Callable[..., Any]]
        save: ClassVar[Callable[..., Any]]
        ask_delete: ClassVar[Callable[..., Any]]
        confirm_delete: ClassVar[Callable[..., Any]]
        export_csv: ClassVar[Callable[..., Any]]

    loaded: bool = False
    rows: list[dict[str, str]] = []
    page: int = 1
    page_count: int = 1
    total: int = 0
    search_text: str = ""
    sort_key: str = ""
    sort_desc: bool = False
    filters: dict[str, str] = {}
    options: dict[str, list[list[str]]] = {}
    dialog: str = ""
    edit_uid: str = ""
    form_values: dict[str, str] = {}
    delete_uid: str = ""
    delete_label: str = ""
    can_create: bool = False
    can_edit: bool = False
    can_delete: bool = False
    can_export: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Reflex's metaclass takes the ``mixin`` keyword and records it as ``_mixin`` on the class.
        if not cls.__dict__.get("_mixin", False):
            _mark_handlers(cls)
        super().__init_subclass__(**kwargs)

    # --- hooks (static; each takes the session and the actor) ---------------

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        raise NotImplementedError

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        """The options of the ``from_data`` filters and form selects, by key: [value, label] pairs."""
        return {}

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        raise NotImplementedError

    @staticmethod
    def _create(session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        raise NotImplementedError

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        raise NotImplementedError

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        raise NotImplementedError

    # --- the work behind the handlers ---------------------------------------

    def _may(self, action: str) -> bool:
        spec = self._spec
        return spec.offers(action) and current_actor().profile_uid in spec.profiles_for(action)

    def _table_query(self, page: int, page_size: int) -> TableQuery:
        """The query of the table as it stands: search, sort, filters, and the page asked for."""
        return TableQuery(
            search=self.search_text,
            sort=self._spec.clean_sort(self.sort_key),
            descending=self.sort_desc,
            filters=self.filters,
            page=page,
            page_size=page_size,
        )

    async def _read_options(self) -> None:
        if self._spec.reads_options:
            self.options = await run_service(type(self)._options, actor=current_actor())

    async def _refresh(self) -> None:
        """Read the current page again (the last one if the current is past the end)."""
        spec = type(self)._spec
        for _ in range(2):
            rows, total = await run_service(
                type(self)._query, actor=current_actor(), query=self._table_query(self.page, spec.page_size)
            )
            self.total = total
            self.page_count = max(1, math.ceil(total / spec.page_size))
            if self.page <= self.page_count:
                break
            self.page = self.page_count
        self.rows = rows[: spec.page_size]
        self.loaded = True

    async def _load(self) -> list[EventSpec]:
        """Enter the page (the caller was accepted for this area): the first page, defaults restored."""
        area = await self.get_state(AreaState)
        events = await area._accept()
        spec = self._spec
        self.search_text, self.sort_key, self.sort_desc = "", spec.default_sort, spec.default_desc
        self.filters, self.page = {}, 1
        await self._read_options()
        self._close()
        self.can_create, self.can_edit = self._may("create"), self._may("edit")
        self.can_delete, self.can_export = self._may("delete"), self._may("export")
        await self._refresh()
        return events

    async def _search(self, form_data: dict[str, Any]) -> None:
        data = form_data if isinstance(form_data, dict) else {}
        self.search_text = self._spec.clean_search(data.get("q", ""))
        self.page = 1
        await self._refresh()

    async def _sort(self, key: str) -> None:
        spec = self._spec
        key = spec.clean_sort(key)
        if key == self.sort_key:
            self.sort_desc = not self.sort_desc
        else:
            self.sort_key = key
            self.sort_desc = spec.default_desc if key == spec.default_sort else False
        self.page = 1
        await self._refresh()

    async def _set_filter(self, key: str, value: str) -> None:
        found = next((f for f in self._spec.filters if f.key == key), None)
        if found is None:
            return
        self.filters = {**self.filters, found.key: found.clean(value, self.options.get(found.key, ()))}
        self.page = 1
        await self._refresh()

    async def _next_page(self) -> None:
        if self.page < self.page_count:
            self.page += 1
        await self._refresh()

    async def _prev_page(self) -> None:
        self.page = max(1, self.page - 1)
        await self._refresh()

    def _close(self) -> None:
        self.dialog, self.edit_uid, self.form_values = "", "", {}
        self.delete_uid, self.delete_label = "", ""
        self._clear_errors()

    def _close_dialog(self, is_open: bool) -> None:
        if not is_open:
            self._close()

    async def _open_create(self) -> None:
        self._close()
        await self._read_options()
        self.dialog = CREATE

    async def _open_edit(self, uid: str) -> EventSpec | None:
        self._close()
        if not self._is_shown(uid):
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        try:
            await self._read_options()
            found = await run_service(type(self)._read, actor=current_actor(), uid=uid)
        except ServiceError as exc:
            await self._refresh()
            return notify_error(exc.message)
        fields = self._spec.fields_for(EDIT)
        self.form_values = {f.key: str(found.get(f.key, "") or "") for f in fields}
        self.dialog, self.edit_uid = EDIT, uid
        return None

    def _is_shown(self, uid: Any) -> bool:
        """Whether ``uid`` is a row of the page on screen: the only records a client may point at here."""
        return isinstance(uid, str) and any(row.get("uid") == uid for row in self.rows)

    async def _save(self, form_data: dict[str, Any]) -> EventSpec | None:
        mode = self.dialog
        if mode not in (CREATE, EDIT):
            return notify_error("Abre el formulario otra vez.")
        if not self._may("create" if mode == CREATE else "edit"):
            return notify_error(NOT_ALLOWED_MESSAGE)
        spec, cls = self._spec, type(self)
        values, errors = spec.clean_form(form_data, mode, self.options)
        if errors:
            self._clear_errors()
            self.field_errors = errors
            return None
        if mode == CREATE:
            call = run_service(cls._create, actor=current_actor(), values=values)
        else:
            call = run_service(cls._update, actor=current_actor(), uid=self.edit_uid, values=values)
        outcome = await self._submit(call, fields=[f.key for f in spec.fields_for(mode)])
        if not outcome.ok:
            return None
        self._close()
        await self._refresh()
        return notify_success("Guardamos los cambios." if mode == EDIT else "Creamos el registro.")

    async def _ask_delete(self, uid: str) -> EventSpec | None:
        self._close()
        row = next((row for row in self.rows if row.get("uid") == uid), None)
        if row is None:
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        label_key = self._spec.row_label_key or self._spec.columns[0].key
        self.delete_uid, self.delete_label = uid, row.get(label_key, "")
        return None

    async def _confirm_delete(self) -> EventSpec:
        uid = self.delete_uid
        self._close()
        if not uid:
            return notify_error("Elige qué eliminar.")
        if not self._may("delete"):
            return notify_error(NOT_ALLOWED_MESSAGE)
        try:
            await run_service(type(self)._delete, actor=current_actor(), uid=uid)
        except ServiceError as exc:
            await self._refresh()
            return notify_error(exc.message)
        await self._refresh()
        return notify_success("Eliminado.")

    async def _export_csv(self) -> EventSpec:
        if not self._may("export"):
            return notify_error(NOT_ALLOWED_MESSAGE)
        spec = self._spec
        text = await run_service(
            _csv_of, cls=type(self), actor=current_actor(), first=self._table_query(1, MAX_QUERY_ROWS)
        )
        name = spec.csv_name or spec.entity
        return rx.download(data=text, filename=f"{name}.csv", mime_type="text/csv")


def _csv_of(*, session: Session, cls: type[StaffTableState], actor: Actor, first: TableQuery) -> str:
    """Every row of the table's query from its ``first`` page on (at most EXPORT_MAX_ROWS), read a page at a time,
    as CSV text."""
    spec = cls._spec
    out = io.StringIO()
    out.write("\ufeff")  # spreadsheet programs then read the accents right
    writer = csv.writer(out)
    writer.writerow([column.label for column in spec.columns])
    written, page = 0, first.page
    while written < EXPORT_MAX_ROWS:
        query = replace(first, page=page)
        rows, total = cls._query(session=session, actor=actor, query=query)
        for row in rows[: EXPORT_MAX_ROWS - written]:
            writer.writerow([csv_cell(row.get(column.key, "")) for column in spec.columns])
        written += len(rows)
        if len(rows) < query.page_size or written >= total:
            break
        page += 1
    return out.getvalue()


# --- the handlers each concrete table defines -------------------------------

# Handler name -> the action whose profiles may call it; an opener (the page's on_load) is called by its
# area's profile only. Each concrete table defines exactly the handlers its spec lets someone call, each a
# one-line method over the ``_`` method of the same name (``search`` -> ``_search``; the openers -> ``_load``).
TABLE_HANDLERS: dict[str, ProfileId | str] = {
    "open_admin": ADMIN,
    "open_secretary": SECRETARY,
    "search": "view",
    "sort": "view",
    "set_filter": "view",
    "next_page": "view",
    "prev_page": "view",
    "close_dialog": "view",
    "open_create": "create",
    "open_edit": "edit",
    "save": "save",
    "ask_delete": "delete",
    "confirm_delete": "delete",
    "export_csv": "export",
}


def handler_profiles(spec: TableSpec, action: str) -> tuple[ProfileId, ...]:
    """Who may call a handler of ``action``; ``save`` serves both create and edit."""
    if action == "save":
        allowed = set(spec.profiles_for("create") if spec.offers("create") else ())
        allowed |= set(spec.profiles_for("edit") if spec.offers("edit") else ())
        return tuple(p for p in spec.profiles if p in allowed)
    return spec.profiles_for(action) if spec.offers(action) else ()


def _handler_profiles(spec: TableSpec, name: str) -> tuple[ProfileId, ...]:
    action = TABLE_HANDLERS[name]
    if isinstance(action, ProfileId):
        return (action,) if action in spec.profiles else ()
    return handler_profiles(spec, action)


def _mark_handlers(cls: type) -> None:
    """Mark each table handler ``cls`` defines ``@requires`` the profiles its spec allows (one marked by hand
    stays as it is); a handler the spec lets nobody call, or one it offers that ``cls`` lacks, is a TypeError."""
    spec: TableSpec | None = getattr(cls, "_spec", None)
    if spec is None:
        raise TypeError(f"{cls.__name__} needs a _spec")
    for name in TABLE_HANDLERS:
        profiles, fn = _handler_profiles(spec, name), cls.__dict__.get(name)
        if fn is None:
            if profiles:
                raise TypeError(f"{cls.__name__} lacks the handler {name}, which its spec offers")
        elif not profiles:
            raise TypeError(f"{cls.__name__}.{name}: its spec lets nobody call it")
        elif not hasattr(fn, ACCESS_ATTR):
            type.__setattr__(cls, name, requires(*profiles)(fn))
