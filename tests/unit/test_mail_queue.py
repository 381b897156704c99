"""The background mail sender: requests hand messages over and return; delivery happens off the request."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from aiosmtpd.controller import Controller

from app.services import mail
from app.services.mail import MailError, queue_email
from app.settings import get_settings
from tests.mailbox import Mailbox
from tests.ports import free_port
from tests.waits import wait_until_sent


@pytest.fixture
def smtp_to(monkeypatch):
    """Point the app's settings at an SMTP port (and clear them again after the test)."""

    def point(port: int) -> None:
        monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("SMTP_PORT", str(port))
        monkeypatch.setenv("SMTP_STARTTLS", "false")
        get_settings.cache_clear()

    yield point
    get_settings.cache_clear()


class HeldMailbox(Mailbox):
    """A mailbox whose server does not answer DATA until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    async def handle_DATA(self, server, session, envelope):
        await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 30)
        return await super().handle_DATA(server, session, envelope)


def test_queue_email_returns_before_the_server_answers(smtp_to):
    box = HeldMailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        smtp_to(controller.port)
        queue_email(to="lenta@correo.cl", subject="Hola", body="Cuerpo")  # returns while the server holds DATA
        assert box.to("lenta@correo.cl") == []
        box.release.set()
        wait_until_sent()
        assert [m["Subject"] for m in box.to("lenta@correo.cl")] == ["Hola"]
    finally:
        box.release.set()
        controller.stop()


def test_a_failed_delivery_is_logged_masked_and_the_next_message_goes_out(smtp_to, smtp_server, caplog):
    smtp_to(free_port())  # nothing listens there
    with caplog.at_level(logging.ERROR, logger="app.services.mail"):
        queue_email(to="perdida@correo.cl", subject="x", body="y")
        wait_until_sent()
    assert "pe***@correo.cl" in caplog.text and "perdida@correo.cl" not in caplog.text
    port, box = smtp_server
    smtp_to(port)
    queue_email(to="siguiente@correo.cl", subject="Sigue", body="y")
    wait_until_sent()
    assert [m["Subject"] for m in box.to("siguiente@correo.cl")] == ["Sigue"]


def test_a_full_queue_is_refused_with_a_spanish_message(monkeypatch, smtp_to):
    box = HeldMailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    monkeypatch.setattr(mail, "QUEUE_SIZE", 1)
    monkeypatch.setattr(mail, "_sender", mail._Sender())
    try:
        smtp_to(controller.port)
        queue_email(to="a@correo.cl", subject="1", body="y")  # taken by the sender, held by the server
        with pytest.raises(MailError, match="No pudimos enviar el correo"):
            for _ in range(3):
                queue_email(to="a@correo.cl", subject="n", body="y")
    finally:
        box.release.set()
        wait_until_sent()
        controller.stop()


def test_an_outbox_holds_its_places_and_sends_only_when_told(monkeypatch, smtp_to, smtp_server):
    port, box = smtp_server
    smtp_to(port)
    monkeypatch.setattr(mail, "QUEUE_SIZE", 1)
    monkeypatch.setattr(mail, "_sender", mail._Sender())
    rolled_back = mail.Outbox()
    rolled_back.add(to="deshecho@correo.cl", subject="Nunca", body="y")
    with pytest.raises(MailError):  # its place is taken until the transaction ends
        queue_email(to="otro@correo.cl", subject="Lleno", body="y")
    rolled_back.discard()
    committed = mail.Outbox()
    committed.add(to="hecho@correo.cl", subject="Enviado", body="y")  # the place was given back
    wait_until_sent()
    assert box.to("hecho@correo.cl") == []  # nothing leaves before send()
    committed.send()
    wait_until_sent()
    assert [m["Subject"] for m in box.to("hecho@correo.cl")] == ["Enviado"]
    assert box.to("deshecho@correo.cl") == []
