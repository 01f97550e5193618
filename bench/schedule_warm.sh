#!/bin/bash
# G# warm start on a new batch: MAGMA's batch_mix job files (tests/data/magma, bench/data/magma),
# job tables from our cost model. For each platform and bandwidth, G# schedules the source batch
# cold (10,000 evaluations); its JSON then warm-starts each target batch at BUDGET (default
# 1,000) evaluations, beside a cold search at BUDGET and at 10,000.
#   bench/schedule_warm.sh [build/sparsemap] [BUDGET] [--held-out]
# Tuning set (kWarmLocalSearchFraction and the warm-start design were chosen on it): insts0 ->
# insts1..4 on magma-s5 and magma-s7 at 256 and 1,024 B/cycle. --held-out: insts2 -> insts0,
# insts1, insts3, insts4 on magma-s2, magma-s3 and magma-s7 at 512 B/cycle (never used to choose).
set -euo pipefail
S=${1:-build/sparsemap}
N=${2:-1000}
here=$(cd "$(dirname "$0")/.." && pwd)
job() { if [ "$1" = 0 ]; then echo "$here/tests/data/magma/jobs_batch_mix-insts0.csv"; else
  echo "$here/bench/data/magma/jobs_batch_mix-insts$1.csv"; fi; }
if [ "${3:-}" = "--held-out" ]; then
  platforms="magma-s2 magma-s3 magma-s7"; bws="512"; src=2; targets="0 1 3 4"
else
  platforms="magma-s5 magma-s7"; bws="256 1024"; src=0; targets="1 2 3 4"
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ms() { python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['makespan_cycles']))" "$1"; }
echo "| platform | bw B/cyc | batch | cold $N | warm $N | cold 10000 | warm / cold 10000 |"
echo "|---|---|---|---|---|---|---|"
for p in $platforms; do
  for bw in $bws; do
    "$S" schedule --jobs "$(job $src)" --platform $p --bw $bw --quiet --json "$T/src.json" > /dev/null
    for i in $targets; do
      f=$(job "$i")
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget "$N" --quiet --json "$T/c.json" > /dev/null
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget "$N" --warm-start "$T/src.json" \
        --quiet --json "$T/w.json" > /dev/null
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget 10000 --quiet --json "$T/c10.json" > /dev/null
      c=$(ms "$T/c.json"); w=$(ms "$T/w.json"); c10=$(ms "$T/c10.json")
      r=$(python3 -c "print(f'{$w / $c10:.4f}')")
      echo "| $p | $bw | insts$src -> insts$i | $c | $w | $c10 | $r |"
    done
  done
done
