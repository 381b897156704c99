"""A page that connects again keeps its tab's token while its old socket is still open (app.web.reconnects).

Reflex's own websocket namespace and token managers (in memory, and on this process's real Redis server with
two workers' managers side by side), called as python-socketio calls them: connect with the handshake's
environ and the CONNECT packet's boot event, disconnect. Two parts of Reflex are replaced by recorders,
because they are not what is tested here and need a running server: the socket's ``emit`` (what the
server would send a page) and ``on_event`` (processing the boot event's hydrate).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from types import SimpleNamespace

import redis.asyncio as aioredis
from reflex.app import EventNamespace
from reflex.istate.manager.redis import StateManagerRedis
from reflex.istate.manager.token import BaseStateToken
from reflex.state import State
from reflex.utils.token_manager import LocalTokenManager, RedisTokenManager
from reflex_base import constants

from app.identity.sessions import DIGEST_COOKIE
from app.web import observe
from tests.handlers import run_async
from tests.ports import free_port
from tests.redis_server import empty_redis

FIRST = {"event": {"name": "reflex___state____state.hydrate", "payload": {"hashes": {"a": "1"}}}}
AGAIN = {"event": {"name": "reflex___state____state.hydrate", "payload": {}}}
SIGNED_IN = f"mayor_de_edad=1; {DIGEST_COOKIE}={'a' * 64}"
OTHER_SESSION = f"mayor_de_edad=1; {DIGEST_COOKIE}={'b' * 64}"
WAIT_S = 20


class Worker:
    """One web worker's websocket namespace: what it sent each socket, and the events it was handed."""

    def __init__(self, token_manager, state_manager=None) -> None:
        self.namespace = EventNamespace(
            "/_event", SimpleNamespace(_state=State, state_manager=state_manager, _event_processor=None)
        )
        self.namespace._token_manager = token_manager
        self.sent: list[tuple[str, object, str]] = []
        self.handled: list[str] = []

        async def emit(event: str, data: object, to: str) -> None:
            self.sent.append((event, data, to))

        async def on_event(sid: str, data: object) -> None:
            self.handled.append(sid)

        self.namespace.emit = emit
        self.namespace.on_event = on_event

    async def connect(self, sid: str, token: str, cookie: str, auth: dict) -> None:
        environ = {
            "QUERY_STRING": f"EIO=4&transport=websocket&token={token}",
            "asgi.scope": {
                "headers": [(b"host", b"localhost"), (b"cookie", cookie.encode())],
                "client": ("127.0.0.1", 1),
            },
        }
        await self.namespace.on_connect(sid, environ, auth)

    async def disconnect(self, sid: str) -> None:
        task = self.namespace.on_disconnect(sid)
        if task is not None:
            await task

    def new_tokens(self, sid: str) -> list[object]:
        return [data for event, data, to in self.sent if event == "new_token" and to == sid]

    def token_of(self, sid: str) -> str | None:
        return self.namespace._token_manager.sid_to_token.get(sid)

    def socket_of(self, token: str) -> str | None:
        record = self.namespace._token_manager.token_to_socket.get(token)
        return record.sid if record is not None else None


def _tab() -> str:
    return str(uuid.uuid4())


async def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


def test_a_reconnect_takes_its_token_back_from_its_old_socket_and_its_old_socket_leaving_changes_nothing():
    async def scenario():
        worker, tab = Worker(LocalTokenManager()), _tab()
        await worker.connect("old", tab, SIGNED_IN, FIRST)
        await worker.connect("new", tab, SIGNED_IN, AGAIN)  # the server has not noticed "old" dropped
        assert worker.new_tokens("new") == []  # the page keeps its token, so its state
        assert worker.token_of("new") == tab and worker.socket_of(tab) == "new"
        assert worker.handled == ["old", "new"]  # the boot event is processed, on the kept token
        # The old socket got a token of its own: a copy of the tab still open would go on with a state of its own.
        [given] = worker.new_tokens("old")
        assert given != tab and worker.token_of("old") == given
        await worker.disconnect("old")  # the server notices at last
        assert worker.token_of("new") == tab and worker.socket_of(tab) == "new"
        assert worker.socket_of(given) is None

    run_async(scenario())


def test_a_copied_tab_and_a_reconnect_of_another_session_still_get_a_new_token():
    async def scenario():
        worker, tab = Worker(LocalTokenManager()), _tab()
        await worker.connect("tab", tab, SIGNED_IN, FIRST)
        await worker.connect("copy", tab, SIGNED_IN, FIRST)  # a duplicated tab's first connection sends the hashes
        await worker.connect("stranger", tab, OTHER_SESSION, AGAIN)  # knows the token, not the session cookie
        await worker.connect("anonymous", tab, "mayor_de_edad=1", AGAIN)
        for sid in ("copy", "stranger", "anonymous"):
            [given] = worker.new_tokens(sid)
            assert given != tab and worker.token_of(sid) == given
        assert worker.socket_of(tab) == "tab" and worker.new_tokens("tab") == []

    run_async(scenario())


def test_reflex_alone_gives_a_reconnect_a_new_token_while_its_old_socket_is_open():
    """Why app.web.reconnects exists: Reflex 0.10.1's connect takes the reconnect for a copied tab. When an upgrade
    of Reflex makes this test fail, the wrapper can go."""

    async def scenario():
        worker, tab = Worker(LocalTokenManager()), _tab()
        worker.namespace.on_connect = lambda sid, environ, auth: observe._reflex_on_connect(
            worker.namespace, sid, environ, auth
        )
        await worker.connect("old", tab, SIGNED_IN, FIRST)
        await worker.connect("new", tab, SIGNED_IN, AGAIN)
        [given] = worker.new_tokens("new")
        assert given != tab and worker.token_of("new") == given

    run_async(scenario())


def test_with_redis_a_reconnect_on_the_same_worker_keeps_its_token_and_the_record_in_redis_follows():
    url = empty_redis()

    async def scenario():
        manager = RedisTokenManager(aioredis.Redis.from_url(url))
        worker, tab = Worker(manager), _tab()
        try:
            await worker.connect("old", tab, SIGNED_IN, FIRST)
            await worker.connect("new", tab, SIGNED_IN, AGAIN)
            assert worker.new_tokens("new") == [] and worker.socket_of(tab) == "new"
            assert (await manager._fetch_socket_record(tab)).sid == "new"
            await worker.disconnect("old")
            assert (await manager._fetch_socket_record(tab)).sid == "new"
            assert await manager.is_token_connected(tab)
        finally:
            await manager.close()

    run_async(scenario())


def test_with_redis_a_reconnect_on_another_worker_keeps_its_token_and_the_first_worker_lets_go():
    url = empty_redis()

    async def scenario():
        states = StateManagerRedis(redis=aioredis.Redis.from_url(url))
        first = Worker(RedisTokenManager(aioredis.Redis.from_url(url)), states)
        second = Worker(RedisTokenManager(aioredis.Redis.from_url(url)), states)
        tab, stranger_tab = _tab(), _tab()
        try:
            for token in (tab, stranger_tab):
                await first.connect(f"old-{token}", token, SIGNED_IN, FIRST)
                # The tab's events keep its connection's headers in its state, as Reflex's processor does.
                async with states.modify_state(BaseStateToken(ident=token, cls=State)) as state:
                    state.router_data = {constants.RouteVar.HEADERS: {"cookie": SIGNED_IN}}
            await second.connect("new", tab, SIGNED_IN, AGAIN)
            await second.connect("stranger", stranger_tab, OTHER_SESSION, AGAIN)
            assert second.new_tokens("new") == [] and second.socket_of(tab) == "new"
            assert len(second.new_tokens("stranger")) == 1 and second.socket_of(stranger_tab) != "stranger"
            # The first worker learns from Redis that its socket no longer holds the tab.
            await _until(lambda: first.token_of(f"old-{tab}") is None, "the first worker still links its old socket")
            await first.disconnect(f"old-{tab}")
            record = await second.namespace._token_manager._fetch_socket_record(tab)
            assert record.sid == "new" and record.instance_id == second.namespace._token_manager.instance_id
            assert first.token_of(f"old-{stranger_tab}") == stranger_tab  # another session's reconnect took nothing
        finally:
            for worker in (first, second):
                await worker.namespace._token_manager.close()
            await states.redis.aclose()

    run_async(scenario())


def test_with_the_tabs_state_out_of_reach_a_reconnect_on_another_worker_still_connects_with_a_new_token():
    """The first worker's socket session can only be read off the tab's state: when that read fails, the
    reconnect is left to Reflex (a new token) and its connection goes on."""
    url = empty_redis()

    async def scenario():
        unreachable = StateManagerRedis(redis=aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0"))
        first = Worker(RedisTokenManager(aioredis.Redis.from_url(url)), unreachable)
        second = Worker(RedisTokenManager(aioredis.Redis.from_url(url)), unreachable)
        tab = _tab()
        try:
            await first.connect("old", tab, SIGNED_IN, FIRST)
            await second.connect("new", tab, SIGNED_IN, AGAIN)
            [given] = second.new_tokens("new")
            assert given != tab and second.token_of("new") == given and second.handled == ["new"]
            assert first.socket_of(tab) == "old"
        finally:
            for worker in (first, second):
                await worker.namespace._token_manager.close()
            await unreachable.redis.aclose()

    run_async(scenario())
