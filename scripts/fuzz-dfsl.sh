#!/usr/bin/env bash
# Fuzzes the DFSL reader (parse_dfsl, and the write_dfsl round trip) with libFuzzer, ASan and
# UBSan. Usage: scripts/fuzz-dfsl.sh [SECONDS]   (default 600)
# Builds build-fuzz/dfsl_fuzz with clang, seeds .fuzz/corpus from the MAESTRO test data
# (tests/data/maestro, part of the repository) and a few built-in inputs, then fuzzes for
# SECONDS. Exits non-zero when libFuzzer finds a crash, a timeout (5 s per input) or runs over
# 2 GiB; the failing input is saved under .fuzz/artifacts/. Needs clang and its runtime
# (Debian: clang, libclang-rt-14-dev).
set -euo pipefail

seconds=${1:-600}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-fuzz
corpus=$root/.fuzz/corpus
artifacts=$root/.fuzz/artifacts
reference=$root/tests/data/maestro

command -v clang++ >/dev/null || { echo "fuzz-dfsl: clang++ not found" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSPARSEMAP_FUZZ=ON -DSPARSEMAP_BUILD_TESTS=OFF -DSPARSEMAP_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target dfsl_fuzz -j 2

mkdir -p "$corpus" "$artifacts"
[[ -d $reference ]] || { echo "fuzz-dfsl: $reference missing (part of the repository)" >&2; exit 2; }
n=0
for f in "$reference"/{networks,random,uneven,invalid,defects}/*.m; do
  [[ $f == *.hw.m ]] && continue
  cp -n "$f" "$corpus/ref_$(basename "$(dirname "$f")")_$(basename "$f")"
  n=$((n + 1))
done
echo "fuzz-dfsl: seeded $n reference files from $reference"
seed() { printf '%s' "$2" >"$corpus/builtin_$1.m"; }
seed minimal 'Network n { Layer L { Type: CONV Dimensions { K: 4, C: 3, R: 3, S: 3, Y: 8, X: 8 } } }'
seed constants $'Constant T 4;\nNetwork n {\n Constant U T;\n Layer L {\n  Type: gemm // c\n  Dimensions { M T N U K 9 }\n  Dataflow { TemporalMap (T,U) M; Cluster(Sz(K), L); SpatialMap(1,1) N; }\n }\n}\n'
seed primed $'Network n { Layer Conv2d-1 { Type: DSCONV\nStride { X: 2 Y: 2 }\nDimensions { K: 1, C: 32 R: 3, S: 3, Y: 17, X: 17 }\nDataflow { SpatialMap(9,9) Y\'; TemporalMap(Sz(S),1) X; Cluster(3); TemporalMap(64,64) C; } } }'
seed comments $'/* block */ Network n { // line\n Layer L { Type: NGCONV Dimensions { G: 2, N: 1, N: 1, K: 2, C: 2 } } }'

echo "fuzz-dfsl: fuzzing for ${seconds}s (corpus $corpus)"
rc=0
"$build/fuzz/dfsl_fuzz" "$corpus" -dict="$root/fuzz/dfsl.dict" -max_total_time="$seconds" \
  -timeout=5 -rss_limit_mb=2048 -max_len=16384 -artifact_prefix="$artifacts/" \
  -print_final_stats=1 || rc=$?
if ((rc != 0)); then
  echo "fuzz-dfsl: FAILED (libFuzzer exit status $rc); reproducer(s) in $artifacts:" >&2
  ls -1t "$artifacts" | head -5 >&2
  exit 1
fi
echo "fuzz-dfsl: no crash in ${seconds}s"
