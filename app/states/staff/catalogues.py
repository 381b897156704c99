"""The administrator's catalogues on the one staff table: categoriaProfesor, categoriaAgencia,
tipoProfesor, servicioProfesor, servicioApp and perfilUsuario.

Each catalogue's :class:`TableSpec` (columns, form) lives in ``app.services.staff.catalogues`` with the
catalogue; here, a small state per catalogue names it;
``CatalogueTableState`` turns the hooks of the staff table into calls of
``app.services.staff.catalogues``, which refuses anyone but an administrator and audits every write.
The tiers' table also moves a tier up or down the city page order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import ServiceError
from app.core.money import format_currency
from app.models import ProfileId
from app.services.staff import catalogues
from app.services.staff.catalogues import (
    ADVERTISER_SERVICES_SPEC,
    ADVERTISER_TYPES_SPEC,
    AGENCY_CATEGORIES_SPEC,
    APP_SERVICES_SPEC,
    EFFECT_OPTIONS,
    PROFILES_SPEC,
    TIERS_SPEC,
)
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import TableSpec
from app.states.auth import current_actor, requires
from app.states.notify import notify_error
from app.states.offload import run_service
from app.states.staff.table import GONE_MESSAGE, StaffTableState


def table_cells(row: dict[str, Any], formats: dict[str, Callable[[Any], str]] | None = None) -> dict[str, str]:
    """A service row as table cells: yes/no for flags, ``formats`` for the keys that have one."""
    formats = formats or {}
    cells = {}
    for key, value in row.items():
        if key in formats:
            cells[key] = formats[key](value)
        elif isinstance(value, bool):
            cells[key] = "Sí" if value else "No"
        else:
            cells[key] = str(value)
    return cells


def form_values(row: dict[str, Any]) -> dict[str, str]:
    """A service row as the edit form's values: checkboxes "true" or ""."""
    return {key: ("true" if value is True else "" if value is False else str(value)) for key, value in row.items()}


def catalogue_options(session: Session, actor: Actor, catalogue: str) -> list[list[str]]:
    """[uid, name] of every entry of a catalogue, for a select."""
    return [list(option) for option in catalogues.entry_options(session=session, actor=actor, catalogue=catalogue)]


class CatalogueTableState(StaffTableState, mixin=True):
    """The hooks of a catalogue's table: ``_catalogue`` names it in app.services.staff.catalogues."""

    _catalogue: ClassVar[str]
    _formats: ClassVar[dict[str, Callable[[Any], str]]] = {}

    @classmethod
    def _query(cls, session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = catalogues.list_entries(session=session, actor=actor, catalogue=cls._catalogue, query=query)
        return [table_cells(row, cls._formats) for row in found.rows], found.total

    @classmethod
    def _read(cls, session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return form_values(catalogues.get_entry(session=session, actor=actor, catalogue=cls._catalogue, uid=uid))

    @classmethod
    def _create(cls, session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        catalogues.create_entry(session=session, actor=actor, catalogue=cls._catalogue, data=values)

    @classmethod
    def _update(cls, session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        catalogues.update_entry(session=session, actor=actor, catalogue=cls._catalogue, uid=uid, data=values)

    @classmethod
    def _delete(cls, session: Session, *, actor: Actor, uid: str) -> None:
        catalogues.delete_entry(session=session, actor=actor, catalogue=cls._catalogue, uid=uid)


class TiersTableState(CatalogueTableState, rx.State):
    """categoriaProfesor, with moves up and down the city page order."""

    _spec: ClassVar[TableSpec] = TIERS_SPEC
    _catalogue: ClassVar[str] = catalogues.TIERS

    async def _move(self, uid: str, step: int) -> EventSpec | None:
        if not self._is_shown(uid):
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        try:
            await run_service(catalogues.move_tier, actor=current_actor(), uid=uid, step=step)
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            await self._refresh()
        return None

    @requires(ProfileId.ADMINISTRADOR)
    async def move_up(self, uid: str) -> EventSpec | None:
        """Show this tier one place earlier on the city pages (every listing's rank follows)."""
        return await self._move(uid, -1)

    @requires(ProfileId.ADMINISTRADOR)
    async def move_down(self, uid: str) -> EventSpec | None:
        """Show this tier one place later on the city pages (every listing's rank follows)."""
        return await self._move(uid, 1)

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


class AgencyCategoriesTableState(CatalogueTableState, rx.State):
    """categoriaAgencia."""

    _spec: ClassVar[TableSpec] = AGENCY_CATEGORIES_SPEC
    _catalogue: ClassVar[str] = catalogues.AGENCY_CATEGORIES

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


class AdvertiserTypesTableState(CatalogueTableState, rx.State):
    """tipoProfesor."""

    _spec: ClassVar[TableSpec] = ADVERTISER_TYPES_SPEC
    _catalogue: ClassVar[str] = catalogues.ADVERTISER_TYPES

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


class AdvertiserServicesTableState(CatalogueTableState, rx.State):
    """servicioProfesor."""

    _spec: ClassVar[TableSpec] = ADVERTISER_SERVICES_SPEC
    _catalogue: ClassVar[str] = catalogues.ADVERTISER_SERVICES

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


class AppServicesTableState(CatalogueTableState, rx.State):
    """servicioApp."""

    _spec: ClassVar[TableSpec] = APP_SERVICES_SPEC
    _catalogue: ClassVar[str] = catalogues.APP_SERVICES

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        return {"tier_uid": catalogue_options(session, actor, catalogues.TIERS)}

    _formats: ClassVar[dict[str, Callable[[Any], str]]] = {
        "price_clp": format_currency,
        "effect": lambda value: dict(EFFECT_OPTIONS).get(value, "A mano"),
    }

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


class ProfilesTableState(CatalogueTableState, rx.State):
    """perfilUsuario (the four fixed profiles cannot be deleted)."""

    _spec: ClassVar[TableSpec] = PROFILES_SPEC
    _catalogue: ClassVar[str] = catalogues.PROFILES

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def open_create(self) -> None:
        return await self._open_create()

    async def open_edit(self, uid: str) -> EventSpec | None:
        return await self._open_edit(uid)

    async def save(self, form_data: dict[str, Any]) -> EventSpec | None:
        return await self._save(form_data)

    async def ask_delete(self, uid: str) -> EventSpec | None:
        return await self._ask_delete(uid)

    async def confirm_delete(self) -> EventSpec:
        return await self._confirm_delete()

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()


CATALOGUE_STATES: dict[str, type[CatalogueTableState]] = {
    state._catalogue: state
    for state in (
        TiersTableState,
        AgencyCategoriesTableState,
        AdvertiserTypesTableState,
        AdvertiserServicesTableState,
        AppServicesTableState,
        ProfilesTableState,
    )
}
"""Each catalogue's table state, by catalogue key (its path under /admin)."""
