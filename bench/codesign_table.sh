#!/usr/bin/env bash
# DiGamma's table: speedup of co-design (DiGamma's operators) over the best baseline at the same
# sample budget, per model and geomean, on the edge and cloud platforms.
# Usage: bench/codesign_table.sh [BUDGET] [SEED] [THREADS] [OUT_PREFIX]
#   BUDGET   whole-model designs evaluated per method (default 2000; BO capped at 1,000)
#   OUT_PREFIX  writes OUT_PREFIX.txt (the table) and OUT_PREFIX.json (every design)
# Needs a built CLI: SPARSEMAP=path/to/sparsemap (default: build/sparsemap).
set -euo pipefail
budget=${1:-2000}
seed=${2:-1}
threads=${3:-2}
out=${4:-codesign_table}
bin=${SPARSEMAP:-build/sparsemap}
models=resnet18,resnet50,mobilenet-v2,vgg16,mnasnet,bert-base,dlrm
"$bin" codesign --table --models "$models" --platforms edge,cloud --budget "$budget" \
  --seed "$seed" --threads "$threads" --quiet --json "$out.json" | tee "$out.txt"
