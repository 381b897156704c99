"""Every setting is a field of ``app.settings.Settings`` and is listed in ``.env.example``, so an operator
finds each knob in one file; nothing in ``app/`` reads a setting from the environment itself."""

from __future__ import annotations

import re
from pathlib import Path

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
# The environment reads that are not settings of the site, each explained where it is made.
NOT_SETTINGS = {
    "app/cli.py": 'os.environ.get("BACKUP_KEY"',  # the backup commands' key, which the site never holds
    "app/identity/firebase.py": 'os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")',  # Firebase's own variable
    # prometheus-client's own variable, which it reads when imported (set by scripts/serve.py and scripts/run.sh)
    "app/metrics.py": 'os.environ.get("PROMETHEUS_MULTIPROC_DIR")',
    "app/services/backup.py": "{**os.environ,",  # the environment handed on to pg_dump and psql
}


def test_every_setting_is_listed_in_env_example():
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    missing = [name for name in Settings.model_fields if not re.search(rf"^#? ?{name.upper()}=", text, re.M)]
    assert missing == []


def test_no_module_reads_a_setting_from_the_environment():
    reads = [
        (str(path.relative_to(ROOT)), line.strip())
        for path in sorted((ROOT / "app").rglob("*.py"))
        if path.name != "settings.py"
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"os\.environ|getenv\(", line) and not line.strip().startswith("#")
    ]
    assert reads, "the scan found nothing: it no longer reads app/"
    assert [(path, line) for path, line in reads if NOT_SETTINGS.get(path, "\0") not in line] == []
