#!/usr/bin/env bash
# Timeloop's own speed on one input, for the side-by-side with our loop-nest model.
#
# Usage: bench/timeloop_side_by_side.sh [TIMELOOP_BIN] [REPS]
#   (our side: build/loopnest_bench, or the LOOPNEST_BENCH environment variable)
#   TIMELOOP_BIN  folder holding timeloop-model (and, optionally, timeloop-mapper) of
#                 timeloop v3.0.3; the first argument, or the environment variable of that name.
#                 Timeloop is not part of this repository: build it from NVlabs/timeloop
#                 (see tests/data/timeloop/generated/PROVENANCE.md for how we built ours).
#   REPS          timeloop-model runs to take the median of (default 11).
#
# Input: eyeriss_like's default problem (ResNet-style 3x3 conv, C3 M32 P112 Q112, stride 2) with
# the mapping timeloop-mapper found for it, all committed under
# tests/data/timeloop/example_designs/eyeriss_like/ (parsed-processed-input.yaml,
# timeloop-mapper.map.yaml, timeloop-mapper.ERT.yaml).
#
# Prints:
#   1. timeloop-model: the median wall time of one whole process run (seconds), i.e. reading
#      the YAML inputs and the ERT, one evaluation of the mapping, and writing its statistics;
#      a timeloop-model process evaluates exactly one mapping, so this is its time per
#      evaluation as a user sees it.
#   2. timeloop-mapper (when present): valid mappings evaluated per second on 1 thread, as
#      (N2 - N1) / (t2 - t1) over two searches of N1 and N2 valid mappings (search-size), so the
#      fixed start-up cost (parsing, map-space construction) cancels out.
# Times are wall and cpu (user + sys) seconds: on a loaded machine, read the cpu ones.
#   0. ours (build/loopnest_bench on the same files, one thread): loop-nest evaluations per
#      second of the prepared evaluator on the mapping as a point (what a search calls) and of
#      evaluate_loopnest from the named mapping (resolution included), cpu time; and the ratios
#      of timeloop-model's cpu seconds per run and timeloop-mapper's per valid mapping to ours.
# Measured 2026-12-02 (timeloop v3.0.3, scons -O3 -flto, g++ 12; a shared 2-core x86-64 machine
# under load 3-6): timeloop-model 0.054 s wall, 0.025 s cpu per run (median of 11);
# timeloop-mapper 1 thread: 51 valid mappings/s wall, 70 per cpu second (129 tried per cpu s).
set -euo pipefail

bin="${1:-${TIMELOOP_BIN:-}}"
reps="${2:-11}"
if [[ -z "$bin" ]]; then
  echo "error: give the folder of the timeloop binaries: $0 TIMELOOP_BIN [REPS]" \
    "(or set TIMELOOP_BIN)" >&2
  exit 2
fi
if [[ ! -x "$bin/timeloop-model" ]]; then
  echo "error: no executable timeloop-model in '$bin' (build timeloop v3.0.3 first)" >&2
  exit 2
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
design="$root/tests/data/timeloop/example_designs/eyeriss_like"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The timeloop binaries link libtimeloop-mapper.so, left beside them by scons (or in ../lib).
export LD_LIBRARY_PATH="$bin:$bin/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The committed processed input, made for a later Timeloop, as timeloop v3.0.3 reads it:
# - timeloop concatenates its input files into one YAML document: the processed input's empty
#   `mapping: []` would clash with the map file's `mapping:`, so that line goes;
# - v3.0.3 reads these keys only hyphenated (later versions translate '_' to '-').
sed -e '/^mapping: \[\]$/d' \
  -e 's/\bdata_spaces:/data-spaces:/; s/\bread_write:/read-write:/; s/\bcluster_size:/cluster-size:/' \
  -e 's/\bmultiple_buffering:/multiple-buffering:/; s/\bmin_utilization:/min-utilization:/' \
  -e 's/\bnum_ports:/num-ports:/' "$design/parsed-processed-input.yaml" >"$work/base.yaml"
# Drops the top-level section $1 (its key and the indented lines under it) from stdin.
drop_section() { sed -e "/^$1:/,/^[a-z]/{/^$1:/d;/^ /d}"; }
# timeloop-model's input: without architecture_constraints, because v3.0.3's timeloop-model
# refuses mappings its own mapper found under these permutation constraints ("mapping violates
# architecture constraints"); the model only checks them, the mapping is given.
drop_section architecture_constraints <"$work/base.yaml" >"$work/input.yaml"
# timeloop-mapper's input: with the constraints (they bound the map space), without the
# processed input's mapper settings (underscored keys v3.0.3 would ignore; ours follow).
drop_section mapper <"$work/base.yaml" >"$work/mapper_input.yaml"
cp "$design/timeloop-mapper.map.yaml" "$work/map.yaml"
cp "$design/timeloop-mapper.ERT.yaml" "$work/ERT.yaml"

# Runs "$@" in a subshell, its output to out.txt in the current folder; appends
# "wall_s cpu_s" (cpu = user + sys, which other load on the machine inflates less) to $TIMES.
timed() {
  local TIMEFORMAT='%R %U %S'
  { time ("$@" >out.txt 2>&1); } 2>&1 | awk '{printf "%s %.3f\n", $1, $2 + $3}' >>"$TIMES"
}

# Median of column $1 of stdin.
median() {
  awk -v c="$1" '{print $c}' | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# ---- 0. ours: evaluations per cpu second ----------------------------------------------------
ours_bin="${LOOPNEST_BENCH:-$root/build/loopnest_bench}"
if [[ ! -x "$ours_bin" ]]; then
  echo "error: no executable $ours_bin (build the tree, or set LOOPNEST_BENCH)" >&2
  exit 2
fi
"$ours_bin" --benchmark_min_time=1 --benchmark_format=json "$design/parsed-processed-input.yaml" \
  "$design/timeloop-mapper.map.yaml" "$design/timeloop-mapper.ERT.yaml" >"$work/ours.json"
ours_rate() {  # items per cpu second of benchmark $1
  python3 -c "import json,sys; b=[x for x in json.load(open(sys.argv[1]))['benchmarks'] \
if x['name']==sys.argv[2]][0]; print('%.0f' % (b['iterations']/(b['cpu_time']*b['iterations']*1e-9)))" \
    "$work/ours.json" "$1"
}
point_rate=$(ours_rate LoopNest/Point/given)
named_rate=$(ours_rate LoopNest/Named/given)
echo "ours (loopnest_bench, 1 thread): $point_rate evaluations per cpu second as a prepared point," \
  "$named_rate from the named mapping (resolution included)"

# ---- 1. timeloop-model: seconds per run ------------------------------------------------------
mkdir -p "$work/model"
cd "$work/model"
"$bin/timeloop-model" ../input.yaml ../map.yaml ../ERT.yaml >out.txt 2>&1 || {
  echo "error: timeloop-model failed on $design; the end of its output:" >&2
  tail -5 out.txt >&2
  exit 1
}
TIMES="$work/model_times.txt"
for ((i = 0; i < reps; ++i)); do
  timed "$bin/timeloop-model" ../input.yaml ../map.yaml ../ERT.yaml
done
model_cpu=$(median 2 <"$TIMES")
echo "timeloop-model: median $(median 1 <"$TIMES") s wall, $model_cpu s cpu per run" \
  "(one evaluation, inputs parsed and stats written; $reps runs; eyeriss_like default problem," \
  "committed mapper mapping)"
awk -v c="$model_cpu" -v p="$point_rate" -v n="$named_rate" 'BEGIN {
  printf "ratio, timeloop-model cpu per run / ours per evaluation: %.0fx (point), %.0fx (named)\n",
    c * p, c * n }'

# ---- 2. timeloop-mapper: valid mappings per second, 1 thread ---------------------------------
if [[ ! -x "$bin/timeloop-mapper" ]]; then
  echo "timeloop-mapper: not in '$bin', skipped"
  exit 0
fi
# Random-pruned search on 1 thread that stops after exactly N valid mappings (no victory
# condition; a timeout large enough never to end the search first). log-stats makes the thread
# log "[0] INVALID <mappings tried> <valid> <invalid since the last valid>" per valid mapping.
TIMES="$work/mapper_times.txt"
sizes=(2000 12000)
tried=()
for n in "${sizes[@]}"; do
  mkdir -p "$work/mapper$n"
  cd "$work/mapper$n"
  printf '%s\n' "mapper:" "  algorithm: random-pruned" "  num-threads: 1" \
    "  optimization-metrics: [edp]" "  search-size: $n" "  victory-condition: 0" \
    "  timeout: 1000000" "  max-permutations-per-if-visit: 16" "  live-status: false" \
    "  log-stats: true" >mapper.yaml
  timed "$bin/timeloop-mapper" ../mapper_input.yaml mapper.yaml ../ERT.yaml
  grep -q "$n valid mappings found" out.txt || {
    echo "error: timeloop-mapper did not reach $n valid mappings; the end of its output:" >&2
    tail -5 out.txt >&2
    exit 1
  }
  tried+=("$(grep "INVALID" out.txt | tail -1 | awk '{print $3}')")
done
# The difference of the two searches: start-up (parsing, map-space construction) cancels out.
paste -d' ' "$TIMES" <(printf '%s\n' "${sizes[@]}") <(printf '%s\n' "${tried[@]}") | awk -v p="$point_rate" '
  NR == 1 {w1 = $1; c1 = $2; n1 = $3; m1 = $4}
  NR == 2 {w2 = $1; c2 = $2; n2 = $3; m2 = $4}
  END {
    printf "timeloop-mapper, 1 thread: %.0f valid mappings/s wall, %.0f per cpu second", \
      (n2 - n1) / (w2 - w1), (n2 - n1) / (c2 - c1)
    printf " (%.0f mappings tried per cpu second, invalid ones included); searches of %d and", \
      (m2 - m1) / (c2 - c1), n1
    printf " %d valid mappings: %.2f s and %.2f s wall, %.2f s and %.2f s cpu\n", n2, w1, w2, c1, c2
    printf "ratio, timeloop-mapper cpu per valid mapping / ours per evaluation: %.0fx\n", \
      p / ((n2 - n1) / (c2 - c1))
  }'
