#!/usr/bin/env python3
"""G# against the best heuristic and the best black-box optimiser at equal evaluations.

Runs `sparsemap schedule` on every platform x job batch x DRAM bandwidth (our own job tables,
built by our cost model), one JSON per case in OUT_DIR (a case whose JSON exists is not run
again: the folder is the checkpoint), then prints a markdown table and the geomeans of
makespan(best heuristic) / makespan(G#) and makespan(best black-box) / makespan(G#).

  bench/schedule_table.py [--sparsemap build/sparsemap] [--out-dir /tmp/schedule_table]
                          [--budget 10000] [--seed 1] [--with-cmaes]
"""
import argparse
import json
import math
import os
import subprocess
import sys

PLATFORMS = ["magma-s2", "magma-s3", "magma-s5", "magma-s7"]
BATCHES = ["vision", "language", "recommendation", "mix"]
BANDWIDTHS = [64, 256, 1024]  # bytes per cycle: from bandwidth-bound to compute-bound
BLACKBOX = ["ga", "random", "sa", "de", "pso", "oneplusone"]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sparsemap", default="build/sparsemap")
    ap.add_argument("--out-dir", default="/tmp/schedule_table")
    ap.add_argument("--budget", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--with-cmaes", action="store_true",
                    help="also run CMA-ES (about 40 s per case at 368 genes)")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    bb = BLACKBOX + (["cmaes"] if a.with_cmaes else [])
    algos = ",".join(["gsharp", "magma-ga"] + bb)
    rows = []
    for p in PLATFORMS:
        for b in BATCHES:
            for bw in BANDWIDTHS:
                path = os.path.join(a.out_dir, f"{p}_{b}_bw{bw}_s{a.seed}_n{a.budget}.json")
                if not os.path.exists(path):
                    cmd = [a.sparsemap, "schedule", "--jobs", b, "--platform", p, "--bw", str(bw),
                           "--algo", algos, "--budget", str(a.budget), "--seed", str(a.seed),
                           "--quiet", "--json", path + ".tmp"]
                    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                    os.replace(path + ".tmp", path)
                    print(f"done {p} {b} bw {bw}", file=sys.stderr)
                j = json.load(open(path))
                res = j["results"]
                g = res["gsharp"]["makespan_cycles"]
                hname, h = min(j["heuristics"].items(), key=lambda kv: kv[1])
                bname, bval = min(((n, res[n]["makespan_cycles"]) for n in bb if n in res),
                                  key=lambda kv: kv[1])
                rows.append(dict(platform=p, batch=b, bw=bw, jobs=j["num_jobs"], lb=j["lower_bound_cycles"],
                                 gsharp=g, magma=res["magma-ga"]["makespan_cycles"], heur=h, heur_name=hname,
                                 bb=bval, bb_name=bname, wall=res["gsharp"]["wall_s"]))
    print(f"budget {a.budget} evaluations, seed {a.seed}; makespans in cycles; x = baseline / G#\n")
    print("| platform | batch | bw B/cyc | jobs | G# | G#/LB | MAGMA GA x | best heuristic x | best black-box x |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['platform']} | {r['batch']} | {r['bw']} | {r['jobs']} | {r['gsharp']:,.0f} | "
              f"{r['gsharp'] / r['lb']:.4f} | {r['magma'] / r['gsharp']:.4f} | "
              f"{r['heur'] / r['gsharp']:.4f} ({r['heur_name']}) | {r['bb'] / r['gsharp']:.4f} ({r['bb_name']}) |")
    print()
    print("| subset | cases | geomean best heuristic / G# | geomean best black-box / G# | geomean MAGMA GA / G# | G# worse than best heuristic |")
    print("|---|---|---|---|---|---|")
    subsets = [("all", rows)] + [(f"bw {bw}", [r for r in rows if r["bw"] == bw]) for bw in BANDWIDTHS] + \
        [(p, [r for r in rows if r["platform"] == p]) for p in PLATFORMS]
    for name, rs in subsets:
        worse = sum(1 for r in rs if r["gsharp"] > r["heur"] * (1 + 1e-9))
        print(f"| {name} | {len(rs)} | {geomean([r['heur'] / r['gsharp'] for r in rs]):.4f} | "
              f"{geomean([r['bb'] / r['gsharp'] for r in rs]):.4f} | "
              f"{geomean([r['magma'] / r['gsharp'] for r in rs]):.4f} | {worse} |")


if __name__ == "__main__":
    main()
