"""A page that connects again keeps its tab's token, and so its state (Reflex 0.10.1 may hand it a new one).

Reflex links each websocket to the tab token its page sends. When the token is still linked to another
socket, ``TokenManager.link_token_to_sid`` takes the page for a copy of a tab (a duplicated browser tab
copies its sessionStorage) and gives it a new token: a new, empty state. That is right for a copy, whose
first connection sends the compiled defaults' hashes, and wrong for a page whose connection dropped before
the server noticed (a phone waking up, a network changing, a node's proxy cutting it): the page's reconnect
finds its own old socket still linked, and the tab's state, with what the visitor chose and had not sent
yet, is lost (tests/e2e/test_write_in_flight.py).

:func:`keep_tokens_on_reconnect` wraps the websocket namespace's connect. A reconnect (a boot event without
the hashes, app.web.observe.is_reconnect) whose token another socket holds takes the token back when both
connections carry the same session: the same ``sesion_hash`` cookie (app.web.cookies), or none on both.
The token is the only key to a tab's state, so a connection that knows it without the session cookie behind
it still gets Reflex's new token. The old connection's session is read off its handshake when its socket is
on this process, else off the tab's stored state (Redis state: the socket is on another worker or node).

The socket that loses the token, when on this process, is handed a new one (Reflex's ``new_token``), as
Reflex would have handed the newcomer: a copy of the tab opened while the tab was offline goes on with a
state of its own. On another worker, that worker learns of the move from Redis (Reflex's socket-record
notifications) and its socket's later disconnect leaves the token where it now is.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs

from reflex.app import EventNamespace
from reflex.istate.manager.token import BaseStateToken
from reflex.utils.token_manager import RedisTokenManager, SocketRecord
from reflex_base import constants
from starlette.datastructures import Headers

from app import metrics
from app.identity.sessions import session_hash_in
from app.web.observe import is_reconnect


def connection_token(environ: dict[str, Any]) -> str | None:
    """The tab token a socket.io connection presents in its query string (Reflex's frontend puts it there)."""
    tokens = parse_qs(environ.get("QUERY_STRING", "")).get("token")
    return tokens[0] if tokens else None


def connection_session(environ: dict[str, Any]) -> str:
    """The session digest a connection's handshake carries ("" if none), as its events will see it."""
    raw = environ.get("asgi.scope", {}).get("headers", [])
    return session_hash_in({"cookie": Headers(raw=raw).get("cookie", "")})


async def _holder(namespace: EventNamespace, token: str) -> SocketRecord | None:
    """The socket that holds ``token`` now, on this process or (Redis) any other; None if none or unknown."""
    manager = namespace._token_manager
    if not isinstance(manager, RedisTokenManager):
        return manager.token_to_socket.get(token)
    try:
        return await manager._fetch_socket_record(token)
    except Exception:  # Redis unreachable: Reflex's own link decides, and logs it
        return None


async def _holder_session(namespace: EventNamespace, token: str, holder: SocketRecord) -> str | None:
    """The session digest the holding socket's connection carries; None when it cannot be known."""
    if holder.instance_id == namespace._token_manager.instance_id:
        router_data = namespace._static_router_data.get(holder.sid)
        return session_hash_in(router_data[constants.RouteVar.HEADERS]) if router_data is not None else None
    # Another worker's socket: its headers are in the tab's state, which its events keep up to date.
    if (root := namespace.app._state) is None:
        return None
    try:
        state = await namespace.app.state_manager.get_state(BaseStateToken(ident=token, cls=root))
    except Exception:  # Redis unreachable: Reflex's own link decides
        return None
    headers = state.router_data.get(constants.RouteVar.HEADERS)
    return session_hash_in(headers) if headers is not None else None


async def take_back_token(namespace: EventNamespace, sid: str, token: str, session: str) -> bool:
    """Link ``token`` to the reconnecting socket ``sid`` when another socket of the same session holds it.

    True when it did (Reflex's own link then finds the token already linked to ``sid``); False leaves the
    connection to Reflex: no other socket holds the token, or it holds it for another session.
    """
    holder = await _holder(namespace, token)
    if holder is None or holder.sid == sid or await _holder_session(namespace, token, holder) != session:
        return False
    manager = namespace._token_manager
    record = SocketRecord(instance_id=manager.instance_id, sid=sid)
    manager.token_to_socket[token] = record
    manager.sid_to_token[sid] = token
    if holder.instance_id == manager.instance_id and manager.sid_to_token.get(holder.sid) == token:
        # The old socket gets a token of its own: its later disconnect leaves this one linked to ``sid``.
        displaced = str(uuid.uuid4())
        await manager.link_token_to_sid(displaced, holder.sid)
        await namespace.emit("new_token", displaced, to=holder.sid)
    if isinstance(manager, RedisTokenManager):
        await manager._store_socket_record(token, record)
    metrics.WS_TOKENS_KEPT.inc()
    return True


def keep_tokens_on_reconnect() -> None:
    """Wrap the websocket namespace's connect (the composition root calls it once, after app.web.observe)."""
    connect = EventNamespace.on_connect

    async def reconnect_keeping_token(
        self: EventNamespace, sid: str, environ: dict[str, Any], auth: Any = None
    ) -> None:
        if is_reconnect(auth) and (token := connection_token(environ)) is not None:
            await take_back_token(self, sid, token, connection_session(environ))
        await connect(self, sid, environ, auth)

    EventNamespace.on_connect = reconnect_keeping_token  # type: ignore[method-assign]  # the patch is the point
