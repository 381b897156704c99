"""The subject of every notice reaches a mail client word for word (issue 33, advertisers 9).

Each notice kind of app.content.notices is rendered with listing names long enough, and accented
enough, that the Subject header is folded over several lines; the message goes through the real
SMTP path (app.services.mail.send_email to the loopback aiosmtpd server). The subject is then read
as a mail client reads it: from the stdlib parser, and from the raw bytes the server received,
encoded word by encoded word (RFC 2047: whitespace between two encoded words is not part of the text).
"""

from __future__ import annotations

import email
import re
import uuid
from email import policy
from email.header import decode_header, make_header

import pytest

from app.content.notices import NOTICES, NoticeKind, render_notice
from app.services.mail import send_email
from app.settings import Settings

WORDS = (
    "Antonia",
    "Parori",
    "Ámbar",
    "Solís",
    "María",
    "José",
    "Fernández",
    "Ñuñoa",
    "Gutiérrez",
    "de",
    "la",
    "Fuente",
)
# Two words up to all of them: subjects from one short line to three folded ones.
NAMES = ("Antonia Parori", "Ámbar Solís", *(" ".join(WORDS[:count]) for count in range(3, len(WORDS) + 1)))
UPGRADES = ("Subir", "Destacado en portada")
# RFC 5322 §2.1.1: a line should have at most 78 characters, without its CRLF.
LINE_LIMIT = 78


def _values(listing: str, upgrade: str) -> dict[str, object]:
    """Everything any notice's text asks for."""
    return {
        "listing": listing,
        "upgrade": upgrade,
        "reason": "Las fotos no se ven bien.",
        "reference": "MJ-4821",
        "amount": "$59.990",
        "instructions": "Transferencia a Banco de Prueba",
        "unpaid_days": 7,
        "starts": "1 de diciembre de 2026",
        "ends": "31 de diciembre de 2026",
        "expires": "3 de diciembre de 2026",
        "deletion": "15 de diciembre de 2026",
        "idle_days": 60,
        "keep_days": 90,
        "site_name": "Escorts Chile",
        "link": "https://escorts.example.cl/my/publicacion/misPublicaciones",
        "preferences_link": "https://escorts.example.cl/my/cuenta/avisos",
    }


def _raw_subject(raw: bytes) -> tuple[list[str], str]:
    """The Subject header's lines as received, and its text decoded from them word by word."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0].decode("ascii")
    lines = re.search(r"^Subject: .*(?:\r?\n[ \t].*)*", head, re.MULTILINE).group(0).splitlines()
    unfolded = "".join(lines).removeprefix("Subject: ")
    return lines, str(make_header(decode_header(unfolded)))


@pytest.mark.parametrize("kind", list(NoticeKind), ids=[kind.value for kind in NoticeKind])
def test_every_notice_subject_arrives_with_its_spaces(kind, smtp_server, tmp_path):
    port, mailbox = smtp_server
    settings = Settings(smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False, outbox_dir=tmp_path / "none")
    address = f"asunto-{uuid.uuid4().hex[:10]}@example.cl"
    subjects = [render_notice(kind, _values(name, upgrade))[0] for name in NAMES for upgrade in UPGRADES]
    for subject in subjects:
        send_email(to=address, subject=subject, body="Hola", settings=settings)

    raws = mailbox.raw_to(address)
    assert len(raws) == len(subjects)
    folded = 0
    for subject, raw in zip(subjects, raws, strict=True):
        # A mail client's parser.
        assert str(email.message_from_bytes(raw, policy=policy.default)["Subject"]) == subject
        # The bytes on the wire: short lines, and the same words once the encoded words are decoded.
        lines, decoded = _raw_subject(raw)
        assert decoded == subject
        assert all(len(line) <= LINE_LIMIT for line in lines), lines
        folded += len(lines) > 1
    assert folded, f"no subject of {NOTICES[kind].label!r} was long enough to fold"
