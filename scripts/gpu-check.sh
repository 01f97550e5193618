#!/usr/bin/env bash
# Builds, tests and benchmarks all CUDA code in one run, and writes the results to OUTDIR.
# Needs only the CUDA toolkit (nvcc, cuBLAS, cuSPARSE), a host C++ compiler and, preferably,
# CMake (+ ninja); without CMake it compiles with nvcc directly. Under 8 minutes on an H200.
#
# Usage: scripts/gpu-check.sh OUTDIR
# OUTDIR gets: summary.json, cuda_tests.json, cuda_bench.json, build.log, tests.log, bench.log,
# gpu.txt. Exit status: 0 when the tests pass (or skip: no usable GPU), 1 when a test fails,
# 2 when the build fails.
set -u
out=${1:?usage: scripts/gpu-check.sh OUTDIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TMPDIR:-/tmp}/sparsemap-gpu-build
start=$(date +%s)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
jobs=$(nproc 2>/dev/null || echo 4)

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  >"$out/gpu.txt" 2>&1 || echo "nvidia-smi failed" >>"$out/gpu.txt"
"$nvcc" --version >>"$out/gpu.txt" 2>&1

build_ok=1
if command -v cmake >/dev/null 2>&1; then
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  { cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSPARSEMAP_CUDA_ONLY=ON \
      -DCMAKE_CUDA_COMPILER="$nvcc" &&
    cmake --build "$build" -j "$jobs"; } >"$out/build.log" 2>&1 || build_ok=0
else
  # No CMake: the same two programs, straight from nvcc.
  mkdir -p "$build"
  host=(src/sparse/format/dense.cpp src/sparse/format/formats.cpp src/sparse/format/formats_nm.cpp
    src/sparse/format/format_spec.cpp src/sparse/format/matrix_io.cpp src/sparse/prune/prune.cpp
    src/sparse/kernels/spmm_check.cpp src/sparse/kernels/spmm_ref.cpp
    src/measure/spmm_bench.cpp src/sparse/kernels/cuda/spmm_cuda.cu)
  flags=(-std=c++17 -O3 -Iinclude -gencode arch=compute_80,code=sm_80
    -gencode arch=compute_90,code=sm_90 -lcublas -lcusparse)
  { cd "$root" &&
    "$nvcc" "${flags[@]}" "${host[@]}" src/sparse/kernels/cuda/spmm_cuda_test.cu \
      -o "$build/sparse_cuda_tests" &&
    "$nvcc" "${flags[@]}" "${host[@]}" bench/spmm_cuda_bench.cu -o "$build/spmm_cuda_bench"; } \
    >"$out/build.log" 2>&1 || build_ok=0
fi
build_s=$(($(date +%s) - start))

tests_rc=-1
bench_rc=-1
if [[ $build_ok == 1 ]]; then
  timeout 150 "$build/sparse_cuda_tests" --json "$out/cuda_tests.json" >"$out/tests.log" 2>&1
  tests_rc=$?
  if [[ $tests_rc == 0 || $tests_rc == 1 ]]; then
    timeout 240 "$build/spmm_cuda_bench" --json "$out/cuda_bench.json" >"$out/bench.log" 2>&1
    bench_rc=$?
  fi
fi
total_s=$(($(date +%s) - start))
cat >"$out/summary.json" <<JSON
{
  "build_ok": $([[ $build_ok == 1 ]] && echo true || echo false),
  "build_s": $build_s,
  "tests_rc": $tests_rc,
  "tests_skipped": $([[ $tests_rc == 77 ]] && echo true || echo false),
  "bench_rc": $bench_rc,
  "total_s": $total_s
}
JSON
cat "$out/summary.json"
[[ -f "$out/tests.log" ]] && tail -3 "$out/tests.log"
[[ -f "$out/bench.log" ]] && tail -40 "$out/bench.log"
if [[ $build_ok != 1 ]]; then
  tail -30 "$out/build.log"
  exit 2
fi
[[ $tests_rc == 0 || $tests_rc == 77 ]] || exit 1
exit 0
