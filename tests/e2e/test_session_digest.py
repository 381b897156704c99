"""The session digest stays on the server, seen from a real browser.

The handshake middleware gives Reflex the digest of the session cookie in
place of the cookie (``app.web.cookies``). Reflex copies the request's headers
into the tab's router data and sends the router data to the page; the digest
must not come along: not in any websocket frame the page receives, not in the
answer to an upload.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, WebSocket, expect

from app.identity.local import LocalProvider
from app.identity.sessions import SESSION_COOKIE, digest
from app.models import ProfileId
from app.web.cookies import UPLOAD_PATH
from tests.e2e.conftest import Site
from tests.e2e.test_accounts import PASSWORD, sign_in
from tests.factories import make_account, make_listing

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_earlier_attempts")]

MY_LISTINGS = "/my/publicacion/misPublicaciones"
# Names the digest has had on its way to Reflex: none may reach the page.
DIGEST_NAMES = ("x-sesion-hash", "sesion-hash", "sesion_hash")


def _photo(folder: Path) -> Path:
    buffer = io.BytesIO()
    Image.new("RGB", (600, 800), (120, 120, 120)).save(buffer, "JPEG")
    path = folder / "yo.jpg"
    path.write_bytes(buffer.getvalue())
    return path


def _received_frames(page: Page) -> list[str]:
    """Every websocket frame this page receives from now on, as text."""
    frames: list[str] = []

    def watch(socket: WebSocket) -> None:
        socket.on(
            "framereceived", lambda payload: frames.append(payload if isinstance(payload, str) else payload.decode())
        )

    page.on("websocket", watch)
    return frames


def test_the_page_never_receives_the_session_digest(page: Page, site: Site, db, tmp_path):
    user = make_account(
        db, LocalProvider(engine=db.get_bind()), "huella@correo.cl", profile=ProfileId.PROFESOR, password=PASSWORD
    )
    make_listing(db, user, name="Helena Huella", city="copiapo", tier="chicas-del-dia")
    frames = _received_frames(page)
    sign_in(page, "huella@correo.cl")
    page.wait_for_url(f"{site.url}{MY_LISTINGS}**")
    expect(page.get_by_role("heading", name="Mis publicaciones", level=1)).to_be_visible()
    token = {c["name"]: c["value"] for c in page.context.cookies()}[SESSION_COOKIE]
    card = page.get_by_role("article", name="Helena Huella")
    expect(card).to_be_visible()

    # A guarded upload: the verification photo goes to POST /_upload with the session cookie.
    card.get_by_role("button", name="Verificar").click()
    dialog = page.get_by_role("dialog")
    with page.expect_response(lambda answer: answer.url.endswith(UPLOAD_PATH)) as uploaded:
        dialog.locator("input[type=file]").set_input_files(str(_photo(tmp_path)))
    expect(dialog.get_by_role("status").filter(has_text="Estado de tu solicitud")).to_contain_text("Solicitada")
    answer = uploaded.value
    assert answer.status == 200
    upload_text = answer.text() + repr(answer.all_headers())

    received = "\n".join(frames)
    # The scan sees the tab's state as Reflex sends it, router headers included, and the upload's deltas.
    assert "rx_router_headers" in received
    assert "verification_label" in upload_text
    secret = digest(token)
    assert secret not in received, "the websocket brought the session digest to the page"
    assert secret not in upload_text, "the upload answer brought the session digest to the page"
    for name in DIGEST_NAMES:
        assert name not in received.lower() and name not in upload_text.lower(), name
    assert token not in received and token not in upload_text
