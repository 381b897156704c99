"""The production image runs as an unprivileged user that owns the data volume.

No container engine here: the Dockerfile is read as text, the way Docker
parses it (continuation lines joined, comments dropped).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

DOCKERFILE = Path(__file__).resolve().parents[2] / "Dockerfile"
COMPOSE = DOCKERFILE.with_name("compose.yaml")


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs in order."""
    result, pending = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        pending += stripped[:-1].rstrip() + " " if stripped.endswith("\\") else stripped
        if not stripped.endswith("\\"):
            keyword, _, arguments = pending.partition(" ")
            result.append((keyword.upper(), arguments.strip()))
            pending = ""
    return result


def _commands(run_arguments: str) -> list[list[str]]:
    """The shell commands of a RUN, split on && and ;."""
    return [shlex.split(part) for part in re.split(r"&&|;", run_arguments) if part.strip()]


def _option(words: list[str], *names: str) -> str | None:
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


@pytest.fixture(scope="module")
def steps() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE.read_text())


def _runtime_user(steps) -> str:
    """The user of the last USER directive, which must come after the last RUN."""
    last_run = max(i for i, (keyword, _) in enumerate(steps) if keyword == "RUN")
    users = [(i, arguments) for i, (keyword, arguments) in enumerate(steps) if keyword == "USER"]
    assert users, "the Dockerfile has no USER directive: the app would run as root"
    index, user = users[-1]
    assert index > last_run, "a RUN comes after the last USER: it runs as that user, and USER must be the final one"
    return user.split(":")[0]


def _created_users(steps) -> dict[str, str]:
    """Users made by useradd in a RUN: name -> uid ('' when not given)."""
    users = {}
    for keyword, arguments in steps:
        if keyword != "RUN":
            continue
        for words in _commands(arguments):
            if words and words[0] == "useradd":
                users[words[-1]] = _option(words, "--uid", "-u") or ""
    return users


def _names_for(steps, user: str) -> set[str]:
    """Every way the Dockerfile may write this user: its name and its uid."""
    for name, uid in _created_users(steps).items():
        if user in (name, uid):
            return {name, uid} - {""}
    return {user}


def test_the_app_runs_as_a_non_root_user_created_in_the_image(steps):
    user = _runtime_user(steps)
    assert user not in {"root", "0", ""}
    assert _names_for(steps, user) & set(_created_users(steps)), f"USER {user} is not created by useradd"


def _chowns(steps) -> list[tuple[int, str, list[str]]]:
    """(step index, owner, paths) of every chown in a RUN."""
    found = []
    for index, (keyword, arguments) in enumerate(steps):
        if keyword != "RUN":
            continue
        for words in _commands(arguments):
            if words and words[0] == "chown":
                owner, *paths = [word for word in words[1:] if not word.startswith("-")]
                found.append((index, owner.split(":")[0], paths))
    return found


def test_the_volume_is_owned_by_that_user_before_it_is_declared(steps):
    names = _names_for(steps, _runtime_user(steps))
    volumes = [i for i, (keyword, _) in enumerate(steps) if keyword == "VOLUME"]
    assert volumes, "no VOLUME"
    index = volumes[-1]
    arguments = steps[index][1]
    for volume in json.loads(arguments) if arguments.startswith("[") else arguments.split():
        # Changes to a volume path after VOLUME are discarded: the chown must come first.
        assert any(at < index and owner in names and volume in paths for at, owner, paths in _chowns(steps)), (
            f"{volume} is not chown'ed to {sorted(names)} before VOLUME"
        )


def test_reflex_build_output_is_writable_by_that_user(steps):
    names = _names_for(steps, _runtime_user(steps))
    assert any(
        owner in names and any(path.rstrip("/").endswith(".web") for path in paths)
        for _, owner, paths in _chowns(steps)
    )


def test_the_parser_joins_continuations_and_skips_comments():
    text = "FROM x\n# note\nRUN a \\\n    && b\nUSER 1:1\n"
    assert instructions(text) == [("FROM", "x"), ("RUN", "a && b"), ("USER", "1:1")]


@pytest.mark.parametrize(
    "text",
    [
        "FROM x\nRUN useradd app\nRUN chown app /data\nVOLUME /data\n",  # no USER
        "FROM x\nRUN useradd app && chown app /data\nUSER app\nRUN pip install y\nVOLUME /data\n",  # RUN after USER
        "FROM x\nRUN useradd app\nVOLUME /data\nRUN chown app /data\nUSER app\n",  # chown after VOLUME
        "FROM x\nRUN useradd app && chown root /data\nVOLUME /data\nUSER app\n",  # volume left to root
        "FROM x\nRUN useradd app && chown app /data\nVOLUME /data\nUSER root\n",  # root after all
    ],
)
def test_the_rules_refuse_images_that_would_run_as_root_or_without_the_volume(text):
    steps = instructions(text)
    with pytest.raises(AssertionError):
        test_the_app_runs_as_a_non_root_user_created_in_the_image(steps)
        test_the_volume_is_owned_by_that_user_before_it_is_declared(steps)


# The major version of Debian's postgresql-client in each release the runtime image may be built on.
DEBIAN_POSTGRESQL_CLIENT = {"bookworm": 15, "trixie": 17}


def _runtime_stage(steps) -> list[tuple[str, str]]:
    last_from = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


def test_the_running_image_has_a_postgresql_client_as_new_as_the_compose_server(steps):
    """`python -m app.cli backup` runs pg_dump (restore pg_restore) inside the image: the client must be
    installed in the stage that runs, and pg_dump refuses a server newer than itself."""
    runtime = _runtime_stage(steps)
    installs = [
        words
        for keyword, arguments in runtime
        if keyword == "RUN"
        for words in _commands(arguments)
        if words[:2] == ["apt-get", "install"]
    ]
    assert any("postgresql-client" in words for words in installs), "the runtime stage does not install pg_dump"
    base = runtime[0][1].split()[0]
    release = next(name for name in DEBIAN_POSTGRESQL_CLIENT if base.endswith(name))
    compose = yaml.safe_load(COMPOSE.read_text())
    server = int(compose["services"]["postgres"]["image"].split(":")[1].split("-")[0].split(".")[0])
    assert DEBIAN_POSTGRESQL_CLIENT[release] >= server
