"""The session digest reaches the handlers and Reflex's stored state, never the page.

Reflex puts the websocket handshake's headers (and an upload request's) in the
tab's router data, which it stores (memory, Redis) and sends to the page in
state deltas, the websocket's and an upload answer's. The handshake middleware
gives it the session cookie's digest in place of the cookie; what Reflex would
send is serialised here exactly as it sends it.
"""

from __future__ import annotations

import pickle

from reflex.state import State
from reflex_base.constants import RouteVar
from reflex_base.event.context import EventContext
from reflex_base.utils.format import json_dumps

from app.identity import sessions
from app.identity.sessions import DIGEST_COOKIE, SESSION_COOKIE
from app.states.auth import connection_session_hash
from app.web.cookies import session_hash_headers
from tests.handlers import _noop, handshake_headers

TOKEN = "raw-session-token-value"
DIGEST = sessions.digest(TOKEN)


def _tab_with(headers: dict[str, str]) -> State:
    """A tab's root state after an event whose routing data carried ``headers``, as Reflex's processor leaves it."""
    root = State(_reflex_internal_init=True)
    root.router_data = root._update_router_vars({RouteVar.HEADERS: headers}, {})
    return root


def _sent_and_stored(headers: dict[str, str]) -> tuple[str, bytes]:
    """What Reflex would send the page for a tab seeing ``headers``, and what it would store."""
    root = _tab_with(headers)
    return json_dumps(root.get_delta()), pickle.dumps(root)


def _seen_by_handlers(headers: dict[str, str]) -> str:
    with EventContext(token="tab", state_manager=None, enqueue_impl=_noop, router_data={RouteVar.HEADERS: headers}):
        return connection_session_hash()


def test_the_websocket_handshake_gives_handlers_the_digest_and_the_page_nothing_of_it():
    headers = handshake_headers(f"mayor_de_edad=1; {SESSION_COOKIE}={TOKEN}")
    assert _seen_by_handlers(headers) == DIGEST
    sent, stored = _sent_and_stored(headers)
    assert "rx_router_headers" in sent and "localhost" in sent  # the router headers are sent, with the host
    assert DIGEST not in sent and DIGEST_COOKIE not in sent and "sesion-hash" not in sent
    assert DIGEST.encode() in stored  # kept on the server with the tab
    assert TOKEN not in sent and TOKEN.encode() not in stored


def test_an_uploads_headers_give_handlers_the_digest_and_the_answer_nothing_of_it():
    request = [
        (b"host", b"localhost:3000"),
        (b"reflex-client-token", b"tab"),
        (b"cookie", f"{SESSION_COOKIE}={TOKEN}; {DIGEST_COOKIE}=forged".encode()),
    ]
    headers = {name.decode(): value.decode() for name, value in session_hash_headers(request)}
    assert _seen_by_handlers(headers) == DIGEST
    sent, stored = _sent_and_stored(headers)
    assert "reflex-client-token" in sent
    assert DIGEST not in sent and DIGEST_COOKIE not in sent and "forged" not in sent
    assert DIGEST.encode() in stored


def test_without_the_session_cookie_handlers_see_no_session():
    assert _seen_by_handlers(handshake_headers("mayor_de_edad=1")) == ""
    assert _seen_by_handlers(handshake_headers(f"{DIGEST_COOKIE}={DIGEST}")) == ""
    assert _seen_by_handlers({}) == ""
