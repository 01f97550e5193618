#!/usr/bin/env bash
# Every command's help and a tiny run of each fit a 120-column terminal: no line of stdout or
# stderr is wider (display columns, `wc -L`). Also: no progress escapes when stderr is a file,
# and a repeated option takes its last value.
# Usage: cli_width_test.sh PATH/TO/sparsemap   (run from the repository root)
set -u
bin=$1
max=120
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fits NAME ARGS...: runs the CLI (status 0 or 2 for commands built without libtorch), then
# checks the width of what it printed.
fits() {
  local name=$1
  shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    if grep -q "without libtorch" "$tmp/err"; then
      pass=$((pass + 1))
      return 0
    fi
    echo "FAIL: $name: sparsemap $* exited $rc: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return 1
  fi
  local w
  w=$(cat "$tmp/out" "$tmp/err" | wc -L)
  if [[ $w -gt $max ]]; then
    echo "FAIL: $name: sparsemap $* printed a line of $w columns (> $max):"
    cat "$tmp/out" "$tmp/err" | awk -v m=$max 'length($0) > m' | head -3
    fails=$((fails + 1))
    return 1
  fi
  if grep -q $'\r\|\033' "$tmp/err"; then
    echo "FAIL: $name: sparsemap $* wrote carriage returns or escape codes into a file"
    fails=$((fails + 1))
    return 1
  fi
  pass=$((pass + 1))
}

fits "help" --help
# Every subcommand the CLI lists (so a new one is checked as soon as it is registered).
mapfile -t subs < <("$bin" --help | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }')
if [[ ${#subs[@]} -lt 15 ]]; then
  echo "FAIL: sparsemap --help lists ${#subs[@]} subcommands"
  fails=$((fails + 1))
fi
for sub in "${subs[@]}"; do fits "$sub --help" "$sub" --help; done

# --help shows the defaults (a few spot checks) and no CLI11 flag-default syntax.
"$bin" map --help >"$tmp/h" && grep -q -- "--budget INT=1000" "$tmp/h" ||
  { echo "FAIL: map --help shows --budget's default"; fails=$((fails + 1)); }
"$bin" codesign --help >"$tmp/h" && grep -q -- "--hw TEXT=gamma-edge" "$tmp/h" ||
  { echo "FAIL: codesign --help shows --hw's default"; fails=$((fails + 1)); }
"$bin" mse --help >"$tmp/h" && grep -q -- "--seeds INT=3" "$tmp/h" ||
  { echo "FAIL: mse --help shows --seeds' default"; fails=$((fails + 1)); }
if "$bin" nongemm --help >"$tmp/h" 2>&1 && grep -q "{false}" "$tmp/h"; then
  echo "FAIL: nongemm --help shows CLI11's {false}"
  fails=$((fails + 1))
fi

# mse with no option prints its help (and starts no study).
"$bin" mse >"$tmp/out" 2>&1 && grep -q "Usage:" "$tmp/out" && ! grep -q "^mse:" "$tmp/out" ||
  { echo "FAIL: mse without options prints usage"; fails=$((fails + 1)); }

# A repeated option takes its last value.
"$bin" show resnet18 --batch 4 --batch 2 --json "$tmp/rep.json" >/dev/null 2>&1 &&
  grep -q '"N": 2' "$tmp/rep.json" ||
  { echo "FAIL: a repeated option takes its last value"; fails=$((fails + 1)); }

# Tiny runs of every command.
fits "models" models
fits "show" show resnet50
fits "arch --list" arch --list
fits "arch" arch maestro-example
fits "arch --hierarchy" arch flat-cloud --hierarchy
fits "map" map --model resnet50 --hw maestro-example --budget 30 --quiet
fits "map --compare-dataflows" map --model resnet50 --hw maestro-example --budget 1000 --algo oneplusone \
  --objective throughput --compare-dataflows
fits "map bert" map --model bert-base --hw gamma-edge --budget 30 --compare-dataflows
fits "eval" eval --hw maestro-example --model resnet18 --dataflow kcp_ws
fits "mse" mse --models resnet18 --algos gamma,random,bo --budgets 20 --seeds 1 --max-layers 2
fits "codesign" codesign --model resnet18 --platform edge --budget 16 --baselines random,bo
fits "codesign --table" codesign --table --models resnet18 --platforms edge --budget 8 --baselines random
fits "attention" attention --model bert --hw flat-cloud --seq 512,1K --map-budget 100
fits "fuse" fuse --model resnet18 --method none,greedy,dp
fits "fuse-train" fuse-train --models synth:2 --draws 1 --search-budget 50 --epochs 1 --out "$tmp/f.pt" --quiet
fits "hwalloc" hwalloc --model resnet18 --method ga --budget 300 --quiet
fits "hwalloc confuciux" hwalloc --model resnet18 --method confuciux --budget 200 --quiet
fits "schedule" schedule --job-table tests/data/magma/jobtable_batch_mix-insts0.csv --bw 1 --budget 100
fits "spmm-bench" spmm-bench --shapes "64,64,32" --formats csr,cvse:8,nm:2:4 --sparsity 0.5,0.9 --min-ms 1 --min-reps 1
fits "prune-study" prune-study --shapes "64,64,32" --sparsity 0.5 --min-ms 1
fits "nongemm" nongemm --model resnet50 --tiny --threads 1 --iters 1 --schedule 0,0,0 --hw gamma-edge
fits "prune-train" prune-train --data synthetic --train-limit 128 --test-limit 32 --epochs 1 --batch 64 --threads 1
fits "prune-compare" prune-compare --data synthetic --train-limit 128 --test-limit 32 --epochs 1 --batch 64 --threads 1 --algos magnitude,rigl
fits "prune-overhead" prune-overhead --data synthetic --algos magnitude --steps 1 --rounds 1 --batch 16 --threads 1
fits "report" report --model resnet18 --hw maestro-example --budget 20 --codesign-budget 16 --spmm-shapes 1 \
  --spmm-cols 16 --spmm-sparsity 0.9 --spmm-min-ms 0.2 --out "$tmp/report.html"
fits "sparse-price" sparse-price --hw tests/data/sparseloop/04.2.1-eyeriss-like-gating --model resnet18 \
  --budget 20 --quiet
fits "timeloop" timeloop tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp/parsed-processed-input.yaml \
  tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp/timeloop-model.ERT.yaml
fits "train" train --data synthetic --steps 4 --batch 8 --train-limit 64 --test-limit 16 --eval-every 2 --quick --threads 1

# Each listed subcommand had a tiny run above (nm-study's cells are train runs on the real data
# sets, minutes each: its table is the train summary's, and its --help is checked).
for sub in "${subs[@]}"; do
  [[ $sub == nm-study ]] && continue
  grep -q "^fits \"$sub[\" ]" "${BASH_SOURCE[0]}" ||
    { echo "FAIL: no tiny run of $sub in this test"; fails=$((fails + 1)); }
done

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
