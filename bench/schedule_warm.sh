#!/bin/bash
# G# warm start on a new batch: MAGMA's batch_mix job files (tests/data/magma, bench/data/magma),
# job tables from our cost model. For each platform and bandwidth, G# schedules insts0 cold
# (10,000 evaluations); its JSON then warm-starts insts1..insts4 at BUDGET (default 1,000)
# evaluations, beside a cold search at BUDGET and at 10,000.
#   bench/schedule_warm.sh [build/sparsemap] [BUDGET]
set -euo pipefail
S=${1:-build/sparsemap}
N=${2:-1000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
here=$(cd "$(dirname "$0")/.." && pwd)
ms() { python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['makespan_cycles']))" "$1"; }
echo "| platform | bw B/cyc | batch | cold $N | warm $N | cold 10000 | warm / cold 10000 |"
echo "|---|---|---|---|---|---|---|"
for p in magma-s5 magma-s7; do
  for bw in 256 1024; do
    "$S" schedule --jobs "$here/tests/data/magma/jobs_batch_mix-insts0.csv" --platform $p --bw $bw \
      --quiet --json "$T/src.json" > /dev/null
    for i in 1 2 3 4; do
      f="$here/bench/data/magma/jobs_batch_mix-insts$i.csv"
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget "$N" --quiet --json "$T/c.json" > /dev/null
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget "$N" --warm-start "$T/src.json" \
        --quiet --json "$T/w.json" > /dev/null
      "$S" schedule --jobs "$f" --platform $p --bw $bw --budget 10000 --quiet --json "$T/c10.json" > /dev/null
      c=$(ms "$T/c.json"); w=$(ms "$T/w.json"); c10=$(ms "$T/c10.json")
      r=$(python3 -c "print(f'{$w / $c10:.4f}')")
      echo "| $p | $bw | insts0 -> insts$i | $c | $w | $c10 | $r |"
    done
  done
done
