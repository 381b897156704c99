#!/usr/bin/env bash
# Install everything and run the app on the embedded default: a SQLite file
# migrated with Alembic and filled with demo data, photos on local disk,
# frontend and backend on one port in production mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh

PORT="${PORT:-3000}"
export SITE_URL="${SITE_URL:-http://localhost:$PORT}"

alembic upgrade head
python -m app.seed --listings "${DEMO_LISTINGS:-300}" --if-empty
echo
echo "La aplicación estará disponible en: $SITE_URL/escorts"
echo "(la primera vez se compila la interfaz; puede tardar unos minutos)"
if [ -z "${SMTP_HOST:-}" ]; then
  echo "Correos de verificación y recuperación: archivos .eml en ${OUTBOX_DIR:-data/outbox}/"
fi
echo "Primer administrador: .venv/bin/python -m app.cli create-admin CORREO"
echo
# Metrics (docs/deployment.md, "Metrics"): the backend's processes write them to one folder, emptied at
# every start (set for the server only: the migration and the seed above count nothing).
export PROMETHEUS_MULTIPROC_DIR="$PWD/data/metrics"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
exec reflex run --env prod --single-port --frontend-port "$PORT" --backend-port "$PORT"
