"""/admin/usuarios and /bbitamia/usuarios: the users on the staff table; profile, ban, deactivate, second factor.

The table's handlers come from its spec (``USERS_SPEC``, which the list service reads too); the row actions below are
for both staff profiles, and the service refuses what a secretary may not do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import ServiceError
from app.identity.factory import get_provider
from app.models import ProfileId
from app.services import two_factor
from app.services.staff import users as staff_users
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import TableSpec
from app.services.staff.users import USERS_SPEC
from app.states.auth import current_actor, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.states.staff.table import GONE_MESSAGE, StaffTableState


class UsersTableState(StaffTableState, rx.State):
    """The users table of both staff areas."""

    _spec: ClassVar[TableSpec] = USERS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_users.list_users(session=session, actor=actor, query=query)
        return [row.as_row() for row in found.rows], found.total

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return {"perfil": staff_users.profile_of(session=session, actor=actor, user_uid=uid)}

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_users.change_profile(
            session=session, provider=get_provider(), actor=actor, user_uid=uid, profile=values["perfil"]
        )

    async def _act(self, uid: str, fn: Callable[..., object], success: str, **kwargs: Any) -> EventSpec:
        """One account change on a user of the page shown; a notice either way, then the page again."""
        if not self._is_shown(uid):
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        try:
            await run_service(fn, actor=current_actor(), user_uid=uid, **kwargs)
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            await self._refresh()
        return notify_success(success)

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def ban(self, uid: str) -> EventSpec:
        """Ban a user: their sessions end now and their listings leave the site."""
        return await self._act(
            uid,
            staff_users.set_ban,
            "Suspendiste la cuenta y cerramos sus sesiones.",
            provider=get_provider(),
            banned=True,
        )

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def unban(self, uid: str) -> EventSpec:
        """Lift a user's ban."""
        return await self._act(
            uid, staff_users.set_ban, "Quitaste la suspensión.", provider=get_provider(), banned=False
        )

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def deactivate(self, uid: str) -> EventSpec:
        """Deactivate a user: signed out, hidden from lists, listings off the site."""
        return await self._act(uid, staff_users.set_active, "Desactivaste la cuenta.", active=False)

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def reactivate(self, uid: str) -> EventSpec:
        """Reactivate a deactivated user."""
        return await self._act(uid, staff_users.set_active, "Reactivaste la cuenta.", active=True)

    @requires(ProfileId.ADMINISTRADOR)
    async def reset_second_factor(self, uid: str) -> EventSpec:
        """Reset another staff member's second factor (audited, its owner e-mailed); they set it up again."""
        return await self._act(
            uid,
            two_factor.reset_second_factor,
            "Restablecimos su segundo factor, cerramos sus sesiones y le avisamos por correo.",
        )

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

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()
