"""The npm tools of the tests (tools/NAME, each pinned by its package-lock.json).

scripts/test.sh installs them in the background while lint, types and the first tests run
(firebase-tools alone takes about a minute), and tells the tests so through
``NPM_TOOLS_INSTALL_DIR``: the folder where each install writes ``NAME.log`` and, when it
ends, ``NAME.status`` (its exit code). A test that needs a tool waits here for its install
and fails with the install's output if it failed; it never skips.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"
INSTALL_TIMEOUT = 900  # seconds: a cold npm cache on a busy machine
POLL_SECONDS = 0.5


def _installed(tool: Path) -> bool:
    """Whether tools/NAME/node_modules holds what its lock file pins (the stamp scripts/test.sh writes after npm ci)."""
    stamp = tool / "node_modules" / ".package-lock.sha256"
    wanted = hashlib.sha256((tool / "package-lock.json").read_bytes()).hexdigest()
    return stamp.is_file() and stamp.read_text().strip() == wanted


def tool_modules(name: str) -> Path:
    """tools/NAME/node_modules, once its install matches the lock file (waiting for scripts/test.sh's background install)."""
    tool = TOOLS / name
    if _installed(tool):
        return tool / "node_modules"
    install_dir = os.environ.get("NPM_TOOLS_INSTALL_DIR")
    if not install_dir:
        pytest.fail(f"{tool}/node_modules is missing or stale: run scripts/test.sh (npm ci --prefix {tool})")
    status_path = Path(install_dir) / f"{name}.status"
    deadline = time.monotonic() + INSTALL_TIMEOUT
    while not _installed(tool):
        if status_path.is_file() and status_path.read_text().strip() not in ("", "0"):
            log = (Path(install_dir) / f"{name}.log").read_text(errors="replace")
            pytest.fail(f"npm ci --prefix {tool} failed (exit {status_path.read_text().strip()}):\n{log[-6000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"npm ci --prefix {tool} did not finish within {INSTALL_TIMEOUT} s")
        time.sleep(POLL_SECONDS)
    return tool / "node_modules"
