"""A real SMTP server on loopback (aiosmtpd) that keeps every message it receives."""

from __future__ import annotations

import email
import re
import threading
import time
from email.header import decode_header, make_header
from email.message import Message

from aiosmtpd.controller import Controller

from tests.ports import free_port

LINK = re.compile(r"https?://\S+/login/accion\?\S+")


class Mailbox:
    """Messages received by the test SMTP server, in arrival order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.raw: list[bytes] = []  # the bytes of each message, as the server received them
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self._lock:
            self.messages.append(email.message_from_bytes(envelope.content))
            self.raw.append(envelope.content)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[Message]:
        """Every message sent to this address."""
        with self._lock:
            return [m for m in self.messages if m["To"] == address]

    def raw_to(self, address: str) -> list[bytes]:
        """The received bytes of every message sent to this address."""
        with self._lock:
            return [raw for raw in self.raw if email.message_from_bytes(raw)["To"] == address]

    def wait_for_subject(self, address: str, subject: str, *, timeout: float = 30.0) -> None:
        """Wait until a message to ``address`` with ``subject`` arrived (a worker of the site delivers it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if subject in [subject_of(message) for message in self.to(address)]:
                return
            time.sleep(0.1)
        seen = [subject_of(message) for message in self.to(address)]
        raise AssertionError(f"no e-mail «{subject}» reached {address} within {timeout} s; got {seen}")

    def wait_for_link(self, address: str, mode: str, *, after: int = 0, timeout: float = 20.0) -> str:
        """The action link (verifyEmail or resetPassword) of the first message to ``address`` past ``after``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.to(address)[after:]:
                body = message.get_payload(decode=True).decode()
                for link in LINK.findall(body):
                    if f"mode={mode}" in link:
                        return link
            time.sleep(0.1)
        raise AssertionError(f"no {mode} e-mail reached {address} within {timeout} s")


def subject_of(message: Message) -> str:
    """A message's Subject as a reader sees it (RFC 2047 words decoded)."""
    return str(make_header(decode_header(message["Subject"])))


def start_smtp() -> tuple[Controller, Mailbox]:
    """Start the server on a free loopback port; the caller stops the controller."""
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    return controller, mailbox
