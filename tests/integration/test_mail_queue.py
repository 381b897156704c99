"""The mail queue: requests queue a message (a row and its job) and return; a worker delivers it."""

from __future__ import annotations

import logging

from sqlmodel import select

from app.models import OutgoingMail
from app.services.mail import deliver, queue_email
from tests.ports import free_port
from tests.waits import wait_until_sent


def test_queue_email_only_queues_and_a_worker_delivers(db, smtp_to, smtp_server):
    port, box = smtp_server
    smtp_to(port)
    queue_email(to="lenta@correo.cl", subject="Hola", body="Cuerpo")  # a row and a job: no SMTP connection
    assert box.to("lenta@correo.cl") == []
    assert [m.to for m in db.exec(select(OutgoingMail)).all()] == ["lenta@correo.cl"]
    wait_until_sent()
    assert [m["Subject"] for m in box.to("lenta@correo.cl")] == ["Hola"]
    db.expire_all()
    assert db.exec(select(OutgoingMail)).all() == []  # delivered, then forgotten


def test_a_failed_delivery_is_logged_masked_and_the_next_message_goes_out(db, smtp_to, smtp_server, caplog):
    smtp_to(free_port())  # nothing listens there
    with caplog.at_level(logging.INFO):
        queue_email(to="perdida@correo.cl", subject="x", body="y")
        wait_until_sent()
    assert "pe***@correo.cl" in caplog.text
    assert "perdida@correo.cl" not in caplog.text  # nor in the queue's own log lines: its jobs carry a uid only
    port, box = smtp_server
    smtp_to(port)
    queue_email(to="siguiente@correo.cl", subject="Sigue", body="y")
    wait_until_sent()
    assert [m["Subject"] for m in box.to("siguiente@correo.cl")] == ["Sigue"]
    assert box.to("perdida@correo.cl") == []  # its retry waits for its time


def test_a_message_delivered_once_is_not_sent_again_by_a_second_run(db, smtp_to, smtp_server):
    port, box = smtp_server
    smtp_to(port)
    queue_email(to="una-vez@correo.cl", subject="Una", body="y")
    [message] = db.exec(select(OutgoingMail)).all()
    deliver(session=db, mail_uid=message.uid)
    deliver(session=db, mail_uid=message.uid)  # the job run again (its worker died after sending)
    assert len(box.to("una-vez@correo.cl")) == 1
