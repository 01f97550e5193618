#!/usr/bin/env bash
# DiGamma's tables (latency, then energy and EDP) on held-out seeds: see bench/codesign_table.py
# for the columns. Usage: bench/codesign_table.sh [codesign_table.py flags...]
# Needs a built CLI: SPARSEMAP=path/to/sparsemap (default: build/sparsemap).
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/codesign_table.py" "$@"
