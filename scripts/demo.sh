#!/usr/bin/env bash
# Installs what it needs, then runs a complete simulated studio: `studio demo` (extra arguments are passed on).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/studio demo "$@"
