# Sourced by the scripts: the virtualenv first on PATH (its node/npm too),
# npm instead of bun (bun cannot be downloaded here), no telemetry.
export PATH="$PWD/.venv/bin:$PATH"
export REFLEX_USE_NPM=1
export REFLEX_TELEMETRY_ENABLED=false
export NEXT_TELEMETRY_DISABLED=1
export NPM_CONFIG_FUND=false
export NPM_CONFIG_AUDIT=false
export NPM_CONFIG_UPDATE_NOTIFIER=false
