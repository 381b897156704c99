"""No length limit is written as a number in pages, states or staff form specs (issue 34, item 1).

A limit lives in one constant beside its model; a page's ``max_length``, a state's cut and a staff
``FormField`` read that constant, so changing it changes every one of them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"

# (file, number) pairs that stay literal, each with why: none is a length any model stores. Anything else is a
# limit written twice.
ALLOWED: dict[tuple[str, int], str] = {
    ("states/auth.py", 12): "the length of a hashed client key's prefix in a log line",
    ("states/auth.py", 40): "the length of an argument's name echoed in a log line",
    ("states/advertiser/wizard.py", 12): "the digits of a rate shown back as money while it is typed",
    ("states/advertiser/wizard.py", 80): "a file's name shown back in an upload message",
    ("states/advertiser/wizard.py", 64): "a cap on a photo id a client sends; the service refuses ids it does not own",
    ("states/advertiser/notices.py", 40): "a cap on a notice kind a client sends; the service keeps only NoticeKind's",
    ("states/privacy.py", 256): (
        "a cap on a typed password or e-mail above MAX_PASSWORD_LENGTH and EMAIL_MAX, so the service, not the cut, "
        "says what is wrong"
    ),
    ("states/privacy.py", 32): "a cap on a typed 6-digit or recovery code, longer than either, for the same reason",
    ("pages/my_account.py", 32): "the code box of the same form: the same cap as the state's",
    ("pages/second_factor.py", 32): "the second factor's code box: a cap longer than any code, as above",
    ("pages/legal.py", 40): (
        "the report form's listing code box: the width of every id column (40), which has no constant yet; "
        "giving the id columns one is left out of issue 34's item 1"
    ),
}


def _literal(node: ast.AST | None) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _literal_limits(path: Path, staff_spec: bool) -> Iterator[tuple[int, int]]:
    """(line, number) of each ``max_length=<number>`` and ``[:<number>]`` in a page or a state, or of each
    ``FormField(..., max_length=<number>)`` in a staff spec."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if staff_spec:
            is_form_field = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "FormField"
            keywords = node.keywords if isinstance(node, ast.Call) and is_form_field else []
        else:
            keywords = [node] if isinstance(node, ast.keyword) else []
            if isinstance(node, ast.Slice) and (number := _literal(node.upper)) is not None:
                yield node.lineno, number
        for keyword in keywords:
            if keyword.arg == "max_length" and (number := _literal(keyword.value)) is not None:
                yield keyword.value.lineno, number


def test_no_literal_limit_in_pages_states_or_staff_specs() -> None:
    found = []
    sources = [(path, False) for folder in ("pages", "states") for path in sorted((APP / folder).rglob("*.py"))]
    sources += [(path, True) for path in sorted((APP / "services" / "staff").glob("*.py"))]
    for path, staff_spec in sources:
        name = path.relative_to(APP).as_posix()
        found += [
            f"app/{name}:{line}: {number}"
            for line, number in _literal_limits(path, staff_spec)
            if (name, number) not in ALLOWED
        ]
    assert not found, "Read the limit from its model's constant instead of writing it again:\n" + "\n".join(found)


def test_every_allowed_literal_is_still_there() -> None:
    """An allow-list entry whose literal is gone must go too, or it would let the next one in unnoticed."""
    present = set()
    for name, _ in ALLOWED:
        present |= {(name, number) for _, number in _literal_limits(APP / name, False)}
    assert set(ALLOWED) <= present, sorted(set(ALLOWED) - present)
