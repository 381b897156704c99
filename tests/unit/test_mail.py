"""Outgoing e-mail: the outbox without SMTP, real delivery and a clear error with it."""

from __future__ import annotations

import email
import email.policy

import pytest

from app.services.mail import MailError, send_email
from app.settings import Settings
from tests.ports import free_port


def test_without_smtp_messages_land_in_the_outbox(tmp_path):
    settings = Settings(smtp_host="", outbox_dir=tmp_path / "outbox")
    send_email(to="ana@correo.cl", subject="Confirma tu correo", body="Enlace: ñandú", settings=settings)
    [path] = list((tmp_path / "outbox").glob("*.eml"))
    message = email.message_from_bytes(path.read_bytes())
    assert (message["To"], message["Subject"]) == ("ana@correo.cl", "Confirma tu correo")
    assert "ñandú" in message.get_payload(decode=True).decode()


def test_smtp_delivers_to_a_real_server(smtp_server, tmp_path):
    port, mailbox = smtp_server
    settings = Settings(smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False, outbox_dir=tmp_path / "none")
    send_email(to="bea@correo.cl", subject="Hola", body="Cuerpo", settings=settings)
    [message] = mailbox.to("bea@correo.cl")
    assert message["Subject"] == "Hola"
    assert not (tmp_path / "none").exists()


def test_an_unreachable_server_is_a_clear_error(tmp_path):
    settings = Settings(smtp_host="127.0.0.1", smtp_port=free_port(), smtp_starttls=False)
    with pytest.raises(MailError, match="No pudimos enviar el correo"):
        send_email(to="eva@correo.cl", subject="x", body="y", settings=settings)


def test_a_folded_subject_keeps_the_space_between_two_names(tmp_path):
    # Folded between «Antonia» and «Parori»: Python's own folder left that space between two encoded words.
    subject = "Comenzó la mejora «Subir» de «Antonia Parori»"
    settings = Settings(smtp_host="", outbox_dir=tmp_path / "outbox")
    send_email(to="ana@correo.cl", subject=subject, body="Hola", settings=settings)
    [path] = list((tmp_path / "outbox").glob("*.eml"))
    raw = path.read_bytes()
    assert b"\n =?utf-8?" in raw  # folded
    assert str(email.message_from_bytes(raw, policy=email.policy.default)["Subject"]) == subject
