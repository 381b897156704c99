"""Outgoing e-mail: SMTP when SMTP_HOST is configured, otherwise a local outbox folder.

TLS (STARTTLS, or implicit with SMTP_SSL) always verifies the server's
certificate and host name, against SMTP_TLS_CA_FILE when set.

The outbox (OUTBOX_DIR, ``data/outbox`` by default) receives one ``.eml``
file per message so a developer can open the verification and reset links
without a mail server. Sending blocks: call it off the event loop.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import make_msgid

from app.models.base import new_uid, utc_now
from app.services.errors import ServiceError
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)


class MailError(ServiceError):
    """The message could not be handed to the mail server."""


def build_message(*, to: str, subject: str, body: str, settings: Settings) -> EmailMessage:
    """A plain-text UTF-8 message from the configured sender."""
    message = EmailMessage()
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
        log.info("E-mail to %s written to %s", to, path)
        return
    try:
        with _connect(settings) as smtp:
            if settings.smtp_starttls and not settings.smtp_ssl:
                smtp.starttls(context=_tls_context(settings))
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        log.exception("SMTP delivery to %s failed", to)
        raise MailError("No pudimos enviar el correo. Inténtalo de nuevo en unos minutos.") from exc


def _tls_context(settings: Settings) -> ssl.SSLContext:
    """Verify the server's certificate and name: system CAs, or SMTP_TLS_CA_FILE."""
    return ssl.create_default_context(cafile=settings.smtp_tls_ca_file or None)


def _connect(settings: Settings) -> smtplib.SMTP:
    """A connection to the configured server: implicit TLS with SMTP_SSL, plain (for STARTTLS) otherwise."""
    if settings.smtp_ssl:
        return smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port, timeout=30, context=_tls_context(settings))
    return smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=30)
