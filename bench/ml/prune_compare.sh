#!/usr/bin/env bash
# The Fashion-MNIST comparison of issue 7: dense, magnitude (gradual), random, SET, RigL and
# magnitude_ste at 80% sparsity on the MLP (784-300-100-10), 20 epochs, one table. About
# 4.5 minutes on the 2-core development machine while others were using it. Not a ctest.
#
#   bench/ml/prune_compare.sh [SPARSEMAP_BINARY] [OUT_JSON] [EPOCHS] [THREADS]
#
# One libtorch thread by default: on a 2-core machine that other jobs share, two OpenMP threads
# that spin at every barrier made a step 10-20x slower (88 ms against 4.4 ms for the MLP).
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset in this command only (docs/design.md pitfalls).
set -euo pipefail
bin=${1:-build/sparsemap}
out=${2:-prune_compare.json}
epochs=${3:-20}
threads=${4:-1}
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" prune-compare --model mlp \
  --data fashion-mnist --sparsity 0.8 --epochs "$epochs" --seed 1 --threads "$threads" \
  --algos dense,magnitude,random,set,rigl,magnitude_ste --json "$out"
