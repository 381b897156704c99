"""Outgoing e-mail: SMTP when SMTP_HOST is configured, otherwise a local outbox folder.

TLS (STARTTLS, or implicit with SMTP_SSL) always verifies the server's
certificate and host name, against SMTP_TLS_CA_FILE when set.

The outbox (OUTBOX_DIR, ``data/outbox`` by default) receives one ``.eml``
file per message so a developer can open the verification and reset links
without a mail server.

Requests never wait for the mail server: a message is a ``mail.send`` job of the task queue
(app.task_queue, app.tasks), queued in the transaction of the write that justifies it
(:func:`queue_mail`, :func:`send_after_commit`; a verification link for a new account leaves exactly
when the account was committed), so an answer takes the same time whether or not a message goes out
(no account enumeration by timing) and a slow or absent server slows nobody down. A worker delivers it
with :func:`send_email`; a failed delivery is retried with backoff for about half an hour, then stays
failed on the staff's queue page.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from datetime import timedelta
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import make_msgid

from sqlmodel import Session, col, select

from app import metrics
from app.core.errors import ServiceError
from app.core.text import mask_email
from app.db import Transaction, commit, session_scope
from app.models.base import new_uid, utc_now
from app.models.jobs import OutgoingMail
from app.settings import Settings, get_settings
from app.task_queue import MAIL, defer

log = logging.getLogger(__name__)


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


def queue_mail(session: Session, *, to: str, subject: str, body: str) -> None:
    """E-mail a message that the writes of ``session``'s open transaction justify: the message (a
    ``correo_saliente`` row) and its ``mail.send`` job are written in that transaction (app.task_queue),
    so it leaves once they commit, never if they roll back."""
    message = OutgoingMail(to=to, subject=subject, body=body)
    session.add(message)
    session.flush()
    defer(session, MAIL, mail_uid=message.uid)


def deliver(*, session: Session, mail_uid: str, last_attempt: bool = True) -> None:
    """Send one queued message and forget it; MailError leaves it queued for the job's next attempt.

    A message already delivered (a job run twice) is not there any more, and nothing is sent. Each attempt
    is counted in escorts_mail_messages_total (app.metrics): sent, retried (the job tries again later) or,
    on the ``last_attempt``, failed.
    """
    message = session.get(OutgoingMail, mail_uid)
    if message is None:
        return
    try:
        send_email(to=message.to, subject=message.subject, body=message.body)
    except MailError:
        metrics.MAIL_MESSAGES.labels(metrics.FAILED if last_attempt else metrics.RETRIED).inc()
        raise
    metrics.MAIL_MESSAGES.labels(metrics.SENT).inc()
    session.delete(message)
    commit(session)


def requeue_undelivered() -> int:
    """Queue a job again for every message still waiting: the in-memory queue of the embedded default
    forgot them when the app stopped (their rows did not). Return how many."""
    with session_scope() as session:
        waiting = session.exec(select(OutgoingMail.uid)).all()
        for mail_uid in waiting:
            defer(session, MAIL, mail_uid=mail_uid)
        commit(session)
    return len(waiting)


def forget_undelivered(*, older_than: timedelta) -> int:
    """Delete the messages still undelivered after ``older_than`` (their jobs failed long ago); return how many."""
    with session_scope() as session:
        stale = session.exec(select(OutgoingMail).where(col(OutgoingMail.created_at) < utc_now() - older_than)).all()
        for message in stale:
            session.delete(message)
        commit(session)
    return len(stale)


def send_after_commit(tx: Transaction, *, to: str, subject: str, body: str) -> None:
    """:func:`queue_mail` in the unit of work ``tx`` (app.db.transaction)."""
    queue_mail(tx.session, to=to, subject=subject, body=body)


def queue_email(*, to: str, subject: str, body: str) -> None:
    """Queue a message that no write of the caller's justifies (an alert, a notice about a request): at once."""
    with session_scope() as session:
        queue_mail(session, to=to, subject=subject, body=body)
        commit(session, "No pudimos enviar el correo. Inténtalo de nuevo en unos minutos.")
