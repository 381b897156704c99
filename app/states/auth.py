"""The signed-in user as the browser sees it, and the server-side access checks.

Every event handler of every state is marked, and a test enforces it:
- ``@public``: needs no account (public pages, the sign-in forms);
- ``@requires(*profiles)``: resolves the caller's session at each call from
  the cookie of the current websocket connection's handshake (as its digest,
  see ``app.web.cookies``), never from state, and refuses (toast +
  redirect home) anyone without a live session of one of those profiles. A
  banned user is signed out on the spot, so a ban takes effect at the next
  action even in an open tab.
- ``@second_factor_step``: only the second step of a staff sign-in
  (``app.states.second_factor``): a staff member whose session has not
  passed the second factor yet (or has).

A staff member's session grants nothing before the second factor is passed
(issue 20 §1): ``resolve_session`` then gives no actor, only ``pending``, so
every ``@requires`` handler and every area page's guarded loader refuses it
(and sends the browser to the second-factor page), whatever profiles it allows.

The session token lives only in an HttpOnly cookie set by plain HTTP routes.
The browser's local storage keeps ``user``, the current-user record of SPEC
§3 with display data only; the server never trusts it. When it changes in
one tab, the others reload (assets/site.js) and so reconnect with the
browser's current cookie.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import reflex as rx
from reflex_base.constants import RouteVar
from reflex_base.event import EventSpec
from reflex_base.event.context import EventContext

from app.core.actor import Actor
from app.identity.errors import AUTH_MESSAGES
from app.identity.guards import HOME, landing_path
from app.identity.sessions import SessionCheck, resolve_session, session_hash_in
from app.models import PROFILE_LABELS, ProfileId
from app.routes import SECOND_FACTOR
from app.services.abuse import client_key
from app.settings import get_settings
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import run_service

log = logging.getLogger(__name__)

ACCESS_ATTR = "__access__"
PUBLIC = "public"
FORBIDDEN_MESSAGE = "No tienes permiso para entrar ahí. Ingresa con una cuenta autorizada."
SECOND_FACTOR_FIRST = "Antes de seguir, confirma tu ingreso con tu segundo factor."
# Set on @second_factor_step handlers (their ACCESS_ATTR holds the staff profiles).
SECOND_FACTOR_STEP_ATTR = "__second_factor_step__"
STAFF_PROFILE_UIDS = frozenset({ProfileId.ADMINISTRADOR.value, ProfileId.SECRETARIA.value})
# A call the handler cannot take: most likely a page loaded before a new version of the site.
STALE_PAGE_MESSAGE = "Esta página quedó desactualizada. Recárgala para continuar."

_actor: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("actor", default=None)
_second_factor_passed: contextvars.ContextVar[bool] = contextvars.ContextVar("second_factor_passed", default=False)


def _unfit_call(
    fn: Callable[..., Any], signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[EventSpec] | None:
    """None when the arguments fit ``fn``; otherwise the refusal (logged once, without a traceback).

    Any client can send any arguments: a stale page after a deploy, or garbage. The handler
    does not run, so nothing changes; the log line names the arguments, never their values.
    """
    try:
        signature.bind(None, *args, **kwargs)
    except TypeError as exc:
        log.warning(
            "refused %s: arguments that do not fit it (%s; keywords %.200s) (client %s)",
            fn.__qualname__,
            exc,
            sorted(str(name)[:40] for name in kwargs),
            _connection_client(),
        )
        return [notify_error(STALE_PAGE_MESSAGE)]
    return None


def public(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark an event handler as open to anyone (it must touch only public data).

    A call whose arguments do not fit the handler is refused (:func:`_unfit_call`).
    """
    signature = inspect.signature(fn)
    wrapper: Callable[..., Any]
    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)
        async def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            refusal = _unfit_call(fn, signature, args, kwargs)
            if refusal is not None:
                yield refusal
                return
            async for update in fn(self, *args, **kwargs):
                yield update

    elif inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> Any:
            refusal = _unfit_call(fn, signature, args, kwargs)
            if refusal is not None:
                return refusal
            return await fn(self, *args, **kwargs)

    elif inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> Iterator[Any]:
            refusal = _unfit_call(fn, signature, args, kwargs)
            if refusal is not None:
                yield refusal
                return
            yield from fn(self, *args, **kwargs)

    else:

        @functools.wraps(fn)
        def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> Any:
            refusal = _unfit_call(fn, signature, args, kwargs)
            if refusal is not None:
                return refusal
            return fn(self, *args, **kwargs)

    setattr(wrapper, ACCESS_ATTR, PUBLIC)
    return wrapper


def requires(*profiles: ProfileId) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Allow an event handler only to signed-in users of these profiles; see :func:`current_actor`.

    A call whose arguments do not fit the handler is refused first (:func:`_unfit_call`).
    """
    allowed = frozenset(profile.value for profile in profiles)
    return _guarded(allowed, _authorize)


def second_factor_step(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Allow an event handler only to a staff member in the second step of sign-in (or past it).

    :func:`current_actor` is then that staff member, whether or not the session passed the factor yet.
    """
    wrapper = _guarded(STAFF_PROFILE_UIDS, _authorize_second_factor_step)(fn)
    setattr(wrapper, SECOND_FACTOR_STEP_ATTR, True)
    return wrapper


# The server-side check of a guard: None lets the call through, otherwise the events that refuse it.
_Check = Callable[[rx.State, frozenset[str], str], Awaitable[list[EventSpec] | None]]


def _guarded(allowed: frozenset[str], check: _Check) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        wrapper: Callable[..., Any]
        signature = inspect.signature(fn)
        if inspect.isasyncgenfunction(fn):

            @functools.wraps(fn)
            async def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
                refusal = _unfit_call(fn, signature, args, kwargs) or await check(self, allowed, fn.__qualname__)
                if refusal is not None:
                    yield refusal
                    return
                async for update in fn(self, *args, **kwargs):
                    yield update

        else:

            @functools.wraps(fn)
            async def wrapper(self: rx.State, *args: Any, **kwargs: Any) -> Any:
                refusal = _unfit_call(fn, signature, args, kwargs) or await check(self, allowed, fn.__qualname__)
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


def connection_session_hash() -> str:
    """The digest of the session cookie the current websocket connection was opened with ("" if none).

    Read from this event's routing data, which Reflex builds from the
    connection's handshake for every event (the ``sesion_hash`` cookie that
    app.web.cookies put in place of the session cookie); never from stored state.
    """
    try:
        return session_hash_in(EventContext.get().router_data.get(RouteVar.HEADERS))
    except LookupError:
        return ""


async def _resolve(token_hash: str) -> SessionCheck:
    """The session behind ``token_hash``, read off the event loop."""
    return await run_service(resolve_session, token_hash=token_hash, idle_days=get_settings().session_idle_days)


def _connection_client() -> str:
    """A short keyed hash of the current connection's client (for log lines; never the address)."""
    try:
        address = EventContext.get().router_data.get(RouteVar.CLIENT_IP) or ""
    except LookupError:
        address = ""
    return client_key(str(address), get_settings().secret_key)[:12]


async def _authorize(state: rx.State, allowed: frozenset[str], handler: str) -> list[EventSpec] | None:
    """None when the caller may go on (the actor is then set); otherwise the refusal events (logged)."""
    auth = state if isinstance(state, AuthState) else await state.get_state(AuthState)
    check = await _resolve(connection_session_hash())
    if check.banned:
        log.warning("refused %s: banned user's session (client %s)", handler, _connection_client())
        return auth._forget_banned()
    if check.pending is not None:
        log.warning(
            "refused %s: user %s has not passed the second factor (client %s)",
            handler,
            check.pending.uid,
            _connection_client(),
        )
        if auth.user:
            auth._forget()
        return [notify_error(SECOND_FACTOR_FIRST), rx.redirect(SECOND_FACTOR, replace=True)]
    if check.actor is None or check.actor.profile_uid not in allowed:
        who = f"user {check.actor.uid} ({check.actor.profile_uid})" if check.actor else "no live session"
        log.warning("refused %s: %s (client %s)", handler, who, _connection_client())
        if check.actor is None:
            auth._forget()
        return [notify_error(FORBIDDEN_MESSAGE), rx.redirect(HOME, replace=True)]
    if auth._record().get("uid") != check.actor.uid:
        auth._remember(check.actor)  # the header shows who the server says is signed in
    _actor.set(check.actor)
    return None


async def _authorize_second_factor_step(
    state: rx.State, allowed: frozenset[str], handler: str
) -> list[EventSpec] | None:
    """Like :func:`_authorize`, for the staff member of a session in the second step of sign-in (or past it)."""
    auth = state if isinstance(state, AuthState) else await state.get_state(AuthState)
    check = await _resolve(connection_session_hash())
    if check.banned:
        log.warning("refused %s: banned user's session (client %s)", handler, _connection_client())
        return auth._forget_banned()
    staff = check.pending or check.actor
    if staff is None or staff.profile_uid not in allowed:
        who = f"user {staff.uid} ({staff.profile_uid})" if staff else "no live session"
        log.warning("refused %s: %s (client %s)", handler, who, _connection_client())
        return [notify_error(FORBIDDEN_MESSAGE), rx.redirect(HOME, replace=True)]
    _actor.set(staff)
    _second_factor_passed.set(check.actor is not None)
    return None


def second_factor_passed() -> bool:
    """In a ``@second_factor_step`` handler: True when the caller's session passed the second factor already."""
    return _second_factor_passed.get()


def open_session_script(ticket: str, then: str, callback: Callable[..., Any]) -> EventSpec:
    """Browser-side: exchange a sign-in ticket for the session cookie, then run ``then`` (JavaScript).

    ``then`` loads a page, so the websocket reconnects carrying the new cookie;
    the page starts with a new Reflex client token (nothing of the tab's
    earlier, possibly anonymous, state carries over), and no event is sent
    while it loads. ``callback`` hears only failures: the HTTP status, or 0
    when the request itself failed.
    """
    return rx.call_script(
        "fetch('/sesion', {method: 'POST', credentials: 'same-origin', headers: {'X-Ticket': "
        f"{json.dumps(ticket)}}}}}).then((r) => {{ if (!r.ok) return r.status; "
        f"window.sessionStorage.removeItem('token'); {then} return new Promise(() => {{}}); }}).catch(() => 0)",
        callback=callback,
    )


SIGN_OUT_SCRIPT = (
    "fetch('/sesion/cerrar', {method: 'POST', credentials: 'same-origin'}).then((r) => r.status).catch(() => 0)"
)
# One-shot messages shown after a page load (the code travels in session storage).
FLASH_MESSAGES = {
    "clave-cambiada": "Cambiamos tu contraseña y cerramos tus otras sesiones.",
    "cuenta-eliminada": "Eliminamos tu cuenta con todos sus datos y fotos.",
}


class AuthState(rx.State):
    """The current-user record kept in local storage, and a one-shot notice for the next page."""

    user: str = rx.LocalStorage("", name="user")
    flash: str = rx.SessionStorage("", name="aviso")

    def _record(self) -> dict[str, Any]:
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

    def _remember(self, actor: Actor) -> None:
        """Store the current-user record of this actor: display data only (no e-mail: Reflex stores state)."""
        self.user = json.dumps(
            {
                "uid": actor.uid,
                "display_name": actor.display_name,
                "profile": actor.profile_uid,
                "profile_label": PROFILE_LABELS.get(ProfileId(actor.profile_uid), ""),
            }
        )

    def _forget(self) -> None:
        """Set the current-user record to empty (signed out)."""
        self.user = ""

    def _forget_banned(self) -> list[EventSpec]:
        """Sign a banned user out here and now: message, the dead cookie cleared, home.

        Not home again from home itself: the connection still carries the dead session until the page reconnects,
        so the home page's load would find the ban again and send it home again, without end.
        """
        self._forget()
        events = [notify_error(AUTH_MESSAGES["user-disabled"]), rx.call_script(SIGN_OUT_SCRIPT)]
        if self.router.url.path.rstrip("/") != HOME.rstrip("/"):
            events.append(rx.redirect(HOME, replace=True))
        return events

    def _take_flash(self) -> list[EventSpec]:
        """The one-shot notice left for this page load (as a toast), consumed."""
        message = FLASH_MESSAGES.get(self.flash)
        if self.flash:  # assigned only when set: an assignment is a change sent, and with Redis a state written
            self.flash = ""
        return [notify_success(message)] if message else []

    @public
    async def check_session(self) -> list[EventSpec]:
        """On every page load: keep the record in step with the server's view of the session.

        SPEC §4 step 1: when the session's user is already the stored current
        user, nothing happens. A ban signs the user out and sends them home.
        """
        return await self._check_session()

    async def _check_session(self) -> list[EventSpec]:
        """What ``check_session`` does, for a page loader that checks the session itself (the directory's, so
        that a public page loads in one event, not two); the events to send back."""
        events = self._take_flash()
        token_hash = connection_session_hash()
        check = await _resolve(token_hash) if token_hash else SessionCheck(actor=None)
        if check.banned:
            return self._forget_banned()
        if check.actor is None:
            if self.user:
                self._forget()
            if token_hash and check.pending is None:
                events.append(rx.call_script(SIGN_OUT_SCRIPT))  # the browser drops the dead cookie
        elif self._record().get("uid") != check.actor.uid:
            self._remember(check.actor)
        return events

    @public
    def sign_out(self) -> EventSpec:
        """End this browser's session in every tab: the HTTP route revokes it and clears the cookie."""
        return rx.call_script(SIGN_OUT_SCRIPT, callback=AuthState.signed_out)

    @public
    def signed_out(self, status: int) -> Events:
        """After the sign-out request: forget the record, or say it failed (the user stays signed in)."""
        if status != 204:
            return notify_error("No pudimos cerrar la sesión. Inténtalo de nuevo.")
        self._forget()
        return [notify_success("Cerraste tu sesión."), rx.redirect(HOME)]
