"""Listings (publicacion) for staff, /admin/publicacion and /bbitamia/publicacion, on the one staff table.

Every listing in any status, filtered by status, section, city and tier, searched by name or
phone; edit its content, take it down with a reason the owner sees, republish one taken down;
only an administrator deletes. ``app.services.staff.listings`` checks and audits each of these.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import InvalidInputError, ServiceError
from app.models import ProfileId
from app.services.staff import catalogues
from app.services.staff import listings as staff_listings
from app.services.staff.listings import LISTINGS_SPEC
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import TableSpec
from app.settings import get_settings
from app.states.auth import current_actor, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.states.staff.catalogues import catalogue_options, form_values, table_cells
from app.states.staff.table import GONE_MESSAGE, StaffTableState
from app.storage.factory import get_storage


def _local(moment: str) -> str:
    if not moment:
        return ""
    zone = ZoneInfo(get_settings().timezone)
    return datetime.fromisoformat(moment).astimezone(zone).strftime("%Y/%m/%d %H:%M")


def _cells(row: dict[str, Any]) -> dict[str, str]:
    return table_cells(row) | {
        "updated": _local(row["updated_at"]),
        "can_unpublish": "true" if row["can_unpublish"] else "",
        "can_republish": "true" if row["can_republish"] else "",
    }


class StaffListingsState(StaffTableState, rx.State):
    """publicacion, for both staff areas, with take-down (and its reason dialog) and republish."""

    _spec: ClassVar[TableSpec] = LISTINGS_SPEC

    unpublish_uid: str = ""
    unpublish_label: str = ""
    unpublish_error: str = ""

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_listings.list_listings(session=session, actor=actor, query=query)
        return [_cells(row) for row in found.rows], found.total

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        tiers = catalogue_options(session, actor, catalogues.TIERS)
        return {"tier": tiers, "tier_uid": tiers}

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return form_values(staff_listings.listing_form_values(session=session, actor=actor, uid=uid))

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_listings.update_listing(session=session, actor=actor, uid=uid, data=values)

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        staff_listings.delete_listing(session=session, storage=get_storage(), actor=actor, uid=uid)

    def _forget_unpublish(self) -> None:
        self.unpublish_uid, self.unpublish_label, self.unpublish_error = "", "", ""

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def ask_unpublish(self, uid: str) -> EventSpec | None:
        """Ask for the reason to take down a listing of the page shown."""
        self._forget_unpublish()
        row = next((row for row in self.rows if row.get("uid") == uid), None)
        if row is None:
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        self.unpublish_uid, self.unpublish_label = uid, row.get("display_name", "")
        return None

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    def close_unpublish(self, is_open: bool) -> None:
        """Close the take-down dialog without taking anything down."""
        if not is_open:
            self._forget_unpublish()

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def unpublish(self, form_data: dict[str, Any]) -> EventSpec | None:
        """Take the listing down (rechazada) with the reason written (``reason``); the owner sees it."""
        uid = self.unpublish_uid
        if not self._is_shown(uid):
            self._forget_unpublish()
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        reason = form_data.get("reason", "") if isinstance(form_data, dict) else ""
        try:
            await run_service(staff_listings.unpublish_listing, actor=current_actor(), uid=uid, reason=reason)
        except InvalidInputError as exc:
            self.unpublish_error = exc.message
            return None
        except ServiceError as exc:
            self._forget_unpublish()
            await self._refresh()
            return notify_error(exc.message)
        self._forget_unpublish()
        await self._refresh()
        return notify_success("Despublicaste la publicación.")

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def republish(self, uid: str) -> EventSpec:
        """Publish again a listing of the page shown that staff took down."""
        if not self._is_shown(uid):
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        try:
            await run_service(staff_listings.republish_listing, actor=current_actor(), uid=uid)
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            await self._refresh()
        return notify_success("La publicación está publicada otra vez.")

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
