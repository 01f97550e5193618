#!/usr/bin/env python3
"""Replays `sparsemap map --hw`'s best mappings in timeloop-model (v3.0.3).

Usage: bench/timeloop_mapper_replay.py TIMELOOP_BIN [--sparsemap build/sparsemap]
           [--problems NAME ...]

For each committed mapper problem (bench/timeloop_mapper_side_by_side.py's list): our search
(defaults) writes its mapping with --emit-timeloop; timeloop-model runs it on the problem's
processed input (keys respelled for v3.0.3, mapper settings and architecture_constraints
dropped: the model only checks a given mapping) with the committed ERT. Prints our cycles and
energy beside timeloop-model's. Energy differs by our leakage (v3.0.3 prices none).
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "side_by_side", os.path.join(HERE, "timeloop_mapper_side_by_side.py"))
sbs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sbs)


def replay(name, args, env):
    src = os.path.join(sbs.DATA, sbs.PROBLEMS[name])
    with tempfile.TemporaryDirectory() as w:
        subprocess.run([args.sparsemap, "map", "--hw", os.path.join(src, "parsed-processed-input.yaml"),
                        "--quiet", "--json", os.path.join(w, "ours.json"), "--emit-timeloop",
                        os.path.join(w, "emit")], check=True, capture_output=True)
        with open(os.path.join(w, "ours.json")) as f:
            ours = json.load(f)["layers"][0]
        with open(os.path.join(src, "parsed-processed-input.yaml")) as f:
            spec = yaml.safe_load(f)
        for key in ("mapping", "mapspace", "globals", "compound_components",
                    "dumped_by_timeloop_front_end", "mapper", "architecture_constraints"):
            spec.pop(key, None)
        with open(os.path.join(w, "input.yaml"), "w") as f:
            yaml.safe_dump(sbs.respell(spec), f, sort_keys=False)
        (mapping,) = os.listdir(os.path.join(w, "emit"))
        subprocess.run([os.path.join(args.timeloop_bin, "timeloop-model"),
                        os.path.join(w, "input.yaml"), os.path.join(w, "emit", mapping),
                        os.path.join(src, "timeloop-mapper.ERT.yaml")], cwd=w, env=env,
                       check=True, capture_output=True)
        with open(os.path.join(w, "timeloop-model.stats.txt")) as f:
            stats = f.read()
    cycles = int(re.search(r"Cycles: (\d+)", stats).group(1))
    energy = float(re.search(r"Energy: ([\d.]+) uJ", stats).group(1))
    same = "exact" if cycles == ours["cycles"] else "DIFFER"
    print(f"{name:26s} ours {ours['cycles']:>11,} cycles {ours['energy_pj'] / 1e6:10.3f} uJ | "
          f"timeloop-model {cycles:>11,} cycles {energy:10.3f} uJ | cycles {same}")
    return cycles == ours["cycles"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeloop_bin")
    ap.add_argument("--sparsemap", default=os.path.join(os.path.dirname(HERE), "build", "sparsemap"))
    ap.add_argument("--problems", nargs="*", default=list(sbs.PROBLEMS), choices=list(sbs.PROBLEMS))
    args = ap.parse_args()
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(
        [args.timeloop_bin, os.environ.get("LD_LIBRARY_PATH", "")]))
    ok = all([replay(name, args, env) for name in args.problems])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
