#!/usr/bin/python3
"""Tuning runs of digamma's constants, on the declared tuning set only.

The tuning set (src/dse/codesign/digamma_search.cpp, kTuningModels x kTuningSeeds): resnet50
and mobilenet-v2, seeds 1, 2, 3, edge and cloud, latency. Each call runs digamma and the
fixed-grid + GAMMA baseline on that set for one setting and appends one line per case and
one summary line to OUT (JSON lines), so the file records every setting tried.

Usage: bench/codesign_tune.py LABEL BUDGET OUT [extra codesign flags...]
  LABEL   a name for the setting (e.g. "pop10" or "round1=0.25"): constants compiled into
          the binary are named here by hand
Needs SPARSEMAP (default build/sparsemap).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

MODELS = ["resnet50", "mobilenet-v2"]
SEEDS = [1, 2, 3]
PLATFORMS = ["edge", "cloud"]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    label, budget, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    extra = sys.argv[4:]
    binary = os.environ.get("SPARSEMAP", "build/sparsemap")
    logs = {p: {"grid": [], "bound": []} for p in PLATFORMS}
    with open(out, "a") as f, tempfile.TemporaryDirectory() as tmp:
        for p in PLATFORMS:
            for m in MODELS:
                for s in SEEDS:
                    js = os.path.join(tmp, "c.json")
                    subprocess.run([binary, "codesign", "--model", m, "--platform", p,
                                    "--budget", str(budget), "--seed", str(s), "--quiet",
                                    "--baselines", "fixed-gamma", "--json", js] + extra,
                                   check=True, stdout=subprocess.DEVNULL)
                    j = json.load(open(js))
                    d = j["total"]["runtime_cycles"]
                    g = j["baselines"]["fixed-gamma"]["runtime_cycles"]
                    b = j["compute_bound_cycles"]
                    row = {"label": label, "budget": budget, "extra": extra, "platform": p,
                           "model": m, "seed": s, "digamma_cycles": d, "grid_cycles": g,
                           "bound_cycles": b, "x_grid": g / d, "distance": d / b,
                           "pes": j["accelerator"]["pes"]}
                    f.write(json.dumps(row) + "\n")
                    logs[p]["grid"].append(math.log(g / d))
                    logs[p]["bound"].append(math.log(d / b))
        summary = {"label": label, "budget": budget, "extra": extra, "summary": True}
        for p in PLATFORMS:
            n = len(logs[p]["grid"])
            summary[p] = {"geomean_x_grid": math.exp(sum(logs[p]["grid"]) / n),
                          "min_x_grid": math.exp(min(logs[p]["grid"])),
                          "geomean_distance": math.exp(sum(logs[p]["bound"]) / n)}
        f.write(json.dumps(summary) + "\n")
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
