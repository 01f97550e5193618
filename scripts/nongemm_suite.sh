#!/usr/bin/env bash
# NonGEMM Bench's measurements (issue 9, "Done when"): the whole suite at batch 1 with the
# horizon at F = 10 and 100 and its stacked-bar plot, the profiling-overhead benchmark
# (ResNet-50, BERT-base), and the cross-check against PyTorch's own profiler on ResNet-50.
# Long: tens of minutes on 2 cores (llama2-7b and mixtral-8x7b run one 2048-token layer each).
#
# Usage: scripts/nongemm_suite.sh [BUILD_DIR [OUT_DIR [THREADS [SUITE_FLAGS...]]]]
#        (defaults: build-ml, BUILD_DIR/nongemm-results, 2; SUITE_FLAGS go to `nongemm --all`,
#        e.g. --iters 3 --reuse-memory)
# Needs the targets sparsemap and nongemm_overhead_bench built in BUILD_DIR, and for the
# cross-check Debian's python3-torch and python3-torchvision (/usr/bin/python3).
# Timings are taken with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (docs/design.md).
set -euo pipefail
build=${1:-build-ml}
out=${2:-$build/nongemm-results}
threads=${3:-2}
shift $(($# < 3 ? $# : 3))
mkdir -p "$out"
timed() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/load.txt"
timed "$build/sparsemap" nongemm --all --batch 1 --threads "$threads" --gemm-speedup 10,100 \
  --json "$out/suite_b1.json" --plot "$out/suite_b1.svg" "$@" | tee "$out/suite_b1.txt"
echo "load after the suite: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
reuse=()
for f in "$@"; do [[ $f == --reuse-memory || $f == --no-reuse-memory ]] && reuse=("$f"); done
timed "$build/nongemm_overhead_bench" --threads "$threads" --rounds 30 "${reuse[@]}" resnet50 bert-base |
  tee "$out/overhead.txt"
if /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  # Twice: each side's default (sparsemap keeps freed memory, as glibc does in the Python
  # process), then freed memory kept explicitly on both sides (mallopt in Python too).
  for mode in default reuse; do
    flags=()
    [[ $mode == reuse ]] && flags=(--reuse-memory)
    timed /usr/bin/python3 scripts/nongemm_pytorch_check.py --sparsemap "$build/sparsemap" \
      --threads "$threads" --iters 10 --rounds 3 "${flags[@]}" \
      --json "$out/pytorch_check_$mode.json" | tee "$out/pytorch_check_$mode.txt" || true
  done
else
  echo "skipping the PyTorch cross-check: apt-get install python3-torch python3-torchvision" |
    tee "$out/pytorch_check.txt"
fi
echo "results in $out"
