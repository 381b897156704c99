"""GET /mi-cuenta/datos/{token} through Starlette's TestClient on the app's own API: the export's ZIP goes only
to its owner's signed-in browser while the link is valid, never cached; a browser without a session gets the
site's page asking to sign in (coming back to the link), and any other account the same 404 page."""

from __future__ import annotations

import email
import io
import json
import zipfile
from datetime import timedelta

import pytest
from sqlmodel import select
from starlette.testclient import TestClient

from app.identity.sessions import SESSION_COOKIE
from app.models import DataExport, ProfileId, utc_now
from app.routes import DATA_EXPORT_PREFIX, MY_ACCOUNT
from app.services import privacy
from app.storage.factory import get_private_storage, get_storage
from app.web.private_api import PENDING_EXPORT_COOKIE
from tests.factories import actor_of, make_account, open_session
from tests.integration.test_privacy import LINK
from tests.waits import wait_until_sent

pytestmark = pytest.mark.integration


def _get(client: TestClient, token: str, session_token: str | None):
    headers = {"Cookie": f"{SESSION_COOKIE}={session_token}"} if session_token else {}
    return client.get(f"{DATA_EXPORT_PREFIX}/{token}", headers=headers)


def _assert_refused(response) -> None:
    assert response.status_code == 404
    assert "Este enlace no es válido o ya venció" in response.text
    assert response.headers["cache-control"] == "private, no-store"


def _assert_asked_to_sign_in(response, token: str) -> None:
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "private, no-store"
    assert "Inicia sesión para descargar tus datos" in response.text
    # Sign-in comes back to /mi-cuenta/datos, which the cookie (seen by nothing else) sends on to the link.
    assert f'href="/login?volver={DATA_EXPORT_PREFIX}"' in response.text and token not in response.text
    assert response.cookies[PENDING_EXPORT_COOKIE] == token
    kept = response.headers["set-cookie"].lower()
    assert f"path={DATA_EXPORT_PREFIX}" in kept and "httponly" in kept and "samesite=lax" in kept
    assert "no es válido" not in response.text  # it tells nothing of the link


def test_the_export_link_serves_the_owner_alone_while_valid(http_client, http_db, provider, tmp_path):
    owner = make_account(http_db, provider, "mia@example.cl", profile=ProfileId.CLIENTE)
    other = make_account(http_db, provider, "ajena@example.cl", profile=ProfileId.CLIENTE)
    privacy.request_export(session=http_db, actor=actor_of(owner))
    assert privacy.build_next_export(session=http_db, storage=get_storage(), private_storage=get_private_storage())
    wait_until_sent()
    (mail,) = list((tmp_path / "outbox").iterdir())
    body = email.message_from_bytes(mail.read_bytes()).get_payload(decode=True).decode()
    token = LINK.search(body).group(1)
    mine, theirs = open_session(http_db, owner.uid), open_session(http_db, other.uid)

    answer = _get(http_client, token, mine)
    assert answer.status_code == 200, (answer.text, answer.url)
    assert answer.headers["content-type"] == "application/zip"
    assert answer.headers["cache-control"] == "private, no-store"
    assert "attachment" in answer.headers["content-disposition"]
    # Streamed from the storage with its length said ahead, not recompressed on the way (the http_client accepts gzip).
    stored = get_private_storage().size(http_db.exec(select(DataExport)).one().storage_key)
    assert answer.headers["content-length"] == str(stored) == str(len(answer.content))
    assert "content-encoding" not in answer.headers
    exported = json.loads(zipfile.ZipFile(io.BytesIO(answer.content)).read("datos.json"))
    assert exported["cuenta"]["email"] == "mia@example.cl"

    _assert_asked_to_sign_in(_get(http_client, token, None), token)  # not signed in
    _assert_asked_to_sign_in(_get(http_client, "no-existe-" * 3, None), "no-existe-" * 3)  # the same for any link
    _assert_refused(_get(http_client, token, theirs))  # another account
    _assert_refused(_get(http_client, token[:-1] + ("A" if token[-1] != "A" else "B"), mine))  # a guessed token
    export = http_db.exec(select(DataExport)).one()
    export.expires_at = utc_now() - timedelta(seconds=1)
    http_db.add(export)
    http_db.commit()
    _assert_refused(_get(http_client, token, mine))  # expired


def test_after_sign_in_the_browser_goes_on_to_the_link_it_opened(http_client):
    token = "Abc_def-123" * 4
    back = http_client.get(
        DATA_EXPORT_PREFIX, headers={"Cookie": f"{PENDING_EXPORT_COOKIE}={token}"}, follow_redirects=False
    )
    # The site's page, which opens the link at once and offers it as a button: the download starts under it.
    assert back.status_code == 200 and "Tu descarga está comenzando" in back.text
    assert f'<meta http-equiv="refresh" content="0; url={DATA_EXPORT_PREFIX}/{token}">' in back.text
    assert f'href="{DATA_EXPORT_PREFIX}/{token}"' in back.text
    assert back.headers["cache-control"] == "private, no-store"
    assert f'{PENDING_EXPORT_COOKIE}=""' in back.headers["set-cookie"]  # cleared
    # Without the cookie, or with anything but a token in it: Mi cuenta.
    for cookie in ("", f"{PENDING_EXPORT_COOKIE}=//evil.example", f"{PENDING_EXPORT_COOKIE}=a/../b"):
        plain = http_client.get(
            DATA_EXPORT_PREFIX, headers={"Cookie": cookie} if cookie else {}, follow_redirects=False
        )
        assert plain.status_code == 303 and plain.headers["location"] == MY_ACCOUNT
