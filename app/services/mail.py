"""Outgoing e-mail: SMTP when SMTP_HOST is configured, otherwise a local outbox folder.

TLS (STARTTLS, or implicit with SMTP_SSL) always verifies the server's
certificate and host name, against SMTP_TLS_CA_FILE when set.

The outbox (OUTBOX_DIR, ``data/outbox`` by default) receives one ``.eml``
file per message so a developer can open the verification and reset links
without a mail server.

Requests never wait for the mail server: :func:`queue_email` hands the
message to one background sender per process through a bounded queue, so an
answer takes the same time whether or not a message goes out (no account
enumeration by timing) and a slow server slows nobody down. A failed
delivery is logged; messages still queued when the process ends are lost.
:func:`send_email` sends at once and blocks.

A message that a database write justifies (a verification link for a new
account) goes through an :class:`Outbox`: adding it takes its place in the
queue at once, so a full queue fails the operation before anything is
committed, and it reaches the sender only when the transaction committed
(``Outbox.send``); a rolled-back operation gives its places back unsent.
:func:`send_after_commit` ties one message to the unit of work of app.db.
"""

from __future__ import annotations

import logging
import queue
import smtplib
import ssl
import threading
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import make_msgid

from app.core.errors import ServiceError
from app.core.text import mask_email
from app.db import Transaction
from app.models.base import new_uid, utc_now
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)

# Messages waiting for the background sender; past this the queue refuses more.
QUEUE_SIZE = 1000


class MailError(ServiceError):
    """The message could not be handed to the mail server."""


class _MailPolicy(EmailPolicy):
    """``email.policy.default``, except that a non-ASCII Subject is folded by ``email.header``.

    Python 3.11's folder may break a subject between two RFC 2047 encoded words at a space and leave
    that space outside both, where decoders drop it («AntoniaParori»). ``Header`` encodes every space
    inside a word, so the folding whitespace is the only thing a decoder removes. With ``utf8`` (an
    SMTPUTF8 delivery) headers go out unencoded and the default folder is right.
    """

    def _encodes(self, name: str, value: str) -> bool:
        return not self.utf8 and name.lower() == "subject" and not str(value).isascii()

    def _encoded(self, name: str, value: str) -> str:
        words = Header(str(value), "utf-8", maxlinelen=self.max_line_length or 78, header_name=name)
        return f"{name}: {words.encode(linesep=self.linesep)}{self.linesep}"

    def fold(self, name: str, value: str) -> str:
        """The header as it goes out: an encoded non-ASCII Subject, otherwise as ``policy.default``."""
        return self._encoded(name, value) if self._encodes(name, value) else super().fold(name, value)

    def fold_binary(self, name: str, value: str) -> bytes:
        """As :meth:`fold`, in bytes."""
        if self._encodes(name, value):
            return self._encoded(name, value).encode("ascii")
        return super().fold_binary(name, value)


MAIL_POLICY = _MailPolicy()


def build_message(*, to: str, subject: str, body: str, settings: Settings) -> EmailMessage:
    """A plain-text UTF-8 message from the configured sender."""
    message = EmailMessage(policy=MAIL_POLICY)
    message["From"] = settings.mail_from
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="escorts-chile.local")
    message.set_content(body)
    return message


def send_email(*, to: str, subject: str, body: str, settings: Settings | None = None) -> None:
    """Send one message, or write it to the outbox when no SMTP server is configured."""
    settings = settings or get_settings()
    message = build_message(to=to, subject=subject, body=body, settings=settings)
    if not settings.smtp_host:
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        path = settings.outbox_dir / f"{utc_now():%Y%m%d-%H%M%S}-{new_uid()}.eml"
        path.write_bytes(bytes(message))
        log.info("e-mail to %s written to %s", mask_email(to), path)
        return
    try:
        with _connect(settings) as smtp:
            if settings.smtp_starttls and not settings.smtp_ssl:
                smtp.starttls(context=_tls_context(settings))
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        log.exception("SMTP delivery to %s failed", mask_email(to))
        raise MailError("No pudimos enviar el correo. Inténtalo de nuevo en unos minutos.") from exc


def _tls_context(settings: Settings) -> ssl.SSLContext:
    """Verify the server's certificate and name: system CAs, or SMTP_TLS_CA_FILE."""
    return ssl.create_default_context(cafile=settings.smtp_tls_ca_file or None)


def _connect(settings: Settings) -> smtplib.SMTP:
    """A connection to the configured server: implicit TLS with SMTP_SSL, plain (for STARTTLS) otherwise."""
    if settings.smtp_ssl:
        return smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port, timeout=30, context=_tls_context(settings))
    return smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=30)


class _Sender:
    """One daemon thread sending queued messages in order; started by the first message.

    At most QUEUE_SIZE messages wait, counting places reserved by open
    transactions (:class:`Outbox`); the message being sent does not count.
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[str, str, str, Settings]] = queue.Queue()
        self._places = threading.Semaphore(QUEUE_SIZE)
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def reserve(self) -> None:
        """Take a place in the queue for a message handed over later; queue.Full when none is left."""
        if not self._places.acquire(blocking=False):
            raise queue.Full

    def release(self) -> None:
        """Give back a place taken by :meth:`reserve` whose message will not be sent."""
        self._places.release()

    def put_reserved(self, message: tuple[str, str, str, Settings]) -> None:
        """Hand over a message whose place :meth:`reserve` took; never blocks, never refuses."""
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="mail-sender", daemon=True)
                self._thread.start()
        self._queue.put_nowait(message)

    def put(self, message: tuple[str, str, str, Settings]) -> None:
        self.reserve()
        self.put_reserved(message)

    def _run(self) -> None:
        while True:
            to, subject, body, settings = self._queue.get()
            self._places.release()  # taken off the queue: the next message may wait in its place
            try:
                send_email(to=to, subject=subject, body=body, settings=settings)
            except MailError:
                pass  # send_email logged it
            except Exception:  # the sender must outlive any one message
                log.exception("sending an e-mail to %s failed", mask_email(to))
            finally:
                self._queue.task_done()  # what tests wait on (queue.Queue counts unfinished messages)


_sender = _Sender()


def _queue_full(to: str) -> MailError:
    log.error("mail queue full: refusing an e-mail to %s", mask_email(to))
    return MailError("No pudimos enviar el correo. Inténtalo de nuevo en unos minutos.")


def queue_email(*, to: str, subject: str, body: str) -> None:
    """Have the background sender deliver a message with the current settings; returns at once.

    Raises MailError when the queue is full (the mail server has been failing for a while).
    """
    try:
        _sender.put((to, subject, body, get_settings()))
    except queue.Full as exc:
        raise _queue_full(to) from exc


class Outbox:
    """The messages of one transaction: each takes its place in the queue when added, and leaves on send().

    ``add`` raises MailError when the queue is full, while the transaction can
    still roll back; ``send`` (after the commit) cannot fail; ``discard``
    (after a rollback) gives the places back and sends nothing.
    """

    def __init__(self) -> None:
        self._messages: list[tuple[_Sender, tuple[str, str, str, Settings]]] = []

    def add(self, *, to: str, subject: str, body: str) -> None:
        """Reserve a place for this message (MailError if the queue is full); it is sent by send()."""
        sender = _sender
        try:
            sender.reserve()
        except queue.Full as exc:
            raise _queue_full(to) from exc
        self._messages.append((sender, (to, subject, body, get_settings())))

    def send(self) -> None:
        """Hand every message to the background sender (the transaction committed)."""
        messages, self._messages = self._messages, []
        for sender, message in messages:
            sender.put_reserved(message)

    def discard(self) -> None:
        """Send nothing and give the places back (the transaction rolled back)."""
        messages, self._messages = self._messages, []
        for sender, _message in messages:
            sender.release()


def send_after_commit(tx: Transaction, *, to: str, subject: str, body: str) -> None:
    """E-mail a message that a write in ``tx`` justifies: it leaves once ``tx`` commits, never if it rolls back.

    Its place in the queue is taken now, so a full queue raises MailError while ``tx`` can still roll back.
    """
    outbox = Outbox()
    outbox.add(to=to, subject=subject, body=body)
    tx.after_commit(outbox.send)
    tx.on_rollback(outbox.discard)
