#!/usr/bin/env python3
"""Two Python threads calling sparsemap.map_model on different models at once, against each
alone: the wall time of the pair over the longer of the two alone (1.0: perfect overlap on two
free cores; 2.0: the calls ran one after the other). Run at idle, on a machine with at least two
cores: `PYTHONPATH=build/python python3 bench/python_threads.py [--budget N] [--repeat R]`.
Prints one JSON line (the minimum over the repeats of each wall time)."""
import argparse
import json
import os
import threading
import time

import sparsemap as sm


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="resnet18,vgg16")
    p.add_argument("--hw", default="gamma-edge")
    p.add_argument("--budget", type=int, default=3000)
    p.add_argument("--repeat", type=int, default=5)
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
    print(json.dumps({"models": models, "budget": a.budget, "cpus": os.cpu_count(),
                      "load_average": os.getloadavg()[0],
                      "alone_s": {m: round(min(v), 4) for m, v in alone.items()},
                      "together_s": round(min(pair), 4),
                      "ratio": round(min(pair) / longest, 3)}))


if __name__ == "__main__":
    main()
