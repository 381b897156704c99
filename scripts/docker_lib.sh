# Shared by scripts/image_check.sh and scripts/stack_check.sh (sourced, run from the project root):
# Docker on a machine without Docker Hub, the stand-in base image, the host tools the checks
# run, the production image's build, and the step/check helpers with the summary table.
#
# Docker Hub is unreachable here, so the base image python:3.11-slim-bookworm is a stand-in
# built from Debian bookworm with debootstrap (Debian's python3.11), carrying the host's CA
# bundle (this machine reaches PyPI and npm through a proxy with its own CA). The daemon runs
# without iptables or a bridge, so builds and containers use the host's network.
#
# The caller sets WORK (a scratch folder) and, for ensure_host_tools, REDIS_URL.

BASE="python:3.11-slim-bookworm"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
step() { printf '\n== %s\n' "$*"; }

ensure_docker() {
  if ! command -v dockerd >/dev/null 2>&1; then
    step "Installing Debian's docker.io"
    apt_install docker.io
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
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
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

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# What the checks run on the host, installed up front so a missing piece fails in seconds, not
# after the build: the virtualenv with the test requirements (the browser checks import
# Playwright; scripts/run.sh installs only the runtime ones), Debian's chromium, the command-line
# clients, and PostgreSQL and (unless CHECK_REDIS_URL names another) Redis on their usual ports,
# started, or installed, when down. Extra Debian packages as "command:package" arguments.
ensure_host_tools() {
  step "Host tools: the test virtualenv (Playwright), chromium, psql, redis-cli, PostgreSQL, Redis $*"
  bash scripts/setup.sh --test
  local command package
  for command in chromium:chromium curl:curl bc:bc psql:postgresql-client redis-cli:redis-tools "$@"; do
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

# Build the production image $1 on the host's network; sets build_seconds. The build log is
# $WORK/build.log; its tail is shown when the build fails.
build_image() {
  local image="$1" npm_registry started
  step "Building $image (network host)"
  local build_args=(--build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
  # This host's package index, when it has one set in the environment (pip and npm).
  [ -n "${PIP_INDEX_URL:-}" ] && build_args+=(--build-arg "PIP_INDEX_URL=$PIP_INDEX_URL")
  npm_registry="$(npm config get registry 2>/dev/null || true)"
  [ -n "$npm_registry" ] && build_args+=(--build-arg "NPM_CONFIG_REGISTRY=$npm_registry")
  started=$(date +%s)
  as_root docker build --network host "${build_args[@]}" -t "$image" . >"$WORK/build.log" 2>&1 || {
    tail -40 "$WORK/build.log"
    return 1
  }
  build_seconds=$(($(date +%s) - started))
  echo "built in ${build_seconds}s (log: $WORK/build.log)"
}

# check LABEL EXPECTED ACTUAL: one line, counted in $failures, and a row of the summary table.
failures=0
results=()
check() {
  if [ "$2" = "$3" ]; then
    echo "ok   $1: $3"
    results+=("$1"$'\t'"$3"$'\t'ok)
  else
    echo "FAIL $1: $3 (expected $2)"
    results+=("$1"$'\t'"$3 (expected $2)"$'\t'FAILED)
    failures=$((failures + 1))
  fi
}

# record LABEL FIGURE STATUS: a row computed elsewhere (STATUS ok or FAILED).
record() {
  results+=("$1"$'\t'"$2"$'\t'"$3")
  [ "$3" = ok ] || failures=$((failures + 1))
}

# The table of every check so far (step, figure, ok/FAILED).
print_table() {
  printf '\n%-58s | %-44s | %s\n' step figure result
  printf '%s\n' "$(printf -- '-%.0s' $(seq 1 118))"
  local row
  for row in "${results[@]}"; do
    IFS=$'\t' read -r label figure status <<<"$row"
    printf '%-58s | %-44s | %s\n' "$label" "$figure" "$status"
  done
}
