#!/usr/bin/env bash
# The CLI's contract, held as files: the JSON of a small, fast run of every command that writes
# JSON and the --help text of every command, compared byte for byte with tests/e2e/golden/
# (issue 29: moving a system's work into the library must not change one byte of either).
#
# Usage: golden_test.sh PATH/TO/sparsemap [--update]   (run from the repository root)
#   --update rewrites tests/e2e/golden/ from this binary (for a change that means to change the
#   output; review the diff before committing it).
#
# What is normalised before comparing (and in the stored files): in the JSON, the values of the
# keys that measure wall time (TIMING below) become 0, as text; nothing else is touched, and every run
# here is deterministic for its seed and independent of the thread count and of OpenBLAS's
# kernel (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: none of these commands calls BLAS). In --help,
# the binary's path in the Usage line becomes "sparsemap"; nothing else (no default there
# depends on the machine or on the source path).
#
# Not held: commands whose JSON is a measurement (spmm-bench, prune-study, report: wall-clock
# SpMM timings; nongemm: operator times) or needs libtorch training (prune-train, train,
# nm-study, fuse-train, hwalloc's RL methods): their floats depend on the BLAS kernel and the
# machine. Their --help is held.
set -u
bin=$1
update=${2:-}
golden=tests/e2e/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
[[ $update == --update ]] && mkdir -p "$golden"

# compare NAME FILE: FILE against $golden/NAME (or stores it with --update).
compare() {
  if [[ $update == --update ]]; then
    cp "$2" "$golden/$1"
    return
  fi
  if cmp -s "$2" "$golden/$1"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $1 differs from $golden/$1:"
    diff "$golden/$1" "$2" | head -20
    fails=$((fails + 1))
  fi
}

# golden NAME ARGS...: runs `sparsemap ARGS --json FILE`, normalises the JSON, compares it.
golden() {
  local name=$1
  shift
  if ! "$bin" "$@" --json "$tmp/$name.raw" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: sparsemap $* exited non-zero: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return
  fi
  /usr/bin/python3 - "$tmp/$name.raw" "$tmp/$name.json" <<'PY'
import re, sys
# Keys whose values are wall times of this run (a number, or an array of numbers): each number
# becomes 0, as text; every other byte stays as the CLI wrote it.
TIMING = ["wall_s", "wall_s_first", "wall_s_per_seed", "load_s", "convergence_seconds",
          "seconds_to_best"]
text = open(sys.argv[1]).read()
keys = "|".join(TIMING)
number = r"-?[0-9][0-9.eE+-]*"
text = re.sub(r'("(?:%s)": )%s' % (keys, number), r"\g<1>0", text)
text = re.sub(r'("(?:%s)": )(\[[^\]]*\])' % keys,
              lambda m: m.group(1) + re.sub(number, "0", m.group(2)), text)
open(sys.argv[2], "w").write(text)
PY
  compare "$name.json" "$tmp/$name.json"
}

# help NAME ARGS...: `sparsemap ARGS --help`, the binary's path made "sparsemap", compared.
help() {
  local name=$1
  shift
  "$bin" "$@" --help 2>&1 | sed "s#^Usage: $bin #Usage: sparsemap #" >"$tmp/$name.help.txt"
  compare "$name.help.txt" "$tmp/$name.help.txt"
}
# Every command's --help (the list comes from `sparsemap --help`, so a new command is held too).
help sparsemap
commands=$(sed -n '/^Subcommands:/,$p' "$tmp/sparsemap.help.txt" | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[[ -n $commands ]] || { echo "FAIL: no subcommands in sparsemap --help"; exit 1; }
for c in $commands; do help "$c" "$c"; done

# Zoo, accelerators, evaluation.
golden models models
golden show show resnet18 --batch 2
golden arch arch gamma-edge
golden arch_hierarchy arch flat-edge --hierarchy
golden eval eval --model resnet18 --dataflow kcp_ws --hw gamma-edge
golden eval_sparse eval --model ncf --dataflow xp_ws --hw maestro-example --density W=0.5 \
  --structure W=nm:2:4 --enforce-buffers
tl=tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp
golden timeloop timeloop "$tl/timeloop-model.ERT.yaml" "$tl/parsed-processed-input.yaml"
# map (MAESTRO-class mapper), mse.
golden map map --model resnet18 --hw gamma-edge --budget 60 --seed 3 --quiet
golden map_compare map --model ncf --hw gamma-edge --algo random --budget 40 --seed 2 \
  --compare-dataflows --warm-start --levels 3 --quiet
golden map_density map --model ncf --hw maestro-example --budget 30 --density W=0.2:0.8 --quiet
golden map_file map --mapping tests/data/maestro/networks/ncf_nmk.m --hw maestro-example \
  --algo sa --budget 30 --compare-dataflows --quiet
golden mse mse --models ncf --algos gamma,random --budgets 20,40 --seeds 2 --quiet
# codesign, hwalloc, schedule, fuse, attention.
golden codesign codesign --model resnet18 --platform edge --budget 40 --seed 2 \
  --baselines random,fixed-gamma --quiet
golden hwalloc hwalloc --model tests/data/confuciux/models/resnet18.csv --method ga --budget 600 \
  --seed 5 --quiet
golden schedule schedule --job-table tests/data/magma/jobtable_batch_mix-insts0.csv --bw 1 \
  --budget 200 --seed 4 --quiet
golden fuse fuse --model resnet18 --method none,dp,greedy,learned --batch 4 --quiet
golden attention attention --model bert --hw flat-edge --seq 512 --map-budget 30 --seed 1 --quiet

if [[ $update == --update ]]; then
  echo "golden files written to $golden"
  exit 0
fi
echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
