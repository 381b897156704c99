"""Photo uploads carry their session: POST /_upload hands Reflex's upload endpoint the request's cookie digest.

Reflex dispatches an upload handler with no routing data, so without
``app.web.cookies.upload_endpoint`` a guarded upload handler would
see no session (or, trusting tab state, anyone holding the tab token would
pass). Driven through the app's own HTTP routes with Starlette's TestClient,
with real sessions on PostgreSQL; the event processor is replaced by one that
records what it was given.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from reflex_base.constants import Endpoint, RouteVar
from reflex_base.registry import RegistrationContext
from starlette.testclient import TestClient

import app.app as reflex_module
from app.identity.sessions import DIGEST_COOKIE, SESSION_COOKIE, cookie_value, digest
from app.states.advertiser.wizard import WizardState
from app.web.api import build_api
from app.web.cookies import MAX_UPLOAD_BYTES, UPLOAD_PATH
from tests.factories import make_owner, open_session

SAME_ORIGIN = {"Origin": "http://testserver"}


class RecordingProcessor:
    """Stands in for Reflex's event processor: keeps each event and streams no updates."""

    def __init__(self) -> None:
        self.events: list = []

    async def enqueue_stream_delta(self, token: str, event) -> Iterator[dict]:
        self.events.append((token, event))
        for update in ():
            yield update


@pytest.fixture
def processor(monkeypatch) -> RecordingProcessor:
    recording = RecordingProcessor()
    monkeypatch.setattr(type(reflex_module.app), "event_processor", property(lambda _: recording))
    return recording


def _handler_name() -> str:
    names = [name for name in RegistrationContext.get().event_handlers if name.endswith(".upload_photos")]
    assert len(names) == 1, names
    assert WizardState.get_name() in names[0]
    return names[0]


def _post(client: TestClient, headers: dict, cookie: str = ""):
    """An upload from the browser holding session ``cookie``, and a digest cookie a script could have set."""
    if cookie:
        client.cookies.set(SESSION_COOKIE, cookie)
    client.cookies.set(DIGEST_COOKIE, "forged")
    return client.post(
        UPLOAD_PATH,
        headers={"Reflex-Client-Token": "tab-token", "Reflex-Event-Handler": _handler_name(), **headers},
        files={"files": ("foto.jpg", b"not really a photo", "image/jpeg")},
    )


def test_the_upload_path_is_reflexs():
    assert str(Endpoint.UPLOAD) == UPLOAD_PATH


@pytest.fixture
def token(db) -> str:
    """A live session of an advertiser: its raw cookie value."""
    return open_session(db, make_owner(db, "duena@example.cl").uid)


def test_the_handler_sees_the_digest_of_the_requests_cookie_never_the_cookie(processor, token):
    with TestClient(build_api(reflex_module.app), base_url="http://testserver") as client:
        answer = _post(client, SAME_ORIGIN, cookie=token)
    assert answer.status_code == 200
    [(tab, event)] = processor.events
    assert tab == "tab-token"
    headers = event.router_data[RouteVar.HEADERS]
    assert cookie_value(headers["cookie"], DIGEST_COOKIE) == digest(token)
    assert "forged" not in headers["cookie"]  # the client's own digest cookie was dropped
    assert token not in repr(event.router_data)
    assert [upload.name for upload in event.payload["files"]] == ["foto.jpg"]


@pytest.mark.parametrize("cookie", ["", "sesion-inventada"])
def test_an_upload_without_a_live_session_is_refused_before_its_body_is_read(processor, db, cookie):
    with TestClient(build_api(reflex_module.app), base_url="http://testserver") as client:
        answer = _post(client, SAME_ORIGIN, cookie=cookie)
    assert answer.status_code == 403 and "vuelve a ingresar" in answer.json()["error"]
    assert processor.events == []


def test_an_upload_past_the_limit_is_refused_from_its_declared_length(processor, token):
    with TestClient(build_api(reflex_module.app), base_url="http://testserver") as client:
        client.cookies.set(SESSION_COOKIE, token)
        answer = client.post(
            UPLOAD_PATH,
            headers={**SAME_ORIGIN, "Content-Length": str(MAX_UPLOAD_BYTES + 1), "Reflex-Client-Token": "tab"},
            content=b"x",
        )
    assert answer.status_code == 413 and "15 MB" in answer.json()["error"]
    assert processor.events == []


def test_an_upload_from_another_site_is_refused(processor, token):
    with TestClient(build_api(reflex_module.app), base_url="http://testserver") as client:
        answer = _post(client, {"Origin": "https://elsewhere.example"}, cookie=token)
    assert answer.status_code == 403
    assert processor.events == []
