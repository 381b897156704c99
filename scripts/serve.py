"""Serve an exported frontend and the backend on one port, building nothing (the image's command).

``reflex run --env prod --single-port`` compiles and builds the frontend at every
start, which needs Node and takes minutes. The image instead builds once
(``reflex export --frontend-only``) and this starts Reflex's production backend
(Granian, ``GRANIAN_WORKERS`` from ``rxconfig.py``) with that build mounted, as
``reflex run`` does after its build.

Reflex bakes the backend's address into the build, ``http://localhost:8000``
(``api_url``). A browser swaps ``localhost`` for the page's host name and, on
https only, drops the port; on http it keeps 8000, so the websocket breaks on any
other PORT or behind a port mapping. Before serving, the one generated module
that holds these addresses (``assets/reflex-env-*.js``, and its ``.gz``) is
rewritten so that each address takes the page's own port: same origin as the page,
whatever PORT, published port or proxy.

Metrics (app.metrics): Granian's workers are processes, so prometheus-client runs in multiprocess mode,
each worker writing its values to files of one folder that a scrape adds up. That folder is
``PROMETHEUS_MULTIPROC_DIR`` emptied, or a new temporary folder, at every start: values of a previous
run never mix in.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

# A string literal (any quotes) holding a baked address: scheme, then the path after localhost:<port>.
_BAKED_ADDRESS = re.compile(r"""(["'`])(wss?|https?)://localhost:\d+(/[^"'`$\\]*)\1""")
# The same address on the page's port (none when the page is on its scheme's default port).
_SAME_ORIGIN = r"""("\2://localhost"+(typeof location<"u"&&location.port?":"+location.port:"")+"\3")"""


def make_frontend_same_origin(client_dir: Path) -> list[Path]:
    """Point the backend addresses baked into the exported frontend at the page's own port; the files changed."""
    changed = []
    for module in sorted((client_dir / "assets").glob("reflex-env-*.js")):
        text = module.read_text()
        updated = _BAKED_ADDRESS.sub(_SAME_ORIGIN, text)
        if updated == text:
            continue
        module.write_text(updated)
        compressed = module.with_name(module.name + ".gz")
        if compressed.exists():
            compressed.write_bytes(gzip.compress(updated.encode(), mtime=0))
        changed.append(module)
    return changed


def fresh_metrics_dir() -> tuple[Path, bool]:
    """prometheus-client's multiprocess folder for this start, set in the environment before anything imports
    it: PROMETHEUS_MULTIPROC_DIR emptied, or a new temporary folder (True: made here, removed at the end)."""
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink()
    else:
        folder = Path(tempfile.mkdtemp(prefix="escorts-metrics-"))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    return folder, not given


def main() -> None:
    """Serve the app on 0.0.0.0:$PORT from the current directory (the project root)."""
    metrics_dir, made_here = fresh_metrics_dir()
    try:
        _serve()
    finally:
        if made_here:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _serve() -> None:
    sys.path.insert(0, os.getcwd())
    from reflex.utils import exec as reflex_exec
    from reflex.utils import prerequisites
    from reflex_base import constants
    from reflex_base.config import get_config
    from reflex_base.environment import environment

    port = int(os.environ.get("PORT", "8000"))
    host = "0.0.0.0"
    client_dir = prerequisites.get_web_dir() / constants.Dirs.STATIC
    if not (client_dir / "index.html").exists() and not any(client_dir.glob("*.html")):
        sys.exit(f"{client_dir} has no exported frontend: run `reflex export --frontend-only --no-zip` first")
    make_frontend_same_origin(client_dir)

    environment.REFLEX_ENV_MODE.set(constants.Env.PROD)
    environment.REFLEX_SKIP_COMPILE.set(True)
    config = get_config()
    config._set_persistent(frontend_port=port, backend_port=port, backend_host=host)
    reflex_exec.run_backend_prod(host, port, config.loglevel.subprocess_level(), mount_frontend_compiled_app=True)


if __name__ == "__main__":
    main()
