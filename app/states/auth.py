"""The signed-in user as the browser sees it, and the server-side access checks.

Every event handler of every state is marked, and a test enforces it:
- ``@public``: needs no account (public pages, the sign-in forms);
- ``@requires(*profiles)``: resolves the caller's session token from the
  database at each call, and refuses (toast + redirect home) anyone without a
  live session of one of those profiles. A banned user is signed out on the
  spot, so a ban takes effect at the next action even in an open tab.

The browser keeps two values in local storage: ``sesion``, an opaque random
token (the server stores only its digest), and ``user``, the current-user
record of SPEC §3 with public display data only; the server never trusts it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
from collections.abc import Callable

import reflex as rx
from sqlalchemy.exc import SQLAlchemyError

from app.db import session_scope
from app.identity import accounts
from app.identity.errors import AUTH_MESSAGES
from app.identity.guards import HOME, landing_path
from app.identity.sessions import Actor, SessionCheck, resolve_session
from app.models import PROFILE_LABELS, ProfileId
from app.states.notify import notify_error, notify_success

log = logging.getLogger(__name__)

ACCESS_ATTR = "__access__"
PUBLIC = "public"
FORBIDDEN_MESSAGE = "No tienes permiso para entrar ahí. Ingresa con una cuenta autorizada."

_actor: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("actor", default=None)


def public(fn: Callable) -> Callable:
    """Mark an event handler as open to anyone (it must touch only public data)."""
    setattr(fn, ACCESS_ATTR, PUBLIC)
    return fn


def requires(*profiles: ProfileId) -> Callable[[Callable], Callable]:
    """Allow an event handler only to signed-in users of these profiles; see :func:`current_actor`."""
    allowed = frozenset(profile.value for profile in profiles)

    def decorate(fn: Callable) -> Callable:
        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            async def wrapper(self, *args, **kwargs):
                refusal = await _authorize(self, allowed)
                if refusal is not None:
                    yield refusal
                    return
                async for update in fn(self, *args, **kwargs):
                    yield update

        else:

            @functools.wraps(fn)
            async def wrapper(self, *args, **kwargs):
                refusal = await _authorize(self, allowed)
                if refusal is not None:
                    return refusal
                result = fn(self, *args, **kwargs)
                return await result if inspect.isawaitable(result) else result

        setattr(wrapper, ACCESS_ATTR, allowed)
        return wrapper

    return decorate


def current_actor() -> Actor:
    """The caller authorized by the enclosing ``@requires`` handler."""
    actor = _actor.get()
    if actor is None:
        raise RuntimeError("current_actor() outside a @requires event handler")
    return actor


def _resolve(token: str) -> SessionCheck:
    with session_scope() as session:
        return resolve_session(session=session, token=token)


async def _authorize(state: rx.State, allowed: frozenset[str]) -> list | None:
    """None when the caller may go on (the actor is then set); otherwise the refusal events."""
    auth = state if isinstance(state, AuthState) else await state.get_state(AuthState)
    check = await asyncio.to_thread(_resolve, auth.session_token)
    if check.banned:
        return auth._forget_banned()
    if check.actor is None or check.actor.profile_uid not in allowed:
        if check.actor is None:
            auth._forget()
        return [notify_error(FORBIDDEN_MESSAGE), rx.redirect(HOME, replace=True)]
    _actor.set(check.actor)
    return None


class AuthState(rx.State):
    """The session token and current-user record kept in the browser's local storage."""

    session_token: str = rx.LocalStorage("", name="sesion", sync=True)
    user: str = rx.LocalStorage("", name="user", sync=True)

    def _record(self) -> dict:
        try:
            record = json.loads(self.user) if self.user else {}
        except ValueError:
            return {}
        return record if isinstance(record, dict) else {}

    @rx.var
    def signed_in(self) -> bool:
        """True when the browser holds a current-user record (display only, never trusted)."""
        return bool(self._record())

    @rx.var
    def user_name(self) -> str:
        """The signed-in user's display name."""
        return str(self._record().get("display_name", ""))

    @rx.var
    def user_home(self) -> str:
        """The signed-in user's landing page (for the header's link)."""
        return landing_path(str(self._record().get("profile", "")))

    def _remember(self, actor: Actor, token: str | None = None) -> None:
        """Store a new token (if given) and the current-user record of this actor."""
        if token is not None:
            self.session_token = token
        self.user = json.dumps(
            {
                "uid": actor.uid,
                "email": actor.email,
                "display_name": actor.display_name,
                "profile": actor.profile_uid,
                "profile_label": PROFILE_LABELS.get(ProfileId(actor.profile_uid), ""),
            }
        )

    def _forget(self) -> None:
        """Drop the token and set the current-user record to empty (signed out)."""
        self.session_token = ""
        self.user = ""

    def _forget_banned(self) -> list:
        """Sign a banned user out here and now: message and home."""
        self._forget()
        return [notify_error(AUTH_MESSAGES["user-disabled"]), rx.redirect(HOME, replace=True)]

    @public
    async def check_session(self):
        """On every page load: keep the record in step with the server's view of the session.

        SPEC §4 step 1: when the session's user is already the stored current
        user, nothing happens. A ban signs the user out and sends them home.
        """
        if not self.session_token:
            if self.user:
                self.user = ""
            return None
        check = await asyncio.to_thread(_resolve, self.session_token)
        if check.banned:
            return self._forget_banned()
        if check.actor is None:
            self._forget()
            return None
        if self._record().get("uid") != check.actor.uid:
            self._remember(check.actor)
        return None

    @public
    async def sign_out(self):
        """End this browser's session in every tab; on failure the user stays signed in."""
        token = self.session_token
        try:
            await asyncio.to_thread(_sign_out, token)
        except SQLAlchemyError:
            log.exception("sign-out failed")
            return notify_error("No pudimos cerrar la sesión. Inténtalo de nuevo.")
        self._forget()
        return [notify_success("Cerraste tu sesión."), rx.redirect(HOME)]


def _sign_out(token: str) -> None:
    with session_scope() as session:
        accounts.sign_out(session=session, token=token)
