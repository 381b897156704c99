"""State of the account screens: sign in, sign up, password reset, e-mailed links, password change.

Errors are shown in the form they belong to (role="alert") and the form keeps
what the person typed. Sign-in never says whether an e-mail has an account.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import reflex as rx

from app.core import proof_of_work
from app.core.errors import ServiceError
from app.identity.errors import AuthError, ProofRequired
from app.identity.factory import get_provider
from app.identity.guards import ALL_PROFILES, landing_path
from app.identity.provider import MAX_PASSWORD_LENGTH
from app.identity.sessions import needs_second_factor
from app.models.users import USER_NAME_MAX
from app.routes import LOGIN_RETURN_PARAM, SECOND_FACTOR, safe_return_path
from app.services import accounts
from app.services.abuse import client_key
from app.settings import get_settings
from app.states.auth import (
    AuthState,
    current_actor,
    open_session_script,
    public,
    requires,
)
from app.states.forms import ClearingFormState
from app.states.notify import Events
from app.states.offload import ACCOUNT_POOL, Result, run_service

LOGIN_TABS = ("ingresar", "registro", "recuperar")
RESET_SENT = (
    "Si existe una cuenta con ese correo, te enviamos un enlace para elegir una nueva contraseña. "
    "Revisa también la carpeta de spam."
)
# The fields each form shows: a refusal naming one of them is shown under it.
SIGN_IN_FIELDS = ("email", "password")
SIGN_UP_FIELDS = ("email", "display_name", "password", "password_confirm")
RESET_REQUEST_FIELDS = ("email",)
RESET_FIELDS = ("password", "password_confirm")
PASSWORD_CHANGE_FIELDS = ("current_password", "new_password", "new_password_confirm")
FORM_UNREADABLE = "No pudimos leer el formulario. Inténtalo de nuevo."
SESSION_NOT_OPENED = "No pudimos abrir tu sesión en este navegador. Vuelve a ingresar."


def form_field(form_data: dict[str, Any], name: str, limit: int = 256) -> str:
    value = form_data.get(name, "")
    return value[:limit] if isinstance(value, str) else ""


def _with_provider(operation: Callable[..., Result], **kwargs: Any) -> Result:
    """Call an app.services.accounts operation with the configured identity provider (on the worker thread)."""
    return operation(provider=get_provider(), **kwargs)


async def _off_loop(operation: Callable[..., Result], **kwargs: Any) -> Result:
    """An app.services.accounts operation with a session and the provider, on the accounts' own pool."""
    return await run_service(_with_provider, operation=operation, pool=ACCOUNT_POOL, **kwargs)


def connection_client_key(state: rx.State) -> str:
    """The abuse-limit key of the connected client (app.services.abuse.client_key)."""
    return client_key(state.router.session.client_ip or "", get_settings().secret_key)


class LoginState(ClearingFormState, rx.State):
    """/login: the three forms, and the e-mail the "one more step" screen names."""

    tab: str = LOGIN_TABS[0]
    notice: str = ""
    busy: bool = True  # until load runs: no submitting before the page is live
    pending_email: str = ""
    # A signed proof-of-work challenge (no secret) for assets/proof.js: set when a sign-up from a
    # busy shared address must bring a proof; the browser answers it and sends the form again.
    proof_challenge: str = ""

    @public
    def load(self) -> None:
        """Open the form named by ?modo= (ingresar, registro, recuperar) with no old messages."""
        wanted = self.router.url.query_parameters.get("modo", "")
        self.tab = wanted if wanted in LOGIN_TABS else LOGIN_TABS[0]
        self._clear_errors()
        self.notice = ""
        self.busy = False

    @public
    def select_tab(self, tab: str) -> None:
        """Switch between the forms."""
        if tab in LOGIN_TABS:
            self.tab = tab
            self._clear_errors()
            self.notice = ""

    @public
    async def sign_in(self, form_data: dict[str, Any]) -> Events:
        """E-mail + password sign-in (SPEC §4), then the page ?volver= names (a same-site path, such as a
        data-export link) or else the landing page of the user's profile (staff: the second factor's page first)."""
        if self.busy:
            return None
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        email = form_field(form_data, "email").strip().lower()
        password = form_field(form_data, "password")
        outcome = await self._submit(
            _off_loop(
                accounts.sign_in,
                settings=get_settings(),
                email=email,
                password=password,
                client_hash=connection_client_key(self),
            ),
            fields=SIGN_IN_FIELDS,
        )
        failure = outcome.failure
        if isinstance(failure, AuthError) and failure.code == "user-disabled":
            self._clear_errors()
            auth = await self.get_state(AuthState)
            return auth._forget_banned()
        if failure is not None:
            return None
        signed = outcome.value
        # Staff go on to the second factor first: their new session grants nothing until it is passed.
        profile = signed.actor.profile_uid
        back = safe_return_path(self.router.url.query_parameters.get(LOGIN_RETURN_PARAM, ""))
        landing = json.dumps(SECOND_FACTOR if needs_second_factor(profile) else back or landing_path(profile))
        script = open_session_script(signed.ticket, f"window.location.assign({landing});", LoginState.session_opened)
        # The form stays busy while the browser takes the cookie and loads the landing page.
        self.busy = True
        return script

    @public
    def session_opened(self, status: int) -> None:
        """After the ticket exchange: on success the landing page is loading; otherwise say so."""
        if status != 204:
            self.busy = False
            self.error = SESSION_NOT_OPENED

    @public
    async def sign_up(self, form_data: dict[str, Any]) -> Events:
        """Create a visitor or advertiser account, then the "one more step" screen.

        An address that already has an account gets the same screen (its owner is e-mailed).
        """
        if self.busy:
            return None
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        data: dict[str, Any] = {
            "email": form_field(form_data, "email"),
            "display_name": form_field(form_data, "display_name", USER_NAME_MAX),
            "password": form_field(form_data, "password", MAX_PASSWORD_LENGTH + 1),
            "password_confirm": form_field(form_data, "password_confirm", MAX_PASSWORD_LENGTH + 1),
            "profile": form_field(form_data, "profile"),
            "adult": form_data.get("adult") in (True, "on", "true"),
        }
        outcome = await self._submit(
            _off_loop(
                accounts.sign_up,
                data=data,
                client_hash=connection_client_key(self),
                proof=form_field(form_data, "prueba", proof_of_work.MAX_PROOF_LENGTH),
            ),
            fields=SIGN_UP_FIELDS,
        )
        self.proof_challenge = outcome.failure.challenge if isinstance(outcome.failure, ProofRequired) else ""
        if not outcome.ok:
            return None
        self.pending_email = data["email"].strip().lower()
        return rx.redirect("/login/auth/signup-sucessful")

    @public
    async def request_reset(self, form_data: dict[str, Any]) -> None:
        """E-mail a reset link; the answer is the same whether or not the account exists."""
        if self.busy:
            return None
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        email = form_field(form_data, "email")
        self.notice = ""
        outcome = await self._submit(
            run_service(
                _with_provider,
                operation=accounts.request_password_reset,
                email=email,
                pool=ACCOUNT_POOL,
                with_session=False,
            ),
            fields=RESET_REQUEST_FIELDS,
        )
        if not outcome.ok:
            return None
        self.notice = RESET_SENT
        return None


def _confirm_email(*, code: str) -> str:
    return get_provider().confirm_email(code=code)


class AccountActionState(ClearingFormState, rx.State):
    """/login/accion: the page the e-mailed links open (verify e-mail, reset password).

    ``busy`` is set while a new password is being saved.
    """

    status: str = "loading"  # loading | verified | reset_form | reset_done | failed
    message: str = ""
    _code: str = ""

    @public
    async def load(self) -> None:
        """Apply a verification link at once; show the new-password form for a reset link."""
        params = self.router.url.query_parameters
        mode, code = params.get("mode", ""), params.get("oobCode", "")
        self._clear_errors()
        self._code = ""
        if not isinstance(code, str) or not code or len(code) > 512:
            self.status, self.message = "failed", "El enlace no es válido. Pide uno nuevo."
            return
        if mode == "verifyEmail":
            try:
                await run_service(_confirm_email, code=code, pool=ACCOUNT_POOL, with_session=False)
            except ServiceError as exc:
                self.status, self.message = "failed", exc.message
                return
            self.status, self.message = "verified", "¡Listo! Tu correo quedó confirmado. Ya puedes ingresar."
        elif mode == "verifyAndChangeEmail":
            try:
                await _off_loop(accounts.confirm_email_change, code=code)
            except ServiceError as exc:
                self.status, self.message = "failed", exc.message
                return
            self.status, self.message = "verified", "¡Listo! Cambiamos tu correo. Desde ahora ingresas con el nuevo."
        elif mode == "resetPassword":
            self._code = code
            self.status, self.message = "reset_form", ""
        else:
            self.status, self.message = "failed", "El enlace no es válido. Pide uno nuevo."

    @public
    async def reset_password(self, form_data: dict[str, Any]) -> None:
        """Set the new password chosen on the reset form."""
        if self.busy or self.status != "reset_form" or not self._code or not isinstance(form_data, dict):
            return None
        outcome = await self._submit(
            _off_loop(
                accounts.reset_password,
                code=self._code,
                new_password=form_field(form_data, "password", MAX_PASSWORD_LENGTH + 1),
                confirm_password=form_field(form_data, "password_confirm", MAX_PASSWORD_LENGTH + 1),
            ),
            fields=RESET_FIELDS,
        )
        failure = outcome.failure
        if failure is not None:
            if isinstance(failure, AuthError) and failure.code in {"invalid-action-code", "expired-action-code"}:
                self.status, self.message = "failed", failure.message
            return None
        self._code = ""
        self.status, self.message = "reset_done", "Tu contraseña fue cambiada. Ya puedes ingresar con la nueva."
        return None


class PasswordDialogState(ClearingFormState, rx.State):
    """The change-password dialog reachable from the header of every page."""

    open: bool = False

    @public
    def set_open(self, value: bool) -> None:
        """Open or close the dialog (it holds no data until submitted)."""
        self.open = bool(value)
        self._clear_errors()

    @requires(*ALL_PROFILES)
    async def change_password(self, form_data: dict[str, Any]) -> Events:
        """Change the signed-in user's password; their other sessions end."""
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        actor = current_actor()
        outcome = await self._submit(
            _off_loop(
                accounts.change_password,
                actor=actor,
                current_password=form_field(form_data, "current_password", MAX_PASSWORD_LENGTH + 1),
                new_password=form_field(form_data, "new_password", MAX_PASSWORD_LENGTH + 1),
                confirm_password=form_field(form_data, "new_password_confirm", MAX_PASSWORD_LENGTH + 1),
                client_hash=connection_client_key(self),
            ),
            fields=PASSWORD_CHANGE_FIELDS,
        )
        if not outcome.ok:
            return None
        ticket = outcome.value
        # Every session ended, this one too: this browser takes a fresh cookie and reloads.
        auth = await self.get_state(AuthState)
        auth.flash = "clave-cambiada"
        self.open = False
        return open_session_script(ticket, "window.location.reload();", PasswordDialogState.session_renewed)

    @public
    def session_renewed(self, status: int) -> None:
        """After the ticket exchange of a password change: on failure, say the user must sign in again."""
        if status != 204:
            self.open = True
            self.error = SESSION_NOT_OPENED
