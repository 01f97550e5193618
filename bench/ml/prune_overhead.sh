#!/usr/bin/env bash
# Masking overhead per training step of ml/prune (issue 7): for the MLP and the CNN on
# Fashion-MNIST at batch 256, the median step of each algorithm against a dense step of the
# same model, data and optimiser (dense and sparse steps alternate in rounds), the time in the
# updater's hooks per step, and the cost of one mask update amortised over its period.
# Not a ctest.
#
#   bench/ml/prune_overhead.sh [SPARSEMAP_BINARY] [OUT_PREFIX] [THREADS]
#   (default: build/sparsemap, prune_overhead -> prune_overhead-mlp.json, prune_overhead-cnn.json)
#
# One libtorch thread by default (see prune_compare.sh). OPENBLAS_L2_SIZE is unset in these
# commands only (docs/design.md pitfalls), and OPENBLAS_CORETYPE names OpenBLAS's best kernel
# for this CPU's flags: on virtual machines that hide the CPU model, OpenBLAS's own detection
# falls back to Prescott, a dense baseline about 4x slower.
set -euo pipefail
bin=${1:-build/sparsemap}
out=${2:-prune_overhead}
threads=${3:-1}
core=()
if grep -qw avx512_bf16 /proc/cpuinfo; then
  core=(OPENBLAS_CORETYPE=Cooperlake)
elif grep -qw avx512f /proc/cpuinfo; then
  core=(OPENBLAS_CORETYPE=SkylakeX)
elif grep -qw avx2 /proc/cpuinfo; then
  core=(OPENBLAS_CORETYPE=Haswell)
fi
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "${core[@]}" "$bin" prune-overhead "$@"; }
run --model mlp --batch 256 --threads "$threads" --json "$out-mlp.json"
echo
run --model cnn --batch 256 --threads "$threads" --steps 5 --rounds 6 --json "$out-cnn.json"
