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
    ("states/account.py", 256): "form_field's default cap on typed text, above EMAIL_MAX, as above",
    ("states/advertiser/my_listings.py", 64): "the default cap on an id a client sends; the service checks it",
    ("states/advertiser/my_listings.py", 2): "hours picked from AVAILABLE_NOW_HOURS (one or two digits), checked next",
    ("states/staff/review_queue.py", 64): "the default cap on an id a client sends; the service refuses unknown ids",
    ("states/staff/review_queue.py", 120): "a reason picked from a list; rejection_text accepts only the list's",
    ("pages/legal.py", 40): (
        "the report form's listing code box: the width of every id column (40), which has no constant yet; "
        "giving the id columns one is left out of issue 34's item 1"
    ),
}


def _literal(node: ast.AST | None) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _cut_helpers(tree: ast.AST) -> dict[str, tuple[int, str]]:
    """The module's functions that cut a text at one of their parameters (``value[:limit]``): name -> that
    parameter's position and name. Their default and the numbers callers pass are cuts too."""
    helpers = {}
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            params = [arg.arg for arg in function.args.args]
            for node in ast.walk(function):
                if isinstance(node, ast.Slice) and isinstance(node.upper, ast.Name) and node.upper.id in params:
                    helpers[function.name] = params.index(node.upper.id), node.upper.id
    return helpers


def _cut_numbers(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes that give a cut helper its length: the parameter's default and each caller's argument."""
    helpers = _cut_helpers(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in helpers:
            position, _ = helpers[node.name]
            defaults_from = len(node.args.args) - len(node.args.defaults)
            if position >= defaults_from:
                yield node.args.defaults[position - defaults_from]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            position, name = helpers[node.func.id]
            yield from node.args[position : position + 1]
            yield from (keyword.value for keyword in node.keywords if keyword.arg == name)


def _literal_limits(path: Path, staff_spec: bool) -> Iterator[tuple[int, int]]:
    """(line, number) of each ``max_length=<number>``, ``[:<number>]`` and cut helper called with a number in a
    page or a state, or of each ``FormField(..., max_length=<number>)`` in a staff spec."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    limits: list[ast.AST | None] = [] if staff_spec else list(_cut_numbers(tree))
    for node in ast.walk(tree):
        if staff_spec:
            is_form_field = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "FormField"
            keywords = node.keywords if isinstance(node, ast.Call) and is_form_field else []
        else:
            keywords = [node] if isinstance(node, ast.keyword) else []
            limits += [node.upper] if isinstance(node, ast.Slice) else []
        limits += [keyword.value for keyword in keywords if keyword.arg == "max_length"]
    for limit in limits:
        if (number := _literal(limit)) is not None:
            yield getattr(limit, "lineno", 0), number


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
