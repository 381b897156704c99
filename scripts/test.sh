#!/usr/bin/env bash
# Install what the tests need and run the whole suite: unit, integration
# (real PostgreSQL and Redis), end-to-end (Playwright + Debian's chromium against the
# app built and served in production mode).
#
# pytest runs on PYTEST_WORKERS processes (pytest-xdist, default 3 on the 2-core CI machine: the
# end-to-end tests spend most of their time waiting for a browser or a server). The e2e tests of
# each app server stay together on one of them (pytest.ini: --dist loadgroup, whose units
# tests/conftest.py defines): two halves against two sites, and the Firebase site's.
# Arguments go to pytest, e.g. `bash scripts/test.sh -m "not e2e"` or `-n 0` for a serial run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
source scripts/env.sh

# The whole suite: the end-to-end tests' frontend export (tests/frontend_export.py) starts now,
# beside the installs and the lint below; the tests wait for it (and say why if it failed).
if [ "$#" = 0 ]; then
  python -m tests.frontend_export >/dev/null 2>&1 &
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Java for the W3C Nu HTML checker (tools/vnu), from Debian; installed before the npm tools so
# that vnu-jar's postinstall finds it instead of trying to download one from GitHub.
if ! command -v java >/dev/null 2>&1; then
  echo "Instalando Java…"
  apt_install default-jre-headless
fi

# The npm tools of the tests, each pinned in tools/NAME/package-lock.json: firebase-tools
# (the Auth emulator), axe-core (the accessibility checks), vnu-jar (the Nu HTML checker).
# Reinstalled when a lock file changed since the last install. The machine keeps each install
# in its cache under the lock file's hash (as uv keeps the Python packages), so a new clone
# links it in seconds. Otherwise npm ci runs in the background (firebase-tools alone takes
# about a minute) while lint, types and the first tests run; the tests that use a tool wait
# for it and fail with its log (tests/npm_tools.py reads NAME.status and NAME.log from
# NPM_TOOLS_INSTALL_DIR).
export NPM_TOOLS_INSTALL_DIR="$PWD/.build/npm-tools"
tools_cache="${XDG_CACHE_HOME:-$HOME/.cache}/escorts-chile/npm-tools"
mkdir -p "$NPM_TOOLS_INSTALL_DIR" "$tools_cache"
link_tree() { cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2"; cp -a "$1" "$2"; }; }
tool_installs=()
for lock in tools/*/package-lock.json; do
  tool="$(dirname "$lock")"
  name="$(basename "$tool")"
  stamp="$tool/node_modules/.package-lock.sha256"
  wanted="$(sha256sum "$lock" | cut -d' ' -f1)"
  cached="$tools_cache/$name-$wanted"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    continue
  fi
  rm -f "$NPM_TOOLS_INSTALL_DIR/$name.status"
  if [ -f "$cached/node_modules/.package-lock.sha256" ]; then
    rm -rf "$tool/node_modules"
    link_tree "$cached/node_modules" "$tool/node_modules"
    continue
  fi
  (
    status=0
    npm ci --prefix "$tool" --no-audit --no-fund >"$NPM_TOOLS_INSTALL_DIR/$name.log" 2>&1 || status=$?
    if [ "$status" = 0 ]; then
      echo "$wanted" > "$stamp"
      # Into the cache through a temporary name, so that a half-copied tree is never taken.
      partial="$(mktemp -d "$tools_cache/.partial.XXXXXX")"
      if link_tree "$tool/node_modules" "$partial/node_modules"; then
        mv -T "$partial" "$cached" 2>/dev/null || rm -rf "$partial"
      else
        rm -rf "$partial"
      fi
    fi
    echo "$status" > "$NPM_TOOLS_INSTALL_DIR/$name.status"
  ) &
  tool_installs+=("$!")
done

# Debian's Chromium headless shell for Playwright (Playwright cannot download browsers here).
if ! command -v chromium-headless-shell >/dev/null 2>&1; then
  echo "Instalando chromium-headless-shell…"
  apt_install chromium-headless-shell
fi

# The video tests make their sample clips with Debian's ffmpeg and check the served files with
# ffprobe and exiftool, tools this project did not write (the app itself needs neither: PyAV).
if ! command -v ffprobe >/dev/null 2>&1 || ! command -v exiftool >/dev/null 2>&1; then
  echo "Instalando ffmpeg y exiftool…"
  apt_install --no-install-recommends ffmpeg libimage-exiftool-perl
fi

# The alert rules' unit tests run Debian's promtool (package prometheus) and amtool (package
# prometheus-alertmanager) on deploy/ (tests/unit/test_alert_rules.py). Without recommends: no
# node exporter. On a machine with systemd the packages also start their services (ports 9090
# and 9093), which no test uses.
if ! command -v promtool >/dev/null 2>&1 || ! command -v amtool >/dev/null 2>&1; then
  echo "Instalando promtool y amtool…"
  apt_install --no-install-recommends prometheus prometheus-alertmanager
fi

# PostgreSQL on 127.0.0.1:5432: start it, or install it, when it is not up.
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "Instalando PostgreSQL…"
    apt_install postgresql
  fi
  version="$(ls /etc/postgresql | sort -V | tail -1)"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  # A fresh install only allows peer login: give the test role a password.
  as_root su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null || true
fi
# Redis: every test process starts a private redis-server of its own (tests/redis_server.py),
# so only the binary is needed here.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "Instalando Redis…"
  apt_install redis-server
fi

export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres}"

# Lint, format and types first: cheap, and a failure says exactly what to fix.
# mypy reads its settings from pyproject.toml (all of app/ strict).
ruff check .
ruff format --check .
mypy

set +e
python -m pytest -n "${PYTEST_WORKERS:-3}" "$@"
status=$?
# A run that used no tool still leaves them installed (and stamped) for the next one.
for pid in "${tool_installs[@]}"; do wait "$pid"; done
set -e
# pytest's "no tests collected" (5) is a failure here, never a silent pass.
exit $status
