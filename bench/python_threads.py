#!/usr/bin/env python3
"""Two Python threads calling sparsemap.map_model on different models at once, against each
alone: the wall time of the pair over the longer of the two alone (1.0: perfect overlap on two
free cores; 2.0: the calls ran one after the other). Run at idle, on a machine with at least two
cores: `PYTHONPATH=build/python python3 bench/python_threads.py [--budget N] [--repeat R]`.
Prints one JSON line (the minimum over the repeats of each wall time). With the CLI built beside
the package (or --cli PATH), it also times the same two runs as two `sparsemap map` processes,
alone and at once: "processes_ratio" is what this machine's two cores give two independent
processes (shared caches, memory bandwidth, clocks), the bound the threads' ratio is read against."""
import argparse
import json
import os
import pathlib
import subprocess
import threading
import time

import sparsemap as sm


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="resnet18,vgg16")
    p.add_argument("--hw", default="gamma-edge")
    p.add_argument("--budget", type=int, default=3000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cli", default=str(pathlib.Path(sm.__file__).resolve().parents[2] / "sparsemap"))
    a = p.parse_args()
    models = a.models.split(",")

    def one(m):
        sm.map_model(m, a.hw, budget=a.budget, seed=1)

    one(models[0])  # warm-up: the first call loads the zoo and the presets
    alone = {m: [] for m in models}
    pair = []
    for _ in range(a.repeat):
        for m in models:
            t = time.perf_counter()
            one(m)
            alone[m].append(time.perf_counter() - t)
        threads = [threading.Thread(target=one, args=(m,)) for m in models]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        pair.append(time.perf_counter() - t)
    longest = max(min(v) for v in alone.values())
    out = {"models": models, "budget": a.budget, "cpus": os.cpu_count(),
           "load_average": os.getloadavg()[0],
           "alone_s": {m: round(min(v), 4) for m, v in alone.items()},
           "together_s": round(min(pair), 4),
           "ratio": round(min(pair) / longest, 3)}
    if os.access(a.cli, os.X_OK):
        out["processes_ratio"] = processes_ratio(a, models)
    print(json.dumps(out))


def processes_ratio(a, models):
    """The pair's wall time over the longer alone, as two `sparsemap map` processes."""
    def command(m):
        return [a.cli, "map", "--model", m, "--hw", a.hw, "--budget", str(a.budget), "--seed",
                "1", "--quiet"]

    def wall(ms):
        t = time.perf_counter()
        procs = [subprocess.Popen(command(m), stdout=subprocess.DEVNULL) for m in ms]
        for q in procs:
            if q.wait() != 0:
                raise SystemExit(f"{a.cli} map failed")
        return time.perf_counter() - t

    alone = {m: min(wall([m]) for _ in range(a.repeat)) for m in models}
    pair = min(wall(models) for _ in range(a.repeat))
    return round(pair / max(alone.values()), 3)


if __name__ == "__main__":
    main()
