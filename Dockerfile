# Production image: frontend exported at build time, backend served by
# Reflex's production server on one port, migrations run at start.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    REFLEX_USE_NPM=1 REFLEX_TELEMETRY_ENABLED=false \
    ENVIRONMENT=production PORT=8000 \
    MEDIA_DIR=/data/media PRIVATE_MEDIA_DIR=/data/private
WORKDIR /srv/app

RUN apt-get update && apt-get install -y --no-install-recommends unzip curl && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir -r requirements.txt
ENV PATH="/opt/venv/bin:$PATH"

# The unprivileged user the app runs as (numeric below, so Kubernetes'
# runAsNonRoot can verify it). It owns only what the app writes at run time:
# /data (photos, and the private verification photos) and .web (Reflex's backend markers); the code stays root's.
# No .states: the state manager lives in memory or Redis, never on disk.
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --create-home --home-dir /home/app app

COPY . .
# Compile and build the frontend once, into the image (same layer as the chown,
# so the build output is not stored twice).
RUN SECRET_KEY=build-only-placeholder-not-used-at-runtime-000 ENVIRONMENT=development \
    reflex export --frontend-only --no-zip --env prod \
    && mkdir -p /data/media /data/private \
    && chown -R app:app /data /srv/app/.web

VOLUME ["/data"]
EXPOSE 8000
USER 10001:10001
HEALTHCHECK CMD curl -fsS http://127.0.0.1:${PORT}/healthz || exit 1
# The backend mounts the frontend exported above, so start-up builds nothing.
ENV REFLEX_MOUNT_FRONTEND_COMPILED_APP=true
CMD ["sh", "-c", "alembic upgrade head && exec reflex run --env prod --backend-only --backend-host 0.0.0.0 --backend-port ${PORT}"]
