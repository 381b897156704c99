"""No service or identity module writes an e-mail's text (issue 34, item 2): every subject and body is in
``app/content`` (``mail.py``, ``notices.py``), and services and identity adapters only call it.

The scan refuses, in ``app/services`` and ``app/identity``, a ``subject=`` or ``body=`` given as text, a
``subject``/``body`` variable set to text, and a text opening with a mail's greeting ("Hola:", "Hola, …:\\n").
It is proved on a small example first, so a scan that no longer sees anything cannot pass unnoticed."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from app.content import mail
from app.identity.local import ACTION_MAILS, CODE_LIFETIME
from app.models import ActionPurpose
from app.services.privacy import EXPORT_LINK_LIFETIME

APP = Path(__file__).resolve().parents[2] / "app"
SCANNED = ("services", "identity")
MAIL_PARTS = {"subject", "body"}
# A mail's greeting: "Hola:" then a blank line, or "Hola, {name}:" and a line break.
_GREETING = re.compile(r"^Hola(:|,[^\n]*:\n)")


def _is_text(node: ast.AST | None) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _text(node: ast.AST) -> str:
    """A text literal as written, each ``{…}`` of an f-string as ``{}``; "" for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return ""


def inline_mail_texts(source: str) -> list[int]:
    """The lines of ``source`` where an e-mail's subject or body is written as text."""
    return sorted(set(_inline(source)))


def _inline(source: str) -> Iterator[int]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in MAIL_PARTS and _is_text(node.value):
            yield node.value.lineno
        elif isinstance(node, ast.Assign | ast.AnnAssign) and _is_text(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {target.id for target in targets if isinstance(target, ast.Name)}
            if any(part in name.lower() for name in names for part in MAIL_PARTS):
                yield node.lineno
        elif isinstance(node, ast.Constant | ast.JoinedStr) and _GREETING.match(_text(node)):
            yield node.lineno


def test_the_scan_finds_each_way_of_writing_a_mail_inline():
    example = (
        'queue_email(to=a, subject="Hola", body=b)\n'
        'send(to=a, subject=s, body=f"Tu cuenta {x}")\n'
        'subject = f"Reporte urgente: {kind}"\n'
        'text = ("Hola:\\n\\nTu publicación", "x")\n'
        'alert = f"Hola, {name}:\\n\\nLlegó"\n'
        'whatsapp = f"Hola {name}, vi tu aviso"\n'  # not an e-mail: no greeting of one
        "queue_email(to=a, subject=subject, body=body)\n"
    )
    assert inline_mail_texts(example) == [1, 2, 3, 4, 5]


def test_no_service_or_identity_module_writes_a_mail_text():
    scanned = [path for package in SCANNED for path in sorted((APP / package).rglob("*.py"))]
    assert len(scanned) > 20
    found = [
        f"{path.relative_to(APP)}:{line}"
        for path in scanned
        for line in inline_mail_texts(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_texts_module_is_where_the_greetings_are():
    """The scan's greeting is the one the texts open with, so it would see a text moved back into a service."""
    greetings = [
        mail.verify_email("https://x", timedelta(hours=24))[1],
        mail.account_deleted()[1],
        mail.second_factor_reset()[1],
    ]
    assert all(_GREETING.match(body) for body in greetings)
    report = mail.urgent_report(name="Ana", kind="k", received="r", listing="", listing_path="", desk_path="/d")
    assert _GREETING.match(report[1])


def test_each_one_time_link_mail_states_the_lifetime_its_code_has():
    """The hours in the text are the code's own lifetime (CODE_LIFETIME), so changing one changes the other."""
    assert CODE_LIFETIME[ActionPurpose.RESET_PASSWORD] == timedelta(hours=1)
    for purpose, text in ACTION_MAILS.items():
        hours = int(CODE_LIFETIME[purpose].total_seconds() // 3600)
        body = text("https://x", CODE_LIFETIME[purpose])[1]
        assert f"(vale por {hours} hora{'s' if hours != 1 else ''} y" in body
    assert "(vale por 3 horas y" in mail.verify_email("https://x", timedelta(hours=3))[1]
    assert "(48 horas)" in mail.data_export_ready("https://x", "lunes", EXPORT_LINK_LIFETIME)[1]
