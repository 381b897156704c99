"""/login/segundo-factor: the second step of a staff member's sign-in (issue 20 §1).

A staff member lands here after the password (either provider). Without a
confirmed factor they set it up: the page shows the QR code and the secret,
asks for a first code, then shows the ten recovery codes once. With one, they
type a code of their app or a recovery code; a recovery code also lets them
set the factor up again. Only then does their session grant staff rights.

The secret and the recovery codes never enter this state (Reflex keeps state
on disk or in Redis): they reach the page in one event's reply, as a script
that writes them into the page (``_fill_script``), and are gone when it is left.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.identity.guards import landing_path
from app.services import two_factor
from app.states.account import FORM_UNREADABLE, connection_client_key, form_field
from app.states.auth import connection_session_hash, current_actor, second_factor_passed, second_factor_step
from app.states.forms import ClearingFormState, Outcome
from app.states.notify import Events
from app.states.offload import run_service

# Where the page shows what must not stay in the state (app.pages.second_factor).
QR_ID, SECRET_ID, CODES_ID = "segundo-factor-qr", "segundo-factor-clave", "segundo-factor-codigos"
LOADING, SETUP, CODES, VERIFY = "cargando", "configurar", "codigos", "verificar"


def _fill_script(*, qr: str = "", size: int = 0, secret: str = "", codes: list[str] | None = None) -> EventSpec:
    """A script that draws the QR code and writes the secret or the recovery codes into the page (as text and
    SVG attributes, never as HTML)."""
    data = json.dumps(
        {"qr": qr, "size": size, "secret": secret, "codes": codes or [], "ids": [QR_ID, SECRET_ID, CODES_ID]}
    )
    return rx.call_script(
        "(() => { const d = " + data + "; let tries = 0; const fill = () => {"
        " const [qr, secret, codes] = d.ids.map((id) => document.getElementById(id));"
        " if (!qr || !secret || !codes) { if (tries++ < 100) requestAnimationFrame(fill); return; }"
        " if (d.qr) { const ns = 'http://www.w3.org/2000/svg';"
        " const bg = document.createElementNS(ns, 'rect'); bg.setAttribute('width', d.size);"
        " bg.setAttribute('height', d.size); bg.setAttribute('fill', '#fff');"
        " const path = document.createElementNS(ns, 'path'); path.setAttribute('d', d.qr);"
        " path.setAttribute('stroke', '#000'); qr.setAttribute('viewBox', `0 0 ${d.size} ${d.size}`);"
        " qr.replaceChildren(bg, path); }"
        " if (d.secret) { secret.textContent = d.secret; }"
        " if (d.codes.length) { codes.replaceChildren(...d.codes.map((c) => {"
        " const li = document.createElement('li'); li.textContent = c; return li; })); } };"
        " fill(); })()"
    )


class SecondFactorState(ClearingFormState, rx.State):
    """Which step the page shows, and where the staff member lands afterwards."""

    step: str = LOADING
    landing: str = ""

    async def _start_setup(self) -> list[EventSpec]:
        view = await run_service(two_factor.begin_setup, actor=current_actor())
        self.step = SETUP
        return [_fill_script(qr=view.qr_path, size=view.qr_size, secret=view.secret)]

    async def _send_code(self, step: str, form_data: object, service: Callable[..., Any], field: str) -> Outcome | None:
        """Hand the code typed in ``field`` to ``service`` if the page is at ``step``; its outcome if it succeeded.

        None when the page is elsewhere or busy, the form unreadable, or the service refused the code (its
        message is then shown under ``field``).
        """
        if self.busy or self.step != step:
            return None
        if not isinstance(form_data, dict):
            self.error = FORM_UNREADABLE
            return None
        outcome = await self._submit(
            run_service(
                service,
                actor=current_actor(),
                token_hash=connection_session_hash(),
                code=form_field(form_data, field, 64),
                client_hash=connection_client_key(self),
            ),
            fields=(field,),
        )
        return outcome if outcome.ok else None

    @second_factor_step
    async def load(self) -> Events:
        """Open the step this staff member is at: setup, or the code; past it, their landing page."""
        actor = current_actor()
        self._clear_errors()
        self.busy = False
        self.landing = landing_path(actor.profile_uid)
        if second_factor_passed():
            return rx.redirect(self.landing, replace=True)
        status = await run_service(two_factor.status, user_uid=actor.uid)
        if status == two_factor.SETUP:
            return await self._start_setup()
        self.step = VERIFY
        return None

    @second_factor_step
    async def confirm(self, form_data: dict[str, Any]) -> Events:
        """Confirm the setup with a first code; then show the recovery codes, once."""
        outcome = await self._send_code(SETUP, form_data, two_factor.confirm_setup, "code")
        if outcome is None:
            return None
        self.step = CODES
        return _fill_script(codes=outcome.value)

    @second_factor_step
    async def verify(self, form_data: dict[str, Any]) -> Events:
        """Check a code of the app (or a recovery code); the session then grants staff rights."""
        outcome = await self._send_code(VERIFY, form_data, two_factor.verify_sign_in, "code")
        if outcome is None:
            return None
        self.busy = True  # the landing page is loading
        return rx.redirect(landing_path(current_actor().profile_uid), replace=True)

    @second_factor_step
    async def recover(self, form_data: dict[str, Any]) -> Events:
        """Set the factor up again (a lost phone): a recovery code ends the old one, then the setup starts."""
        outcome = await self._send_code(VERIFY, form_data, two_factor.reset_own_with_recovery_code, "recovery_code")
        if outcome is None:
            return None
        return await self._start_setup()
