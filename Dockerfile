# Production image: frontend exported at build time, backend served by
# Reflex's production server on one port, migrations run at start.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    REFLEX_USE_NPM=1 REFLEX_TELEMETRY_ENABLED=false \
    ENVIRONMENT=production PORT=8000 \
    MEDIA_DIR=/data/media
WORKDIR /srv/app

RUN apt-get update && apt-get install -y --no-install-recommends unzip curl && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir -r requirements.txt
ENV PATH="/opt/venv/bin:$PATH"

COPY . .
# Compile and build the frontend once, into the image.
RUN SECRET_KEY=build-only-placeholder-not-used-at-runtime-000 ENVIRONMENT=development \
    reflex export --frontend-only --no-zip --env prod

VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK CMD curl -fsS http://127.0.0.1:${PORT}/healthz || exit 1
# The backend mounts the frontend exported above, so start-up builds nothing.
ENV REFLEX_MOUNT_FRONTEND_COMPILED_APP=true
CMD ["sh", "-c", "alembic upgrade head && exec reflex run --env prod --backend-only --backend-host 0.0.0.0 --backend-port ${PORT}"]
