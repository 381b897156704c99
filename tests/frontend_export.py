"""The production frontend the end-to-end tests and benchmarks serve: exported once per source.

``reflex export --frontend-only`` (as the image's build does) into ``.build/e2e-export`` of the
project, never into the ``.web`` that a running instance of the checkout serves. An export is
kept for the sources it was made from (the app, its assets, its configuration and pinned
packages, hashed below): a test run whose sources did not change reuses it, and each app server
serves a copy of it through scripts/serve.py, which points the baked backend address at the
page's own port. Several processes may ask at once: one exports, the others wait for it.

``python -m tests.frontend_export`` exports ahead (scripts/test.sh starts it beside the lint).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
EXPORT_TIMEOUT = 600
# What the exported frontend is made from; any change in them means a new export.
SOURCES = ("app", "assets", "rxconfig.py", "requirements.txt", "reflex.lock")


class ExportError(RuntimeError):
    """The export failed; the message ends with its log."""


def sources_digest(project: Path) -> str:
    """A hash of every file the frontend is made from, and of the installed Reflex."""
    from importlib.metadata import version

    digest = hashlib.sha256(f"reflex {version('reflex')}".encode())
    for source in SOURCES:
        root = project / source
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(project)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def exported_client(project: Path = PROJECT, env: dict[str, str] | None = None) -> Path:
    """The folder of the static files of ``project``'s exported frontend, exported first if its sources changed."""
    build = project / ".build"
    export_dir = build / "e2e-export"
    build.mkdir(exist_ok=True)
    # Beside the folder, not in it: Reflex empties the folder when it sets it up.
    stamp, log_path = build / "e2e-export.sources", build / "e2e-export.log"
    with (build / "e2e-export.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wanted = sources_digest(project)
        if stamp.exists() and stamp.read_text() == wanted:
            return export_dir / "build" / "client"
        stamp.unlink(missing_ok=True)
        with log_path.open("w") as log:
            exported = subprocess.run(
                [str(Path(sys.executable).parent / "reflex"), "export", "--frontend-only", "--no-zip", "--env", "prod"],
                cwd=project,
                env={
                    **(env or os.environ),
                    "ENVIRONMENT": "test",
                    "REFLEX_USE_NPM": "1",
                    "REFLEX_TELEMETRY_ENABLED": "false",
                    "REFLEX_WEB_WORKDIR": str(export_dir),
                    # Rewritten by scripts/serve.py to each page's own port.
                    "REFLEX_API_URL": "http://localhost:8000",
                },
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=EXPORT_TIMEOUT,
                check=False,
            )
        if exported.returncode != 0:
            raise ExportError(f"the frontend export failed:\n{log_path.read_text()[-6000:]}")
        stamp.write_text(wanted)
    return export_dir / "build" / "client"


if __name__ == "__main__":
    try:
        exported_client()
    except ExportError as exc:
        sys.exit(str(exc))
