#!/usr/bin/env bash
# The N:M recipe study (issue 8): every recipe at 2:4, 1:4, 1:8, 1:16 and 1:32 on vit-tiny
# (Fashion-MNIST) and char-gpt (King James text), results saved cell by cell (a rerun skips the
# finished cells), then the table and a plot. Not a ctest.
#
#   bench/ml/nm_study.sh [SPARSEMAP_BINARY] [OUT_PREFIX] [--quick] [more nm-study flags]
#   (default: build/sparsemap, nm_study -> nm_study.json, nm_study.png)
#
# --quick: small models, few steps, one seed (the grid in under an hour on 2 cores).
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset in this command only (docs/design.md pitfalls).
set -euo pipefail
bin=${1:-build/sparsemap}
out=${2:-nm_study}
shift $(( $# >= 2 ? 2 : $# ))
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" nm-study --results "$out.json" \
  --plot "$out.png" "$@"
