"""/admin/usuarios and /bbitamia/usuarios: the users on the staff table; profile, ban, deactivate.

The table's handlers come from the spec (``app.states.staff_table``); the row actions below are
for both staff profiles, and the service refuses what a secretary may not do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import ServiceError
from app.identity.provider import get_provider
from app.models import PROFILE_LABELS, ProfileId
from app.services import staff_users
from app.services.staff import TableQuery
from app.states.auth import current_actor, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.states.staff_table import (
    ADMIN,
    GONE_MESSAGE,
    SECRETARY,
    Column,
    Filter,
    FormField,
    StaffTableState,
    TableSpec,
)

PROFILE_OPTIONS = tuple((profile.value, label) for profile, label in PROFILE_LABELS.items())

USERS_SPEC = TableSpec(
    entity="usuario",
    title="Usuarios",
    columns=(
        Column("email", "Correo", sortable=True),
        Column("nombre", "Nombre", sortable=True),
        Column("perfil", "Perfil", sortable=True),
        Column("estado", "Estado"),
        Column("creado", "Creado", sortable=True),
    ),
    default_sort="creado",
    default_desc=True,
    filters=(
        Filter(staff_users.PROFILE_FILTER, "Perfil", PROFILE_OPTIONS),
        Filter(
            staff_users.STATE_FILTER,
            "Estado",
            (("activos", "Activos"), ("suspendidos", "Suspendidos"), ("desactivados", "Desactivados")),
        ),
    ),
    form_fields=(
        FormField("perfil", "Perfil", kind="select", options=PROFILE_OPTIONS, required=True, on_create=False),
    ),
    search_label="Buscar por correo",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"edit", "export"}),
    admin_only_actions=frozenset({"export"}),
    csv_name="usuarios",
    row_label_key="email",
)


class UsersTableState(StaffTableState, rx.State):
    """The users table of both staff areas."""

    _spec: ClassVar[TableSpec] = USERS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_users.list_users(session=session, actor_uid=actor.uid, query=query)
        return [row.as_row() for row in found.rows], found.total

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return {"perfil": staff_users.profile_of(session=session, actor_uid=actor.uid, user_uid=uid)}

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_users.change_profile(
            session=session, provider=get_provider(), actor=actor, user_uid=uid, profile=values["perfil"]
        )

    async def _act(self, uid: str, fn: Callable, success: str, **kwargs) -> Any:
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
    async def ban(self, uid: str):
        """Ban a user: their sessions end now and their listings leave the site."""
        return await self._act(
            uid,
            staff_users.set_ban,
            "Suspendiste la cuenta y cerramos sus sesiones.",
            provider=get_provider(),
            banned=True,
        )

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def unban(self, uid: str):
        """Lift a user's ban."""
        return await self._act(
            uid, staff_users.set_ban, "Quitaste la suspensión.", provider=get_provider(), banned=False
        )

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def deactivate(self, uid: str):
        """Deactivate a user: signed out, hidden from lists, listings off the site."""
        return await self._act(uid, staff_users.set_active, "Desactivaste la cuenta.", active=False)

    @requires(ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
    async def reactivate(self, uid: str):
        """Reactivate a deactivated user."""
        return await self._act(uid, staff_users.set_active, "Reactivaste la cuenta.", active=True)
