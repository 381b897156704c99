"""The W3C Nu HTML checker (npm vnu-jar, pinned in tools/vnu, on Debian's Java) over documents."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.npm_tools import tool_modules

# Messages of the checker that are its own limits, not errors: (message, text of the extract).
CHECKER_LIMITS = (
    # Its CSS parser refuses a custom property holding arithmetic ("--scale:var(--toasts-before)
    # * 0.05 + 1"), which is valid CSS (a custom property takes any tokens), in the stylesheet the
    # toast library inserts once the app runs.
    ("CSS: Parse Error.", "* 0.05 + 1;--y:translate"),
)


def nu_errors(documents: dict[str, str], folder: Path) -> list[str]:
    """One run of the Nu checker over ``documents``: every error as "document:line.column: message «extract»"."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("The Nu HTML checker needs Java: scripts/test.sh installs it")
    vnu_jar = tool_modules("vnu") / "vnu-jar" / "build" / "dist" / "vnu.jar"
    paths = []
    for name, html in documents.items():
        path = folder / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        paths.append(path)
    run = subprocess.run(
        [java, "-jar", str(vnu_jar), "--errors-only", "--format", "json", "--exit-zero-always", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    messages = json.loads(run.stderr)["messages"]
    return [
        f"{Path(m.get('url', '')).stem}:{m.get('lastLine', '?')}.{m.get('firstColumn', '?')}: "
        f"{m['message']} «{m.get('extract', '').strip()[:160]}»"
        for m in messages
        if m["type"] in ("error", "non-document-error")
        and not any(m["message"] == text and part in m.get("extract", "") for text, part in CHECKER_LIMITS)
    ]
