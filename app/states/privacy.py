"""/mi-cuenta: the privacy rights of every account (issue 20 §2): download, correct and delete my data.

Every handler acts on the caller's own account, named by the server's session (``current_actor``):
no id comes from the browser. The services are ``app.services.privacy``.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from app.core.text import mask_email
from app.identity.factory import get_provider
from app.identity.guards import ALL_PROFILES, HOME
from app.models import STAFF_PROFILES, ProfileId
from app.services import accounts, privacy
from app.services.abuse import client_key
from app.settings import get_settings
from app.states.auth import SIGN_OUT_SCRIPT, AuthState, current_actor, requires
from app.states.forms import ClearingFormState
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import ACCOUNT_POOL, run_service
from app.storage.factory import get_private_storage, get_storage

DELETE_FIELDS = ("password", "code", "confirm")
EMAIL_FIELDS = ("new_email", "password")
MUST_CONFIRM = "Marca la casilla para confirmar que quieres eliminar tu cuenta."
ACCOUNT_DELETED = "cuenta-eliminada"


def _change_email(**kwargs: Any) -> str:
    """app.services.accounts.request_email_change with the configured provider (on the worker thread)."""
    return accounts.request_email_change(provider=get_provider(), **kwargs)


def _delete(**kwargs: Any) -> None:
    """app.services.privacy.delete_account with the configured provider and storages (on the worker thread)."""
    privacy.delete_account(
        provider=get_provider(), storage=get_storage(), private_storage=get_private_storage(), **kwargs
    )


def _client_hash(state: rx.State) -> str:
    """The abuse-limit key of the connected client (app.services.abuse.client_key)."""
    return client_key(state.router.session.client_ip or "", get_settings().secret_key)


class EmailChangeState(ClearingFormState, rx.State):
    """The "change my e-mail" form: its busy flag, errors, and what was sent."""

    notice: str = ""

    @requires(*ALL_PROFILES)
    async def request_email_change(self, form_data: dict[str, Any]) -> Events:
        """E-mail a link to the caller's new address (after their password); the change waits for that link."""
        if self.busy:
            return None
        data = form_data if isinstance(form_data, dict) else {}
        new_email, password = data.get("new_email", ""), data.get("password", "")
        self.notice = ""
        outcome = await self._submit(
            run_service(
                _change_email,
                actor=current_actor(),
                new_email=new_email[:256] if isinstance(new_email, str) else "",
                password=password[:256] if isinstance(password, str) else "",
                client_hash=_client_hash(self),
                pool=ACCOUNT_POOL,
            ),
            fields=EMAIL_FIELDS,
        )
        if outcome.ok:
            self.notice = outcome.value
        return None


class PrivacyState(ClearingFormState, rx.State):
    """What the page shows of the caller's account: the masked address, and where their export stands."""

    loaded: bool = False
    email_hint: str = ""
    staff: bool = False
    advertiser: bool = False
    export_notice: str = ""

    @requires(*ALL_PROFILES)
    async def open_page(self) -> None:
        """Show the caller's page: their address (masked) and their latest export."""
        actor = current_actor()
        self.email_hint = mask_email(actor.email)
        self.staff = actor.profile_uid in STAFF_PROFILES
        self.advertiser = actor.profile_uid == ProfileId.PROFESOR
        self._clear_errors()
        self.export_notice = await run_service(privacy.export_notice, user_uid=actor.uid)
        self.loaded = True

    @requires(*ALL_PROFILES)
    async def request_export(self) -> Events:
        """Ask for the caller's data: the ZIP is made in the background and its link e-mailed."""
        if self.busy:
            return None
        outcome = await self._submit(run_service(privacy.request_export, actor=current_actor()))
        if not outcome.ok:
            message, self.error = self.error, ""  # a toast: the page's form alert belongs to the deletion
            return notify_error(message)
        self.export_notice = outcome.value
        return notify_success(outcome.value)

    @requires(*ALL_PROFILES)
    async def delete_account(self, form_data: dict[str, Any]) -> Events:
        """Delete the caller's account after their password (and code, for staff); then signed out, home."""
        if self.busy:
            return None
        data = form_data if isinstance(form_data, dict) else {}
        if data.get("confirm") not in (True, "on", "true"):
            self._clear_errors()
            self.field_errors = {"confirm": MUST_CONFIRM}
            return None
        password, code = data.get("password", ""), data.get("code", "")
        outcome = await self._submit(
            run_service(
                _delete,
                actor=current_actor(),
                password=password[:256] if isinstance(password, str) else "",
                code=code[:32] if isinstance(code, str) else "",
                client_hash=_client_hash(self),
                pool=ACCOUNT_POOL,
            ),
            fields=DELETE_FIELDS,
        )
        if not outcome.ok:
            return None
        auth = await self.get_state(AuthState)
        auth._forget()
        auth.flash = ACCOUNT_DELETED
        self.loaded = False
        self.email_hint = ""
        self.export_notice = ""
        return [rx.call_script(SIGN_OUT_SCRIPT), rx.redirect(HOME, replace=True)]
