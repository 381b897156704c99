"""Advertisers (profesor: /admin and /bbitamia) and agencies (agencia: /admin) on the one staff table.

Staff see an advertiser's private fields (e-mail, RUT or passport, birth date, nationality) here
and nowhere else; only an administrator deletes an advertiser or touches agencies. The services
(``app.services.staff.directory``) check all of this again and audit every write.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.dates import typed_day
from app.services.listing_form import DOCUMENT_PASSPORT
from app.services.staff import catalogues
from app.services.staff import directory as staff_directory
from app.services.staff.directory import ADVERTISERS_SPEC, AGENCIES_SPEC
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import TableSpec
from app.states.staff.catalogues import catalogue_options, form_values, table_cells
from app.states.staff.table import StaffTableState


def _document_label(row: dict[str, Any]) -> str:
    return f"Pasaporte {row['passport']}" if row["document"] == DOCUMENT_PASSPORT else f"RUT {row['rut']}"


class AdvertisersTableState(StaffTableState, rx.State):
    """profesor, for both staff areas."""

    _spec: ClassVar[TableSpec] = ADVERTISERS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_advertisers(session=session, actor=actor, query=query)
        return [
            table_cells(row, {"birth_date": typed_day}) | {"document_label": _document_label(row)} for row in found.rows
        ], found.total

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        return {
            "agency_uid": [list(option) for option in staff_directory.agency_options(session=session, actor=actor)],
            "type_uid": catalogue_options(session, actor, catalogues.ADVERTISER_TYPES),
        }

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        row = staff_directory.get_advertiser(session=session, actor=actor, uid=uid)
        return form_values(row | {"birth_date": typed_day(row["birth_date"])})

    @staticmethod
    def _create(session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        staff_directory.create_advertiser(session=session, actor=actor, data=values)

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_directory.update_advertiser(session=session, actor=actor, uid=uid, data=values)

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        staff_directory.delete_advertiser(session=session, actor=actor, uid=uid)

    # --- handlers (marked from the spec by StaffTableState) ---

    async def open_admin(self) -> list[EventSpec]:
        return await self._load()

    async def open_secretary(self) -> list[EventSpec]:
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


class AgenciesTableState(StaffTableState, rx.State):
    """agencia, the administrator's only."""

    _spec: ClassVar[TableSpec] = AGENCIES_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_agencies(session=session, actor=actor, query=query)
        return [table_cells(row) for row in found.rows], found.total

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        categories = catalogue_options(session, actor, catalogues.AGENCY_CATEGORIES)
        return {"category": categories, "category_uid": categories}

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return form_values(staff_directory.get_agency(session=session, actor=actor, uid=uid))

    @staticmethod
    def _create(session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        staff_directory.create_agency(session=session, actor=actor, data=values)

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_directory.update_agency(session=session, actor=actor, uid=uid, data=values)

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        staff_directory.delete_agency(session=session, actor=actor, uid=uid)

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
