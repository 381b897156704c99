"""The check of the e2e sites' logs (tests/e2e/server_log.py) finds what it is there to find."""

from __future__ import annotations

import json
from email.message import EmailMessage

from tests.e2e.server_log import log_problems, secrets_of_mail


def _line(message: str) -> str:
    return json.dumps({"level": "INFO", "logger": "app", "message": message})


def test_a_secret_in_any_line_and_a_line_that_is_not_json_are_both_found():
    text = "\n".join([_line("signed in: user Ab12"), _line("code 123456 refused"), "[ERROR] worker died"])
    problems = log_problems(text, {"123456", "never-logged-secret"})
    assert len(problems) == 2
    assert problems[0].startswith("'123456' in line 2")
    assert problems[1].startswith("line 3 is not a JSON object")


def test_a_code_is_not_found_inside_a_longer_number():
    assert log_problems(_line("took 11234567.5 ms, 0.123456 s"), {"123456"}) == []


def test_the_recipient_and_the_link_tokens_of_a_mail_are_secrets():
    message = EmailMessage()
    message["To"] = "ana@correo.cl"
    message.set_content(
        "Confirma: http://localhost:8000/login/auth/action?mode=verifyEmail&oobCode=Q2xhdmUtZGUtcHJ1ZWJhLTEyMzQ1\n"
        "Descarga: http://localhost:8000/mis-datos/descarga/Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA\n"
        "Tus avisos: http://localhost:8000/my/publicacion/misPublicaciones\n"
    )
    found = secrets_of_mail([message])
    assert {"ana@correo.cl", "Q2xhdmUtZGUtcHJ1ZWJhLTEyMzQ1", "Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA"} <= found
    assert not {"verifyEmail", "misPublicaciones"} & found
