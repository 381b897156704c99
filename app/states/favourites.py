"""Favourites kept in the account, for the signed-in visitors who choose it (issue 19 §2).

Without that choice nothing here runs with the visitor's list: the hearts work in
the browser alone (assets/favourites.js). Every handler is for signed-in users and
reads or writes the caller's own rows only (app.services.favourites). The list
travels as an event's argument or a script's, never in a state var: Reflex
writes the state to Redis or disk.

- ``load_account`` (every page of a signed-in visitor): is the list kept in the
  account? If so, the device joins it: a device new to the account adds its list
  (``join_device``), and the account's list then replaces the device's.
- ``store``: after a heart was pressed, the device's list becomes the account's.
- ``toggle_in_account`` (the switch on the Favoritas page): on, the device's list
  goes to the account (``keep_in_account``); off, the account's copy is deleted.
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ServiceError
from app.identity.guards import ALL_PROFILES
from app.services import favourites
from app.states.auth import current_actor, requires
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import run_service

KEPT_MESSAGE = "Tus favoritas se guardan ahora en tu cuenta: las verás al ingresar en otro dispositivo."
DELETED_MESSAGE = "Borramos tus favoritas de tu cuenta. Siguen guardadas en este dispositivo."


def _adopt(uids: list[str], owner: str) -> EventSpec:
    """Browser-side: the account's list becomes this device's."""
    return rx.call_script(f"window.favoritas && window.favoritas.adopt({json.dumps(uids)}, {json.dumps(owner)})")


class FavouritesState(rx.State):
    """Whether the signed-in visitor keeps their favourites in the account (the list itself is never here)."""

    in_account: bool = False

    @requires(*ALL_PROFILES)
    async def load_account(self) -> EventSpec:
        """On each page of a signed-in visitor: join this device to the account's list when it keeps one."""
        actor = current_actor()
        account = await run_service(favourites.account_favourites, actor=actor)
        self.in_account = account.in_account
        if not account.in_account:
            return rx.call_script("window.favoritas && window.favoritas.forget()")
        return rx.call_script(
            f"window.favoritas ? window.favoritas.joining({json.dumps(actor.uid)}) : null",
            callback=FavouritesState.join_device,
        )

    @requires(*ALL_PROFILES)
    async def join_device(self, uids: list[Any] | None) -> EventSpec | None:
        """The device's list (None: already the account's copy) merged into the account's; the result back."""
        actor = current_actor()
        try:
            if uids is None:
                account = await run_service(favourites.account_favourites, actor=actor)
                kept = account.uids if account.in_account else None
            else:
                kept = await run_service(favourites.merge_into_account, actor=actor, uids=uids)
        except ServiceError as exc:
            return notify_error(exc.message)
        if kept is None:
            self.in_account = False
            return None
        return _adopt(kept, actor.uid)

    @requires(*ALL_PROFILES)
    async def store(self, uids: list[Any]) -> EventSpec | None:
        """A heart was pressed while the list is kept in the account: the device's list becomes the account's."""
        try:
            await run_service(favourites.replace_account_list, actor=current_actor(), uids=uids)
        except ServiceError as exc:
            self.in_account = False  # turned off elsewhere: this device keeps its list
            return notify_error(exc.message)
        return None

    @requires(*ALL_PROFILES)
    async def toggle_in_account(self) -> Events:
        """The switch: keep the favourites in the account (the device's list goes there), or stop (deleted)."""
        actor = current_actor()
        account = await run_service(favourites.account_favourites, actor=actor)
        if account.in_account:
            try:
                await run_service(favourites.stop_keeping, actor=actor)
            except ServiceError as exc:
                return notify_error(exc.message)
            self.in_account = False
            return [rx.call_script("window.favoritas && window.favoritas.forget()"), notify_success(DELETED_MESSAGE)]
        return rx.call_script(
            "window.favoritas ? window.favoritas.reading() : []", callback=FavouritesState.keep_in_account
        )

    @requires(*ALL_PROFILES)
    async def keep_in_account(self, uids: list[Any]) -> Events:
        """After the switch was turned on: keep the device's list (merged with any already kept) in the account."""
        actor = current_actor()
        try:
            kept = await run_service(favourites.keep_in_account, actor=actor, uids=uids)
        except ServiceError as exc:
            return notify_error(exc.message)
        self.in_account = True
        return [_adopt(kept, actor.uid), notify_success(KEPT_MESSAGE)]
