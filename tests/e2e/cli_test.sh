#!/usr/bin/env bash
# End-to-end checks of the built CLI: output, JSON contract and exit statuses.
# Usage: cli_test.sh PATH/TO/sparsemap   (run from the repository root)
set -u
bin=$1
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {  # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
# kill_once_checkpointed PID FILE PATTERN: kill -9 PID once FILE (a checkpoint) holds PATTERN, a
# key only a finished layer writes (polling every 20 ms for at most 10 s).
kill_once_checkpointed() {
  for _ in $(seq 500); do
    grep -q "$3" "$2" 2>/dev/null && break
    sleep 0.02
  done
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}
# run EXPECTED_STATUS ARGS...: runs the CLI, keeps stdout/stderr in $tmp/out, $tmp/err.
run() {
  local want=$1
  shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: sparsemap $* exited $got, expected $want; stderr: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    return 1
  fi
  pass=$((pass + 1))
}

run 0 --version && check "version" grep -q "^sparsemap [0-9]" "$tmp/out"
for sub in models show arch; do run 0 "$sub" --help && check "$sub --help" grep -qi "usage" "$tmp/out"; done

run 0 models --json - &&
  check "models json" grep -q '"models"' "$tmp/out" &&
  check "models json resnet50" grep -q '"name": "resnet50"' "$tmp/out" &&
  check "models json macs key" grep -q '"macs":' "$tmp/out"

run 0 show resnet50 && check "show resnet50 conv1" grep -q "conv1" "$tmp/out"
run 0 show mobilenet_v2 --batch 2 --json "$tmp/mb.json" && check "show json file" grep -q '"total"' "$tmp/mb.json"
run 0 arch --list && check "arch list" grep -q "gamma-edge" "$tmp/out"
run 0 arch maestro-example --json - && check "arch json" grep -q '"pes": 256' "$tmp/out"

# Bad input: one line, exit status 2.
run 2 show no-such-model && check "unknown model message" grep -q "expected a model name" "$tmp/err"
run 0 arch flat-edge --hierarchy --json - && check "arch hierarchy json" python3 -c "import json,sys; \
j=json.load(open(sys.argv[1])); h=j['hierarchy']; l=h['levels']; \
assert [x['name'] for x in l]==['DRAM','L2','L1'] and l[1]['capacity_words']==262144 and l[2]['mesh_x']==32 \
and l[2]['instances']==1024 and h['compute']['instances']==1024 and 'DiGamma' in h['art']['source'] \
and abs(h['area_um2']/1e6-j['area_mm2'])<1e-12" "$tmp/out"
run 0 arch maestro-example --hierarchy && check "arch hierarchy text" grep -q "^ *DRAM .*unbounded" "$tmp/out"
run 2 arch no-such-preset && check "unknown preset message" grep -q "unknown accelerator .no-such-preset." "$tmp/err"
printf 'Network n {\n  Layer L {\n    Type: CONV\n    Dimensions { K: 0 }\n' >"$tmp/bad.m"
run 2 show "$tmp/bad.m" && check "bad dfsl one line" test "$(wc -l <"$tmp/err")" -eq 1 &&
  check "bad dfsl location" grep -q "bad.m:4:" "$tmp/err"
# The DFSL bad-input list: each gives one line naming file:line:column, and status 2.
bad_dfsl() {  # bad_dfsl NAME TEXT EXPECTED_FRAGMENT
  printf '%b' "$2" >"$tmp/$1.m"
  run 2 show "$tmp/$1.m" && check "$1: one line" test "$(wc -l <"$tmp/err")" -eq 1 &&
    check "$1: message" grep -q -- "$3" "$tmp/err"
}
bad_dfsl empty '' "$tmp/empty.m:1:1: expected"
bad_dfsl keyword 'Network n {\n Layer L {\n  Type: CONV\n  Frobnicate { }\n' "keyword.m:4:3: expected"
bad_dfsl brace 'Network n {\n Layer L {\n  Type: CONV\n  Dimensions { K: 4, C: 3\n}\n' "brace.m:6:1: expected '}'"
bad_dfsl negative 'Network n { Layer L { Type: CONV Dimensions { K: -4 } } }' "negative.m:1:"
bad_dfsl tile 'Network n { Layer L { Type: CONV Dimensions { K: 4 } Dataflow { TemporalMap(0,1) K; } } }' "tile.m:1:"
bad_dfsl constant 'Network n { Layer L { Type: CONV Dimensions { K: Undefined } } }' "constant.m:1:"
head -c 3000 /dev/urandom >"$tmp/binary.m"
run 2 show "$tmp/binary.m" && check "binary: one line" test "$(wc -l <"$tmp/err")" -eq 1
head -c 2000 /dev/urandom >"$tmp/garbage.onnx"
run 2 show "$tmp/garbage.onnx"
run 2 show resnet50 --batch 0 && check "batch 0 message" grep -q "batch" "$tmp/err"
run 2 frobnicate && check "unknown command" grep -q "unknown command .frobnicate." "$tmp/err"

# Hostile input (issue 19): each is one line naming the file or flag, exit status 2.
one_line() {  # one_line NAME FRAGMENT: the last run's stderr is one line holding FRAGMENT
  check "$1: one line" test "$(wc -l <"$tmp/err")" -eq 1 && check "$1: message" grep -q -- "$2" "$tmp/err"
}
printf 'num_pes: 256\noffchip_bw_cstr: 1e-12\n' >"$tmp/slow.m"
run 2 arch "$tmp/slow.m" && one_line "hw range" "slow.m:2:18: expected offchip_bw_cstr in \[0.001, 1e+12\]"
printf 'num_pes: 16\nl1_size_cstr: 1\nl2_size_cstr: 1\n' >"$tmp/tiny.m"
run 2 eval --model resnet18 --dataflow kcp_ws --hw "$tmp/tiny.m" --enforce-buffers --json "$tmp/tiny.json" &&
  one_line "eval: no feasible layer" "tiny.m: none of the 21 evaluations is feasible" &&
  check "eval: no feasible layer, JSON still written" grep -q '"status": "infeasible"' "$tmp/tiny.json"
run 2 map --model resnet18 --hw gamma-edge --budget 4294967296 && one_line "map huge budget" "<flag --budget>: expected a budget in"
mkdir -p "$tmp/adir"
run 2 map --model resnet18 --hw gamma-edge --budget 10 --resume "$tmp/adir" && one_line "resume a directory" "adir: cannot read: is a directory"
run 2 eval --model resnet18 --dataflow kcp_ws --hw gamma-edge --emit-m "$tmp/slow.m" && one_line "emit-m onto a file" "names an existing file"
run 2 show bert-base --seq 0 && check "seq 0 refused" grep -q "^--seq: expected a positive integer" "$tmp/err"
run 0 map --model ncf --hw gamma-edge --algo exhaustive --budget 20 --quiet &&
  check "partial exhaustive named" grep -q "4 of 4 layers have more points than --budget 20" "$tmp/err"
for cmd in "map --model resnet18 --hw gamma-edge" "codesign --model ncf --platform edge" \
  "schedule --job-table tests/data/magma/jobtable_batch_mix-insts0.csv"; do
  run 2 $cmd --seed -1 --quiet &&
    check "seed -1 refused (${cmd%% *})" grep -q "^--seed: expected a non-negative integer" "$tmp/err"
done

# nongemm (libtorch): a tiny model end to end; built without libtorch it says so, status 2.
# Its --plot writes its data beside the plot under the plot's whole name, never over the user's
# groups.csv (issue 19).
echo "mine" >"$tmp/groups.csv"
if "$bin" nongemm --model resnet50 --tiny --threads 1 --iters 1 --schedule 0,0,0 \
  --json "$tmp/ng.json" --plot "$tmp/groups.png" --quiet 2>"$tmp/err"; then
  check "nongemm json" grep -q '"nongemm_pct"' "$tmp/ng.json"
  check "nongemm plot data beside the plot" test -s "$tmp/groups.png.csv"
  check "nongemm plot leaves groups.csv alone" grep -qx "mine" "$tmp/groups.csv"
  check "nongemm groups" grep -q '"normalization"' "$tmp/ng.json"
  run 2 nongemm --model no-such-model && check "nongemm unknown model" grep -q "valid names" "$tmp/err"
else
  check "nongemm without libtorch" grep -q "without libtorch" "$tmp/err"
fi

# prune-train (libtorch): a tiny synthetic run end to end, and missing Fashion-MNIST names the
# Debian package (status 2); built without libtorch it says so, status 2.
if "$bin" prune-train --data synthetic --train-limit 256 --test-limit 64 --epochs 1 --batch 64 \
  --algo rigl --threads 1 --json "$tmp/pt.json" --quiet 2>"$tmp/err"; then
  check "prune-train json" grep -q '"pruned_sparsity_pct": 80' "$tmp/pt.json"
  run 2 prune-train --data-dir "$tmp/no-such-dir" --epochs 1 &&
    check "prune-train missing data" grep -q "dataset-fashion-mnist" "$tmp/err"
  # Refused before any work: 10,000 threads, a checkpoint into a folder that does not exist.
  run 2 prune-train --data synthetic --epochs 1 --threads 10000 &&
    one_line "prune-train threads" "<flag --threads>: expected 0 (all cores) to"
  run 2 train --data synthetic --steps 1 --checkpoint "$tmp/no/such/dir/ck.pt" &&
    one_line "train checkpoint folder" "ck.pt: cannot write the checkpoint: No such file"
  # Each bad flag is blamed by its own name.
  run 2 train --data synthetic --steps 1 --batch -1 && one_line "train batch" "<flag --batch>: expected a batch"
  run 2 train --data synthetic --steps 1 --nm-attention 9:4 && one_line "train nm-attention" "<flag --nm-attention>: '9:4'"
  # train and fuse-train, tiny, to a successful end.
  run 0 train --data synthetic --quick --steps 4 --batch 16 --train-limit 256 --test-limit 64 \
    --threads 1 --quiet --json "$tmp/train.json" &&
    check "train json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['command']=='train' and j['steps']==4 and j['nm_exact'] and 0<=j['test_accuracy_pct']<=100" "$tmp/train.json"
  run 0 fuse-train --models synth:1 --draws 1 --search-budget 40 --epochs 1 --threads 1 \
    --out "$tmp/fuser.pt" --quiet --json "$tmp/ft.json" &&
    check "fuse-train model" test -s "$tmp/fuser.pt"
  # nm-study refuses results recorded with other settings (it mixed them in: "0 cells run now").
  printf '{"settings": {"quick": false, "vit_epochs": 15, "gpt_steps": 3000}, "cells": {}}' >"$tmp/nm.json"
  run 2 nm-study --quick --models vit-tiny --recipes dense --results "$tmp/nm.json" &&
    one_line "nm-study other settings" "nm.json: the results were recorded with other settings"
else
  check "prune-train without libtorch" grep -q "without libtorch" "$tmp/err"
fi

# Sparse kernels: a tiny benchmark run with JSON, and a bad format.
run 0 spmm-bench --shapes 64,64,32 --formats csr,cvse:8 --sparsity 0.9 --min-ms 1 --json - &&
  check "spmm-bench json" grep -q '"speedup"' "$tmp/out"
run 2 spmm-bench --formats cvse:3 && check "spmm-bench bad format" grep -q "V must be 1, 2, 4, 8, 16 or 32" "$tmp/err"

# Mapping search (map): JSON keys, bad flags (one line, status 2), MPI == 1 process, and a run
# killed with kill -9 then resumed from its checkpoint == an uninterrupted run.
run 0 map --model resnet18 --hw gamma-edge --algo gamma --budget 200 --json "$tmp/map.json" --quiet &&
  for key in '"model"' '"algo"' '"layers"' '"runtime_cycles"' '"energy_nj"' '"macs"' '"samples"' '"mapping"' '"total"'; do
    check "map json $key" grep -q "$key" "$tmp/map.json"
  done
run 2 map --model resnet18 --hw gamma-edge --algo hillclimb && check "map bad algo" test "$(wc -l <"$tmp/err")" -eq 1 &&
  check "map bad algo message" grep -q "unknown algorithm 'hillclimb'" "$tmp/err"
run 2 map --model resnet18 --hw gamma-edge --objective speed && check "map bad objective" test "$(wc -l <"$tmp/err")" -eq 1
# --emit-m: a mapping MAESTRO cannot express (a tiled R or S) fails with one line and writes
# nothing; --maestro-compatible maps only what it can, and R/S are written whole.
run 2 map --model resnet18 --hw gamma-edge --budget 50 --emit-m "$tmp/em" --quiet &&
  check "map emit-m unwritable: one line" test "$(wc -l <"$tmp/err")" -eq 1 &&
  check "map emit-m unwritable: names the directive" grep -q "cannot be written for MAESTRO" "$tmp/err" &&
  check "map emit-m unwritable: nothing written" test ! -e "$tmp/em"
run 0 map --model resnet18 --hw gamma-edge --budget 50 --maestro-compatible --emit-m "$tmp/em" --quiet &&
  check "map emit-m maestro-compatible" grep -q "TemporalMap(7,7) R;" "$tmp/em/resnet18_gamma.m" &&
  check "map emit-m accelerator" grep -q "num_pes: 168" "$tmp/em/accelerator.m"
run 2 mse --models resnet18 --algos nope && check "mse bad algo" grep -q "unknown algorithm" "$tmp/err"
if command -v mpirun >/dev/null 2>&1; then
  "$bin" map --model resnet18 --hw gamma-edge --budget 300 --seed 3 --json "$tmp/mpi1.json" --quiet >/dev/null 2>&1
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe \
    "$bin" map --model resnet18 --hw gamma-edge --budget 300 --seed 3 --json "$tmp/mpi2.json" --quiet >/dev/null 2>&1
  check "map under mpirun -np 2 == 1 process" cmp -s "$tmp/mpi1.json" "$tmp/mpi2.json"
fi
"$bin" map --model resnet50 --hw gamma-edge --budget 10000 --seed 2 --json "$tmp/full.json" --quiet >/dev/null 2>&1
"$bin" map --model resnet50 --hw gamma-edge --budget 10000 --seed 2 --checkpoint "$tmp/ck.json" \
  --checkpoint-every 1000 --json "$tmp/killed.json" --quiet >/dev/null 2>&1 &
kill_once_checkpointed $! "$tmp/ck.json" '"best_fitness"'
check "map killed before the end" test ! -s "$tmp/killed.json"
run 0 map --model resnet50 --hw gamma-edge --budget 10000 --seed 2 --resume "$tmp/ck.json" \
  --json "$tmp/resumed.json" --quiet && check "map kill -9 + resume == uninterrupted" cmp -s "$tmp/full.json" "$tmp/resumed.json"

# attention (FLAT): the JSON contract, and bad shapes or buffers as one line with status 2.
run 0 attention --model bert --hw flat-cloud --seq 512,1K --map-budget 200 --json - --quiet &&
  for key in '"hw"' '"model"' '"batch"' '"results"' '"seq"' '"flat"' '"baseline"' '"latency_s"' \
    '"energy_pj"' '"dram_bytes"' '"footprint_bytes"' '"granularity"' '"row_tile"' '"bound"' \
    '"speedup"' '"energy_saving_pct"'; do
    check "attention json $key" grep -q "$key" "$tmp/out"
  done
run 0 attention --model gpt2 --hw flat-edge --seq 1K --map-budget 200 --quiet &&
  check "attention zoo model" grep -q "H=12 E=64 F=64" "$tmp/out"
for bad in "--heads 0" "--seq 0" "--seq 4X" "--head-dim 1024" "--batch 0" "--objective speed"; do
  # shellcheck disable=SC2086
  run 2 attention --model bert $bad --quiet && check "attention $bad: one line" test "$(wc -l <"$tmp/err")" -eq 1
done
# Each bad size blames its own flag, before any work (issue 19's review of attention).
attention_flag() {  # attention_flag "FLAGS" FRAGMENT
  # shellcheck disable=SC2086
  run 2 attention --model bert --seq 512 $1 --quiet && one_line "attention $1" "$2"
}
attention_flag "--seq 0" "<flag --seq>: expected sequence lengths of 1 to 16M"
attention_flag "--seq 999999999M" "<flag --seq>: expected sequence lengths of 1 to 16M"
attention_flag "--batch 9223372036854775807" "<flag --batch>: expected 1 to 16,777,216"
attention_flag "--heads 0" "<flag --heads>: expected 1 to"
attention_flag "--head-dim 0" "<flag --head-dim>: expected 1 to"
attention_flag "--d-model 0" "<flag --d-model>: expected 1 to"
attention_flag "--ffn -3" "<flag --ffn>: expected 1 to"
attention_flag "--map-budget 4294967296" "<flag --map-budget>: expected 1 to 100,000,000"
attention_flag "--json $tmp" "cannot write the JSON file: is a directory"
printf 'base: flat-edge\nl2_bytes: 1024\n' >"$tmp/tiny.yaml"
run 2 attention --model bert --hw "$tmp/tiny.yaml" --seq 512 --quiet &&
  check "attention tiny buffer" grep -q "buffer too small for any tile" "$tmp/err"

# schedule (G#): the JSON contract on MAGMA's job table, and bad job tables, job files and
# platforms: one line with file:line:column, exit status 2.
run 0 schedule --job-table tests/data/magma/jobtable_batch_mix-insts0.csv --bw 1 --budget 300 --json - &&
  check "schedule json keys" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['algo']=='gsharp' and j['evaluations']==300 and j['lower_bound_cycles']>1871853 and \
j['makespan_cycles']>=j['lower_bound_cycles'] and len(j['cores'])==4 and 'FCFS-GREEDY' in j['heuristics'] \
and all('start' in x and 'end' in x for c in j['cores'] for x in c['jobs'])" "$tmp/out"
printf 'job,core,latency_cycles,req_dram_bw\n0,0,10,1\n0,1,ten,1\n' >"$tmp/jt.csv"
run 2 schedule --job-table "$tmp/jt.csv" --bw 1 && check "schedule bad table one line" test "$(wc -l <"$tmp/err")" -eq 1 &&
  check "schedule bad table location" grep -q "jt.csv:3:5: expected a latency" "$tmp/err"
printf 'name,pes,dataflow\nc0,2048,kcp_ws\nc1,-4,kcp_ws\n' >"$tmp/pf.csv"
run 2 schedule --jobs mix --platform "$tmp/pf.csv" && check "schedule bad platform location" grep -q "pf.csv:3:4: expected a PE count" "$tmp/err"
printf '1,1,20,512,128,1,1,1,3\n1,2,20,512\n' >"$tmp/jobs.csv"
run 2 schedule --jobs "$tmp/jobs.csv" --platform magma-s2 && check "schedule bad job file location" grep -q "jobs.csv:2:" "$tmp/err"
# The bad-input classes of issue #19 on `schedule`: each one line naming the file or flag, exit 2.
sched_bad() {  # sched_bad NAME EXPECTED-TEXT ARGS...
  local name=$1 want=$2
  shift 2
  run 2 schedule --quiet --budget 50 "$@" && check "schedule $name one line" test "$(wc -l <"$tmp/err")" -eq 1 &&
    check "schedule $name message" grep -qF -- "$want" "$tmp/err"
}
jt=tests/data/magma/jobtable_batch_mix-insts0.csv
printf '\xef\xbb\xbf1,1,20,512,128,1,1,1,3\n1,2,0,512,128,1,1,1,3\n' >"$tmp/bom.csv"
sched_bad "BOM" "bom.csv:2:5: expected a size in 1..2147483647, found 0" --jobs "$tmp/bom.csv" --platform magma-s2
printf '1,1,20,\x1b[31m512,128,1,1,1,3\n' >"$tmp/ctl.csv"
sched_bad "control bytes" "ctl.csv:1:8: expected a size, found '?[31m512'" --jobs "$tmp/ctl.csv" --platform magma-s2
python3 -c "print('1,1,' + '9' * 1000000 + ',512,128,1,1,1,3')" >"$tmp/huge.csv"
sched_bad "huge field" "found 9999999999999999999999999999999999999999..." --jobs "$tmp/huge.csv" --platform magma-s2
test "$(wc -c <"$tmp/err")" -lt 300 || { echo "FAIL: schedule huge field echoed"; fails=$((fails + 1)); }
printf 'job,core,latency_cycles\n0,0,10\n' >"$tmp/cols.csv"
sched_bad "missing column" "cols.csv:1:" --job-table "$tmp/cols.csv" --bw 1
printf '1,1,20,512,128,1,1,1\n' >"$tmp/cols2.csv"
sched_bad "wrong columns" "cols2.csv:1:" --jobs "$tmp/cols2.csv" --platform magma-s2
for v in -5 0 nan; do
  printf 'job,core,latency_cycles,req_dram_bw\n0,0,%s,1\n' "$v" >"$tmp/lat.csv"
  sched_bad "latency $v" "lat.csv:2:5: expected a latency in cycles > 0" --job-table "$tmp/lat.csv" --bw 1
done
for v in -1 nan; do
  printf 'job,core,latency_cycles,req_dram_bw\n0,0,10,%s\n' "$v" >"$tmp/bw.csv"
  sched_bad "table bandwidth $v" "bw.csv:2:8: expected a DRAM bandwidth >= 0" --job-table "$tmp/bw.csv" --bw 1
done
for v in 0 -1 nan; do sched_bad "--bw $v" "<flag --bw>" --job-table "$jt" --bw "$v"; done
for v in 0 nan; do
  printf 'name,pes,dataflow\nc0,%s,kcp_ws\n' "$v" >"$tmp/pes.csv"
  sched_bad "platform pes $v" "pes.csv:2:4: expected a PE count" --jobs mix --platform "$tmp/pes.csv"
done
python3 -c "print('\n'.join(f'{i},1,20,512,128,1,1,1,3' for i in range(10001)))" >"$tmp/many.csv"
sched_bad "too many jobs" "many.csv:10001:1: more than 10000 jobs" --jobs "$tmp/many.csv" --platform magma-s2
python3 -c "print('job,core,latency_cycles,req_dram_bw'); print('\n'.join(f'{i},0,10,1' for i in range(10001)))" >"$tmp/manyt.csv"
sched_bad "too many table jobs" "manyt.csv:10002:1: more than 10000 jobs" --job-table "$tmp/manyt.csv" --bw 1
python3 -c "print('\n'.join(f'{i},1,20,512,128,1,1,1,3' for i in range(100001)))" >"$tmp/many.csv"
sched_bad "reader job limit" "many.csv:100001:1: more than 100000 jobs" --jobs "$tmp/many.csv" --platform magma-s2
sched_bad "--local-search nan" "<flag --local-search>: expected -1 (the default) or 0 to 1" --job-table "$jt" --bw 1 --local-search nan
sched_bad "--warm-copies 2" "<flag --warm-copies>" --job-table "$jt" --bw 1 --warm-copies 2
sched_bad "budget 2^32" "<flag --budget>" --job-table "$jt" --bw 1 --budget 4294967296
sched_bad "json into a missing folder" "$tmp/no/such/dir/s.json: cannot write" --job-table "$jt" --bw 1 --json "$tmp/no/such/dir/s.json"
mkdir -p "$tmp/adir" "$tmp/d.png"
sched_bad "directory as job table" "adir: cannot read: is a directory" --job-table "$tmp/adir" --bw 1
sched_bad "directory as job file" "adir/: cannot read: is a directory" --jobs "$tmp/adir/" --platform magma-s2
sched_bad "directory as warm start" "adir: cannot read: is a directory" --job-table "$jt" --bw 1 --warm-start "$tmp/adir"
sched_bad "directory as json" "adir: cannot write" --job-table "$jt" --bw 1 --json "$tmp/adir"
sched_bad "directory as plot" "d.png: is a directory" --job-table "$jt" --bw 1 --plot "$tmp/d.png"
sched_bad "warm start not JSON" "expected the JSON of a schedule run (parse error" --job-table "$jt" --bw 1 --warm-start "$tmp/bom.csv"
printf '{"schedule":{"core":[0],"priority":[0.5],"latency_cycles":[[-3]]}}' >"$tmp/w1.json"
sched_bad "warm start negative latency" "w1.json: expected schedule.latency_cycles finite and > 0" --job-table "$jt" --bw 1 --warm-start "$tmp/w1.json"
printf '{"schedule":{"core":[0],"priority":[1e999],"latency_cycles":[[3]]}}' >"$tmp/w2.json"
sched_bad "warm start huge priority" "w2.json: expected the JSON of a schedule run (number overflow parsing" --job-table "$jt" --bw 1 --warm-start "$tmp/w2.json"
printf '{"schedule":{"core":[0,1],"priority":[0.5],"latency_cycles":[[3]]}}' >"$tmp/w3.json"
sched_bad "warm start sizes" "w3.json: schedule.core, .priority and .latency_cycles disagree" --job-table "$jt" --bw 1 --warm-start "$tmp/w3.json"
echo "my notes" >"$tmp/g.png.jobs.dat"
sched_bad "plot onto a user's file" "g.png.jobs.dat: exists and was not written by sparsemap schedule" --job-table "$jt" --bw 1 --plot "$tmp/g.png"
check "schedule plot kept the user's file" grep -qx "my notes" "$tmp/g.png.jobs.dat"

# Fusion (fuse): the JSON contract, fusion beats no fusion on MobileNet-V2 at batch 64 on
# flat-edge (DRAM traffic saved), bad flags in one line, transformers and models without dataflow
# edges (a GAMMA .csv) refused, the learned mapper.
run 0 fuse --model mobilenet-v2 --batch 64 --hw flat-edge --method none,dp --json "$tmp/fuse.json" &&
  for key in '"model"' '"method"' '"buffer_bytes"' '"latency_cycles"' '"energy_nj"' '"dram_bytes"' \
    '"peak_buffer_bytes"' '"meets_buffer"' '"wall_s"' '"groups"' '"layers"' '"micro_batch"'; do
    check "fuse json $key" grep -q "$key" "$tmp/fuse.json"
  done
if command -v python3 >/dev/null 2>&1; then
  check "fuse dp beats none on mobilenet-v2 b64" python3 -c "
import json, sys
r = {x['method']: x for x in json.load(open('$tmp/fuse.json'))}
sys.exit(0 if r['dp']['latency_cycles'] < r['none']['latency_cycles'] and r['dp']['dram_saved_bytes'] > 3e8 else 1)"
fi
run 2 fuse --model mobilenet-v2 --method magic && check "fuse bad method" grep -q "unknown method 'magic'" "$tmp/err"
run 2 fuse --model bert-base --method dp && check "fuse refuses transformers" grep -q "not part of a chain" "$tmp/err"
run 2 fuse --model data/gamma/resnet18.csv &&
  check "fuse refuses a model without dataflow edges" grep -q "carries no dataflow edges" "$tmp/err" &&
  check "fuse no edges: one line" test "$(wc -l <"$tmp/err")" -eq 1
run 2 fuse --model resnet18 --batch 0 && check "fuse bad batch" test "$(wc -l <"$tmp/err")" -eq 1
# The learned mapper reads the plain weights without libtorch (any build).
run 0 fuse --model resnet50 --batch 16 --method learned --json "$tmp/learned.json" &&
  check "fuse learned meets the buffer" grep -q '"meets_buffer": true' "$tmp/learned.json"
run 2 fuse --model resnet18 --method learned --weights README.md &&
  check "fuse learned bad weights" grep -q "README.md: not a .*fuse-train" "$tmp/err"
# Bad input of issue #19, each one line with status 2 before any work: a directory to
# --resume, a budget past the cap, NaN for --buffer-kb, --json and fuse-train --out into a
# folder that does not exist.
run 2 fuse --model resnet18 --method search --resume "$tmp" &&
  check "fuse resume from a directory" grep -q "not a regular file" "$tmp/err"
run 2 fuse --model resnet18 --method search --budget 4294967296 &&
  check "fuse huge budget" grep -q "^sparsemap: <flag --budget>: expected 1 to 100000000" "$tmp/err"
run 2 fuse --model resnet18 --buffer-kb nan && check "fuse buffer nan" grep -q "buffer-kb" "$tmp/err"
run 2 fuse --model resnet18 --json "$tmp/no-such/x.json" &&
  check "fuse json into a missing folder" test "$(wc -l <"$tmp/err")" -eq 1
run 2 fuse-train --out "$tmp/no-such/fuser.pt" &&
  check "fuse-train out into a missing folder" grep -Eq "does not exist|without libtorch" "$tmp/err"
run 2 fuse-train --out "$tmp/f.pt" --checkpoint data/dnnfuser/fuser.bin &&
  check "fuse-train resumes from a checkpoint directory only" \
    grep -Eq "training does not resume from a model file|without libtorch" "$tmp/err"

# hwalloc (ConfuciuX): the JSON contract on a small GA run, a design within its budget, and a bad
# model CSV as one located line with status 2.
# The budget counts lookups (cache hits included): 100 go to the corner designs, then 25 designs
# of 20 layers spend the rest exactly.
run 0 hwalloc --model tests/data/confuciux/models/resnet18.csv --method ga --budget 600 --quiet --json - &&
  check "hwalloc json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['method']=='ga' and j['budget_counts']=='lookups' and j['calls']==600==j['lookups'] and \
j['designs']==25 and j['states']<j['lookups'] and j['best']['latency_cycles']>0 and \
j['constraint']['kind']=='area' and len(j['layers'])>0 and all(c[0]<=j['calls'] for c in j['convergence']) and \
0<j['best']['area']<=j['constraint']['value']<j['constraint']['max']" "$tmp/out"
run 2 hwalloc --model tests/data/confuciux/models/resnet18.csv --method ga --budget 60 &&
  check "hwalloc budget below the corners" grep -q "<flag --budget>: expected more than the 100 lookups" "$tmp/err"
printf 'K,C,Y,X,R,S,T\n64,3,224,224,7,7,1\n64,x,56,56,3,3,1\n' >"$tmp/cx.csv"
run 2 hwalloc --model "$tmp/cx.csv" --method ga --budget 10 &&
  check "hwalloc bad model csv" grep -q "cx.csv:3:4: expected a positive integer for C" "$tmp/err"

# hwalloc, bad input (issue 19's classes): one line naming the file or flag, status 2.
one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "$1" "$tmp/err"; }
hw=(hwalloc --model "$tmp/ok.csv" --method random --budget 40 --quiet)
printf 'K,C,Y,X,R,S,T\n16,8,10,10,3,3,1\n8,16,6,6,3,3,1\n' >"$tmp/ok.csv"
mkdir -p "$tmp/dir.ck"
run 2 "${hw[@]}" --resume "$tmp/dir.ck" && check "hwalloc resume a folder" one_line "dir.ck: cannot read: is a directory"
run 0 "${hw[@]}" --checkpoint "$tmp/hw.ck" && check "hwalloc checkpoint written" test -s "$tmp/hw.ck"
head -c 200 "$tmp/hw.ck" >"$tmp/cut.ck"
run 2 "${hw[@]}" --resume "$tmp/cut.ck" && check "hwalloc truncated checkpoint" one_line "cut.ck: not a hwalloc checkpoint"
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[0:4]=b'\xff\x00\x13\x7f'; open(sys.argv[2],'wb').write(b)" \
  "$tmp/hw.ck" "$tmp/garbled.ck"
run 2 "${hw[@]}" --resume "$tmp/garbled.ck" && check "hwalloc garbled checkpoint" one_line "garbled.ck: not a hwalloc checkpoint"
run 2 hwalloc --model "$tmp/ok.csv" --method random --budget 41 --quiet --resume "$tmp/hw.ck" &&
  check "hwalloc checkpoint of other settings" one_line "hw.ck: the checkpoint is of another run"
run 0 "${hw[@]}" --resume "$tmp/hw.ck" --json "$tmp/re.json" && check "hwalloc resume finished run" test -s "$tmp/re.json"
run 2 hwalloc --model "$tmp/ok.csv" --budget 4294967296 && check "hwalloc huge budget" one_line "<flag --budget>: expected a call budget from 1 to"
run 2 "${hw[@]}" --checkpoint-every 0 --checkpoint "$tmp/x.ck" && check "hwalloc checkpoint-every 0" one_line "<flag --checkpoint-every>"
run 2 "${hw[@]}" --stall -1 && check "hwalloc negative stall" one_line "<flag --stall>"
run 2 "${hw[@]}" --threads 100000 && check "hwalloc has no --threads" grep -q "threads" "$tmp/err"
run 2 "${hw[@]}" --json "$tmp/no/such/dir/x.json" && check "hwalloc json into a missing folder" one_line "x.json: --json: folder"
run 2 "${hw[@]}" --json "$tmp/dir.ck" && check "hwalloc json onto a folder" one_line "dir.ck: --json names a folder"
run 2 "${hw[@]}" --plot "$tmp/no/x.png" && check "hwalloc plot into a missing folder" one_line "x.png: --plot: folder"
run 2 "${hw[@]}" --checkpoint "$tmp/no/x.ck" && check "hwalloc checkpoint into a missing folder" one_line "x.ck: --checkpoint: folder"
# The plot's data and script are PLOT.csv/PLOT.gp under the plot's whole name: a user's conv.csv
# and conv.gp beside conv.png are never touched (gnuplot may be missing: status 0 or 2).
echo "mine" >"$tmp/conv.csv"
echo "mine" >"$tmp/conv.gp"
"$bin" "${hw[@]}" --plot "$tmp/conv.png" >/dev/null 2>&1
check "hwalloc plot keeps conv.csv" grep -qx mine "$tmp/conv.csv"
check "hwalloc plot keeps conv.gp" grep -qx mine "$tmp/conv.gp"
check "hwalloc plot data" grep -q "^calls,best" "$tmp/conv.png.csv"
# Model CSVs: a BOM is skipped; control bytes, a huge field, a wrong column count, zero,
# negative and overflowing dimensions and a layer beyond the cost model's exact counts are each
# one located line.
printf '\xef\xbb\xbfK,C,Y,X,R,S,T\n16,8,10,10,3,3,1\n' >"$tmp/bom.csv"
run 0 hwalloc --model "$tmp/bom.csv" --method random --budget 20 --quiet
printf 'K,C,Y,X,R,S,T\n16,8,1\x1b[31m0,10,3,3,1\n' >"$tmp/esc.csv"
run 2 hwalloc --model "$tmp/esc.csv" --method ga && check "hwalloc csv control bytes" one_line 'esc.csv:2:6: .*\\x1b'
python3 -c "import sys; open(sys.argv[1],'w').write('K,C,Y,X,R,S,T\n16,8,'+'1'*1000000+',10,3,3,1\n')" "$tmp/huge.csv"
run 2 hwalloc --model "$tmp/huge.csv" --method ga && check "hwalloc csv huge field" one_line "huge.csv:2:6" &&
  check "hwalloc csv huge field bounded" test "$(wc -c <"$tmp/err")" -lt 2000
printf 'K,C,Y,X,R,S,T\n16,8,10,10,3,3\n' >"$tmp/cols.csv"
run 2 hwalloc --model "$tmp/cols.csv" --method ga && check "hwalloc csv column count" one_line "cols.csv:2:15: expected 7 fields, got 6"
printf 'K,C,Y,X,R,S,T\n16,0,10,10,3,3,1\n' >"$tmp/zero.csv"
run 2 hwalloc --model "$tmp/zero.csv" --method ga && check "hwalloc csv zero dim" one_line "zero.csv:2:4: expected a positive integer for C"
printf 'K,C,Y,X,R,S,T\n16,8,10,-10,3,3,1\n' >"$tmp/neg.csv"
run 2 hwalloc --model "$tmp/neg.csv" --method ga && check "hwalloc csv negative dim" one_line "neg.csv:2:9: expected a positive integer for X"
printf 'K,C,Y,X,R,S,T\n1000000000,1000000000,1000000000,1000000000,3,3,1\n' >"$tmp/ovf.csv"
run 2 hwalloc --model "$tmp/ovf.csv" --method ga && check "hwalloc csv overflowing dims" one_line "ovf.csv:2:1: layer too large"
printf 'K,C,Y,X,R,S,T\n100000,100000,1000,1000,3,3,1\n' >"$tmp/big.csv"
run 2 hwalloc --model "$tmp/big.csv" --method ga && check "hwalloc layer beyond exact counts" one_line "cannot be priced on the minimum design"

# Every command once, tiny, to a successful end (issue 19: the checks above only saw some of
# them fail): eval, mse, codesign and prune-study here; train, nm-study and fuse-train with
# libtorch above.
run 0 eval --model resnet18 --dataflow kcp_ws --hw gamma-edge --json "$tmp/eval.json" &&
  check "eval json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['total']['runtime_cycles']>0 and len(j['layers'])>0" "$tmp/eval.json"
run 0 mse --models resnet18 --algos gamma,random --budgets 20 --seeds 1 --max-layers 2 --quiet \
  --json "$tmp/mse.json" &&
  check "mse json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert len(j['layers'])==2 and {r['algo'] for r in j['results']}=={'gamma','random'} and \
all(r['geomean_ratio']>=1 for r in j['results'])" "$tmp/mse.json"
run 0 codesign --model resnet18 --platform edge --budget 30 --baselines none --quiet --json "$tmp/cd.json" &&
  check "codesign json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['samples']==30 and j['feasible'] and 0<j['accelerator']['area_mm2']<=j['area_budget_mm2'] and j['total']['runtime_cycles']>0" "$tmp/cd.json"
run 0 prune-study --shapes 64,64,32 --sparsity 0.5 --v 4 --min-ms 1 --threads 1 --json "$tmp/ps.json" &&
  check "prune-study json" test -s "$tmp/ps.json"

# timeloop: exercise 04 (kp) from timeloop-model's own input, as its reference stats print it.
tl=tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp
run 0 timeloop "$tl/timeloop-model.ERT.yaml" "$tl/parsed-processed-input.yaml" --json "$tmp/tl.json" &&
  check "timeloop text" grep -q "^Cycles: *3,072" "$tmp/out" &&
  check "timeloop json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
g=[l for l in j['levels'] if l['name']=='GlobalBuffer'][0]; \
assert j['cycles']==3072 and j['utilization']==1 and g['instances']==16 and \
g['dataspaces']['Inputs']=={'reads':1152,'fills':576,'updates':0,'tile_words':576,'energy_pj':g['dataspaces']['Inputs']['energy_pj']} \
and abs(j['fj_per_compute']['Total']-14664.63)<0.01" "$tmp/tl.json"
run 2 timeloop "$tl/timeloop-model.ERT.yaml" &&
  check "timeloop missing parts" grep -q "<arguments>: expected an architecture, a problem, a mapping among the files" "$tmp/err"
# timeloop with Sparseloop's sparse_optimizations: 02.2.1 spMspM (docs/sparseloop.md), the
# reference's computes and cycles; a malformed rank format is one line, exit status 2.
sl=tests/data/sparseloop/02.2.1-spMspM
run 0 timeloop "$sl/arch.yaml" "$sl/problem.yaml" "$sl/timeloop-mapper.map.yaml" "$sl/timeloop-mapper.ERT.yaml" --json "$tmp/sl.json" &&
  check "timeloop sparse text" grep -q "512 algorithmic, 64 actual, 0 gated, 0 skipped" "$tmp/out" &&
  check "timeloop sparse json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
b=[l for l in j['levels'] if l['name']=='Buffer'][0]['dataspaces']['B']; \
assert j['algorithmic_computes']==512 and j['actual_computes']==64 and j['gated_computes']==0 \
and j['skipped_computes']==0 and j['cycles']==64 and b['read_counts']=={'algorithmic':512,'actual':64,'gated':0,'skipped':192} \
and b['metadata_reads']==[[64,0],[0,18]] and abs(j['fj_per_compute']['Total']-7190.35)<0.01" "$tmp/sl.json"
printf 'sparse_optimizations:\n  targets:\n  - name: Buffer\n    representation_format:\n      data_spaces:\n      - name: A\n        ranks: [{format: ZZ}]\n' >"$tmp/bad.sparse.yaml"
run 2 timeloop "$sl/arch.yaml" "$tmp/bad.sparse.yaml" &&
  check "timeloop bad rank format" grep -q "bad.sparse.yaml:7:26: expected a rank format UOP, CP, B, UB or RLE, found 'ZZ'" "$tmp/err" &&
  check "timeloop bad rank format one line" test "$(wc -l <"$tmp/err")" -eq 1
# sparse-price (docs/sparseloop.md): a bad --prune, and an actual density whose file is missing,
# are one line, exit status 2.
run 2 sparse-price --hw "$sl" --model resnet18 --prune nm:2 && one_line "sparse-price bad prune" \
  "^sparsemap: <flag --prune>: expected nm:N:M, vnm:V:N:M, unstructured:S, cvse:V:S or bsr:HxW:S (S a sparsity in \[0, 1)), found 'nm:2'$"
sed 's/^        density: 0.25/        file: no.npy/; s/distribution: fixed_structured.*/distribution: actual/' \
  tests/data/sparseloop/01.2.3-SCDU-dot-product/problem.yaml >"$tmp/actual.yaml"
run 2 timeloop tests/data/sparseloop/01.2.3-SCDU-dot-product/arch.yaml "$tmp/actual.yaml" &&
  one_line "actual density missing file" "actual.yaml:25:15: no file '$tmp/no.npy' for the actual density of A"
# timeloop --hw: a preset's three-level hierarchy (DRAM, L2, L1 per PE, MAC) and its ERT; one PE.
tp=tests/data/timeloop/03-model-conv1d+oc-3level/prob/conv1d+oc.prob.yaml
printf 'mapping:\n- target: L2\n  type: temporal\n  factors: R=1 P=16 K=16\n  permutation: PRK\n- target: L1\n  type: temporal\n  factors: R=3 P=1 K=2\n  permutation: RPK\n' >"$tmp/hw.map.yaml"
run 0 timeloop --hw maestro-example "$tp" "$tmp/hw.map.yaml" --json "$tmp/tlhw.json" &&
  check "timeloop --hw json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
assert j['cycles']==1536 and j['compute']['name']=='MAC' and [l['name'] for l in j['levels']]==['DRAM','L2','L1'] \
and abs(j['compute']['energy_pj']-1536*0.23)<1e-6" "$tmp/tlhw.json"
run 2 timeloop --hw maestro-example "$tl/parsed-processed-input.yaml" &&
  check "timeloop --hw and an architecture" grep -q "expected either --hw or an architecture" "$tmp/err"
printf 'mapping:\n- target: Buffer\n  type: temporal\n  factors: R=3 P=x\n' >"$tmp/bad.map.yaml"
run 2 timeloop "$tmp/bad.map.yaml" && check "timeloop bad factor" grep -q "bad.map.yaml:4:18: expected a positive integer factor for P" "$tmp/err"
# --emit-map writes the mapping it evaluated; read back, it evaluates to the same JSON.
ex3=tests/data/timeloop/03-model-conv1d+oc-3level
tl3=("$ex3/arch/3level.arch.yaml" "$ex3/prob/conv1d+oc.prob.yaml" "$ex3/map/conv1d+oc-3level-bypass.map.yaml"
  "$ex3/ref-output/bypass/timeloop-model.ERT.yaml")
run 0 timeloop "${tl3[@]}" --json "$tmp/tl3.json" --emit-map "$tmp/emitted.map.yaml" &&
  cp "$tmp/out" "$tmp/tl3.txt" &&
  check "timeloop emit-map" grep -q "^    type: datatype" "$tmp/emitted.map.yaml" &&
  run 0 timeloop "${tl3[@]:0:2}" "$tmp/emitted.map.yaml" "${tl3[3]}" --json "$tmp/tl3b.json" &&
  check "timeloop emitted map reads back to the same JSON" cmp -s "$tmp/tl3.json" "$tmp/tl3b.json"
# eval --timeloop: the same summary and JSON as timeloop; exclusive with eval's MAESTRO flags.
run 0 eval --timeloop "${tl3[@]}" --json "$tmp/ev3.json" &&
  check "eval --timeloop text" cmp -s "$tmp/tl3.txt" "$tmp/out" &&
  check "eval --timeloop json" cmp -s "$tmp/tl3.json" "$tmp/ev3.json"
run 2 eval --timeloop "${tl3[@]}" --hw gamma-edge &&
  check "eval --timeloop without --hw" grep -q "^sparsemap: <flag --timeloop>: --hw does not apply to Timeloop files" "$tmp/err"
run 2 eval --model resnet18 --dataflow kcp_ws && check "eval still needs --hw" grep -q "^--hw is required" "$tmp/err"

# map on a Timeloop architecture: eyeriss_like's default problem, at least as good as the
# committed timeloop-mapper result (EDP 5.099e12 pJ x cycles), replayed from the emitted map.yaml.
ey=tests/data/timeloop/example_designs/eyeriss_like
run 0 map --hw "$ey/parsed-processed-input.yaml" --budget 2000 --quiet --json "$tmp/tlm.json" \
  --emit-timeloop "$tmp/tlm" &&
  check "map timeloop json" python3 -c "import json,sys; j=json.load(open(sys.argv[1])); \
l=j['layers'][0]; t=j['total']; \
assert l['found'] and l['edp']<=5.0993e12 and l['edp']==t['edp'] and l['evaluations']==2000 \
and l['bound']['edp']<=l['edp'] and j['metrics']==['edp']" "$tmp/tlm.json" &&
  run 0 timeloop "$ey/parsed-processed-input.yaml" "$tmp/tlm/conv2D.map.yaml" \
    "$ey/timeloop-mapper.ERT.yaml" --json "$tmp/tlr.json" &&
  check "map timeloop replays" python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['layers'][0]; \
r=json.load(open(sys.argv[2])); assert m['cycles']==r['cycles'] and m['energy_pj']==r['energy_pj']" \
    "$tmp/tlm.json" "$tmp/tlr.json"
# The same on four ResNet-18 layers: the JSON (wall times aside) does not change with 2 threads,
# under mpirun -np 2, or after kill -9 and --resume.
mkdir -p "$tmp/net"
cp tests/data/timeloop/layer_shapes/problem_base.yaml "$tmp/"
for l in 01 05 07 10; do cp "tests/data/timeloop/layer_shapes/resnet18/$l.yaml" "$tmp/net/"; done
same_but_time() {
  python3 -c "import json,sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if k != 'seconds'}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3]); sys.exit(a != b)" "$1" "$2"
}
tlnet=(map --hw "$ey/parsed-processed-input.yaml" --model "$tmp/net" --algo gamma --budget 6000 --seed 3 --quiet)
"$bin" "${tlnet[@]}" --json "$tmp/tln1.json" >/dev/null 2>&1
run 0 "${tlnet[@]}" --threads 2 --json "$tmp/tln2.json" &&
  check "map timeloop --threads 2 == 1 thread" same_but_time "$tmp/tln1.json" "$tmp/tln2.json"
if command -v mpirun >/dev/null 2>&1; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe \
    "$bin" "${tlnet[@]}" --json "$tmp/tlnm.json" >/dev/null 2>&1
  check "map timeloop under mpirun -np 2 == 1 process" same_but_time "$tmp/tln1.json" "$tmp/tlnm.json"
fi
"$bin" "${tlnet[@]}" --checkpoint "$tmp/tlck.json" --checkpoint-every 500 --json "$tmp/tlk.json" >/dev/null 2>&1 &
kill_once_checkpointed $! "$tmp/tlck.json" '"evaluations"'
check "map timeloop killed before the end" test ! -s "$tmp/tlk.json"
run 0 "${tlnet[@]}" --resume "$tmp/tlck.json" --json "$tmp/tlr2.json" &&
  check "map timeloop kill -9 + resume == uninterrupted" same_but_time "$tmp/tln1.json" "$tmp/tlr2.json"
run 2 "${tlnet[@]}" --seed 4 --resume "$tmp/tlck.json" &&
  check "map timeloop resume of another run" grep -q "the checkpoint belongs to another run" "$tmp/err"
fb=tests/data/timeloop/05-mapper-conv1d+oc-3level/ref-output/freebypass/parsed-processed-input.yaml
cp "${fb%/*}/timeloop-mapper.ERT.yaml" "$tmp/"  # the ERT beside the edited architectures
sed 's/factors: R=1,P=16,K=16/factors: R=1,Z=16,K=16/' "$fb" >"$tmp/badc.yaml"
run 2 map --hw "$tmp/badc.yaml" --quiet &&
  check "map bad constraint" grep -q "constraints of GlobalBuffer: expected a dimension of Conv1D_OC in 'R=1,Z=16,K=16', found 'Z'" "$tmp/err" &&
  check "map bad constraint one line" test "$(wc -l <"$tmp/err")" -eq 1
sed 's/factors: R=1,P=16,K=16/factors: R=1,P=32,K=16/' "$fb" >"$tmp/unsat.yaml"
run 2 map --hw "$tmp/unsat.yaml" --quiet &&
  check "map unsatisfiable constraint" grep -q "'P=32' cannot be met: the bound of P is 16" "$tmp/err"
sed 's/depth: 64$/depth: 1/' "${fb/freebypass/baked}" >"$tmp/nofit.yaml"
run 2 map --hw "$tmp/nofit.yaml" --quiet &&
  check "map no mapping fits" grep -q "no mapping of layer Conv1D_OC fits this architecture" "$tmp/err"

# timeloop --no-leakage prices as timeloop-model 3.0.3 does (a run made here, tests/data/timeloop/generated).
gen=tests/data/timeloop/generated/eyeriss_like
run 0 timeloop "$gen/arch.yaml" "$gen/resnet18_01/prob.yaml" "$gen/resnet18_01/map.yaml" \
  tests/data/timeloop/example_designs/eyeriss_like/timeloop-mapper.ERT.yaml --no-leakage --json "$tmp/nl.json" &&
  check "timeloop no leakage" python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['fj_per_compute']; \
assert round(f['Total'],2)==4041.93 and round(f['weights_spad'],2)==989.50 and round(f['psum_spad'],2)==538.53" "$tmp/nl.json"

echo "$pass passed, $fails failed"
[[ $fails -eq 0 ]]
