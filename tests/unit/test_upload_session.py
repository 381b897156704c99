"""Photo uploads carry their session: POST /_upload hands Reflex's upload endpoint the request's cookie digest.

Reflex dispatches an upload handler with no routing data, so without
``app.identity.cookies.upload_with_session`` a guarded upload handler would
see no session (or, trusting tab state, anyone holding the tab token would
pass). Driven through the app's own HTTP routes with Starlette's TestClient;
the event processor is replaced by one that records what it was given.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from reflex_base.constants import Endpoint, RouteVar
from reflex_base.registry import RegistrationContext
from starlette.testclient import TestClient

import app.app as reflex_module
from app.api import build_api
from app.identity.cookies import HASH_HEADER, SESSION_COOKIE, UPLOAD_PATH
from app.identity.sessions import digest
from app.states.wizard import WizardState

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
    if cookie:
        client.cookies.set(SESSION_COOKIE, cookie)
    return client.post(
        UPLOAD_PATH,
        headers={"Reflex-Client-Token": "tab-token", "Reflex-Event-Handler": _handler_name(), **headers},
        files={"files": ("foto.jpg", b"not really a photo", "image/jpeg")},
    )


def test_the_upload_path_is_reflexs():
    assert UPLOAD_PATH == str(Endpoint.UPLOAD)


def test_the_handler_sees_the_digest_of_the_requests_cookie_never_the_cookie(processor):
    with TestClient(build_api(), base_url="http://testserver") as client:
        answer = _post(client, {**SAME_ORIGIN, HASH_HEADER: "forged"}, cookie="raw-session-token")
    assert answer.status_code == 200
    [(token, event)] = processor.events
    assert token == "tab-token"
    headers = event.router_data[RouteVar.HEADERS]
    assert headers[HASH_HEADER] == digest("raw-session-token")  # the forged header was dropped
    assert "raw-session-token" not in repr(event.router_data)
    assert [upload.name for upload in event.payload["files"]] == ["foto.jpg"]


def test_an_upload_without_a_cookie_carries_no_session(processor):
    with TestClient(build_api(), base_url="http://testserver") as client:
        answer = _post(client, {**SAME_ORIGIN, HASH_HEADER: "forged"})
    assert answer.status_code == 200
    [(_, event)] = processor.events
    assert HASH_HEADER not in event.router_data[RouteVar.HEADERS]


def test_an_upload_from_another_site_is_refused(processor):
    with TestClient(build_api(), base_url="http://testserver") as client:
        answer = _post(client, {"Origin": "https://elsewhere.example"}, cookie="raw-session-token")
    assert answer.status_code == 403
    assert processor.events == []
