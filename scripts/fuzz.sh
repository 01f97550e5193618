#!/usr/bin/env bash
# Fuzzes every reader of user files with libFuzzer + ASan + UBSan (fuzz/*_fuzz.cpp; the make
# target `make fuzz SECONDS=N`). Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  per target (default 60); TARGET: names without _fuzz (default: every fuzz/*_fuzz.cpp)
# Builds build-fuzz/ with clang, seeds .fuzz/corpus/TARGET from the repository's own files
# (data/**, tests/**) and the target's built-in seeds, then runs each target in turn, one
# process, for SECONDS. A finding is anything but a clean end: a crash, an exception other than
# InputError, a sanitizer report, a leak, an input over 5 s or over 2 GiB. Reproducers go to
# .fuzz/artifacts/TARGET-*, logs to .fuzz/logs/TARGET.log. Exits 1 when any target had a
# finding, 2 for bad usage or a missing clang. Needs clang, its runtime and OpenMP (Debian:
# clang, libclang-rt-14-dev, libomp-14-dev; scripts/bootstrap-deps.sh installs them).
# Replay one reproducer: build-fuzz/fuzz/TARGET_fuzz .fuzz/artifacts/TARGET-crash-...
set -euo pipefail

seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2; }
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-fuzz
state=$root/.fuzz
jobs=${JOBS:-2}

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$root"/fuzz/*_fuzz.cpp; do
    n=$(basename "$f" .cpp)
    targets+=("${n%_fuzz}")
  done
fi

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (make deps)" >&2; exit 2; }
if [[ ! -f $build/CMakeCache.txt ]]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # -O1 with line tables: sanitizer reports name file:line, the build stays short.
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DSPARSEMAP_FUZZ=ON \
    -DSPARSEMAP_BUILD_TESTS=OFF -DSPARSEMAP_BUILD_BENCH=OFF -DSPARSEMAP_WITH_TORCH=OFF -DSPARSEMAP_WITH_PYTHON=OFF \
    -DSPARSEMAP_WITH_CUDA=OFF "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]/%/_fuzz}"

# Files of the repository a target is seeded with, by name pattern (data/**, tests/**).
seed_patterns() {
  case $1 in
    dfsl) echo '*.m' ;;
    maestro_hw) echo '*.hw.m' ;;
    arch_yaml) echo '*.yaml *.yml' ;;
    gamma_csv | confuciux_csv) echo '*.csv' ;;
    onnx) echo '*.onnx' ;;
    mtx) echo '*.mtx' ;;
    npy | actual_density) echo '*.npy' ;;
    timeloop_arch) echo '*.arch.yaml arch.yaml parsed-processed-input.yaml' ;;
    timeloop_problem) echo '*.prob.yaml parsed-processed-input.yaml' ;;
    timeloop_mapping) echo '*.map.yaml' ;;
    timeloop_ert) echo '*.ERT.yaml' ;;
    timeloop_art) echo '*.ART.yaml' ;;
    timeloop_sparse) echo 'arch.yaml problem.yaml parsed-processed-input.yaml' ;;
    *) echo '' ;;
  esac
}
max_len() {
  case $1 in
    onnx) echo 65536 ;;
    timeloop_arch | timeloop_problem | timeloop_sparse) echo 32768 ;;
    map_checkpoint | search_checkpoint | mapping_db | codesign_checkpoint | fusion_checkpoint | \
      timeloop_map_checkpoint)
      echo 32768 ;;
    *) echo 16384 ;;
  esac
}

mkdir -p "$state/artifacts" "$state/logs"
failed=()
printf '%-18s %8s %12s %8s %8s %8s  %s\n' target seconds executions exec/s corpus rss_mb result
for t in "${targets[@]}"; do
  bin=$build/fuzz/${t}_fuzz
  corpus=$state/corpus/$t
  log=$state/logs/$t.log
  mkdir -p "$corpus"
  SPARSEMAP_FUZZ_SEEDS=$corpus "$bin" >/dev/null 2>&1 || {
    echo "fuzz: $t: writing the built-in seeds failed" >&2
    failed+=("$t")
    continue
  }
  for p in $(seed_patterns "$t"); do
    while IFS= read -r -d '' f; do
      [[ $t == dfsl && $f == *.hw.m ]] && continue
      name="repo_$(echo "${f#"$root"/}" | tr '/' '_')"
      if [[ $t == timeloop_mapping ]]; then  # the first byte 0: a YAML document follows
        [[ -e $corpus/$name ]] || { printf '\0'; cat "$f"; } >"$corpus/$name"
        continue
      fi
      cp -n "$f" "$corpus/$name"
    done < <(find "$root/data" "$root/tests" -name "$p" -type f -size -1024k -print0 2>/dev/null)
  done
  dict=()
  case $t in
    maestro_hw | arch_yaml) dict=(-dict="$root/fuzz/arch.dict") ;;
    mapping_db | *_checkpoint) dict=(-dict="$root/fuzz/json.dict") ;;
    timeloop_*) dict=(-dict="$root/fuzz/timeloop.dict") ;;
    *) [[ -f $root/fuzz/$t.dict ]] && dict=(-dict="$root/fuzz/$t.dict") ;;
  esac
  rc=0
  "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -max_len="$(max_len "$t")" -artifact_prefix="$state/artifacts/$t-" \
    -print_final_stats=1 >"$log" 2>&1 || rc=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  result=ok
  if ((rc != 0)); then
    result="FINDING (exit $rc; $log)"
    failed+=("$t")
  fi
  printf '%-18s %8s %12s %8s %8s %8s  %s\n' "$t" "$seconds" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "$(find "$corpus" -type f | wc -l)" "$(stat peak_rss_mb)" \
    "$result"
done

if ((${#failed[@]} > 0)); then
  echo "fuzz: findings in: ${failed[*]}; reproducers in $state/artifacts:" >&2
  ls -1t "$state/artifacts" | head -10 >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s), ${seconds}s each, no finding"
