#!/usr/bin/env python3
"""timeloop-mapper and `sparsemap map --hw` side by side on the committed mapper problems.

Usage: bench/timeloop_mapper_side_by_side.py TIMELOOP_BIN [--sparsemap build/sparsemap]
           [--problems NAME ...] [--timeout SECONDS] [--repeat N] [--threads T]
           [--json OUT.json]

TIMELOOP_BIN is the folder of timeloop v3.0.3's timeloop-mapper (built from NVlabs/timeloop,
never part of this repository; tests/data/timeloop/generated/PROVENANCE.md says how we built
ours). For each problem of tests/data/timeloop (the four example designs, exercise 05's three
runs, exercise 06, timeloop+accelergy intmac):

1. timeloop-mapper runs on the committed parsed-processed-input.yaml and ERT with the committed
   mapper settings (algorithm, threads, timeout, victory condition, metrics), its keys spelled
   the way v3.0.3 reads them (hyphens); wall and cpu (user + sys) seconds are measured;
2. its best mapping (timeloop-mapper.map.yaml) is priced by our model (`sparsemap timeloop`),
   which reproduces timeloop-model exactly (cycles) and to 0.1% (energy);
3. `sparsemap map --hw` runs on the same files with its defaults (auto: exhaustive up to
   2,000,000 points, else GAMMA with 10,000 evaluations, seed 1, --threads T, default 1),
   objective the file's optimization_metrics, and is timed the same way.

--repeat N runs both N times per problem (timeloop-mapper's random search stops at its victory
condition, so its time and result vary from run to run; ours do not, its time aside), one row
each.

Prints one row per problem: both mappings' cycles and energy, ours / timeloop's on the first
metric (and on the second where the first ties), and the wall-time ratio. Nothing here is a
test: it needs a timeloop build and minutes of machine time.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "timeloop")

PROBLEMS = {
    "eyeriss_like": "example_designs/eyeriss_like",
    "simba_like": "example_designs/simba_like",
    "simple_output_stationary": "example_designs/simple_output_stationary",
    "simple_weight_stationary": "example_designs/simple_weight_stationary",
    "05_baked": "05-mapper-conv1d+oc-3level/ref-output/baked",
    "05_freebypass": "05-mapper-conv1d+oc-3level/ref-output/freebypass",
    "05_null": "05-mapper-conv1d+oc-3level/ref-output/null",
    "06": "06-mapper-convlayer-eyeriss/ref-output",
    "intmac": "timeloop+accelergy/ref-output/intmac",
}

from timeloop_v303 import respell  # noqa: E402  (bench/timeloop_v303.py)


def mapper_input(folder, work):
    """The processed input as v3.0.3's timeloop-mapper reads it; returns (path, settings)."""
    with open(os.path.join(DATA, folder, "parsed-processed-input.yaml")) as f:
        spec = yaml.safe_load(f)
    for key in ("mapping", "mapspace", "globals", "compound_components",
                "dumped_by_timeloop_front_end"):
        spec.pop(key, None)  # the processed input's empty mapping list and front-end keys
    mapper = {k: v for k, v in spec.get("mapper", {}).items() if v not in (None, [])}
    for key in ("version", "out_prefix", "max_temporal_loops_in_a_mapping", "filter_revisits",
                "log_interval"):
        mapper.pop(key, None)
    # Later front ends also spell the metrics `optimization_metric` (exercise 05).
    metrics = mapper.pop("optimization_metric", None) or mapper.get("optimization_metrics")
    mapper["optimization_metrics"] = metrics or ["edp"]
    if "algorithm" in mapper:
        mapper["algorithm"] = mapper["algorithm"].replace("_", "-")
    mapper["live_status"] = False
    spec["mapper"] = mapper
    spec = respell(spec)
    path = os.path.join(work, "input.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False)
    return path, mapper


def timed(cmd, cwd, timeout):
    """Runs cmd (an argument list, no shell); returns (returncode, wall s, cpu s, output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        code = 124
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, wall, cpu, out


def price(sparsemap, folder, map_yaml, work):
    """Our model's cycles and energy (pJ) of a map.yaml on the problem's committed inputs."""
    out = os.path.join(work, "priced.json")
    src = os.path.join(DATA, folder)
    subprocess.run([sparsemap, "timeloop", os.path.join(src, "parsed-processed-input.yaml"),
                    map_yaml, os.path.join(src, "timeloop-mapper.ERT.yaml"), "--json", out],
                   check=True, capture_output=True)
    with open(out) as f:
        j = json.load(f)
    return j["cycles"], j["energy_pj"]


def metric(cycles, energy, name):
    return {"delay": cycles, "energy": energy, "edp": cycles * energy}[name]


def run_problem(name, folder, args):
    with tempfile.TemporaryDirectory() as work:
        inp, settings = mapper_input(folder, work)
        metrics = settings.get("optimization_metrics") or ["edp"]
        ert = os.path.join(DATA, folder, "timeloop-mapper.ERT.yaml")
        code, t_wall, t_cpu, out = timed(
            [os.path.join(args.timeloop_bin, "timeloop-mapper"), inp, ert], work, args.timeout)
        row = {"problem": name, "metrics": metrics, "timeloop_settings": settings,
               "timeloop_wall_s": t_wall, "timeloop_cpu_s": t_cpu, "timeloop_exit": code}
        map_yaml = os.path.join(work, "timeloop-mapper.map.yaml")
        if os.path.exists(map_yaml):
            row["timeloop_cycles"], row["timeloop_energy_pj"] = price(
                args.sparsemap, folder, map_yaml, work)
        else:
            row["timeloop_error"] = out.strip().splitlines()[-1:] if out.strip() else ["no output"]
        ours_json = os.path.join(work, "ours.json")
        code, o_wall, o_cpu, out = timed(
            [args.sparsemap, "map", "--hw", os.path.join(DATA, folder,
                                                          "parsed-processed-input.yaml"),
             "--ert", ert, "--threads", str(args.threads), "--quiet", "--json", ours_json], work,
            args.timeout)
        if code != 0:
            sys.exit(f"error: sparsemap map failed on {folder}: {out.strip()[-400:]}")
        with open(ours_json) as f:
            ours = json.load(f)
        layer = ours["layers"][0]
        row.update({"ours_cycles": layer["cycles"], "ours_energy_pj": layer["energy_pj"],
                    "ours_algo": layer["algo"], "ours_evaluations": layer["evaluations"],
                    "ours_threads": args.threads, "ours_wall_s": o_wall, "ours_cpu_s": o_cpu})
        return row


def print_row(r):
    m = r["metrics"]
    if "timeloop_cycles" not in r:
        print(f"{r['problem']:26s} timeloop-mapper gave no mapping (exit {r['timeloop_exit']}, "
              f"{r['timeloop_wall_s']:.1f} s): {r.get('timeloop_error')}")
        return
    tl = (r["timeloop_cycles"], r["timeloop_energy_pj"])
    us = (r["ours_cycles"], r["ours_energy_pj"])
    deciding = m[0]
    if len(m) > 1 and metric(*us, m[0]) == metric(*tl, m[0]):
        deciding = m[1]
    ratio = metric(*us, deciding) / metric(*tl, deciding)
    print(f"{r['problem']:26s} {','.join(m):13s} {tl[0]:>11,} {tl[1] / 1e6:10.3f} "
          f"{r['timeloop_wall_s']:8.1f} {r['timeloop_cpu_s']:8.1f} | {us[0]:>11,} "
          f"{us[1] / 1e6:10.3f} {r['ours_wall_s']:7.2f} {r['ours_cpu_s']:7.2f} | "
          f"{deciding:6s} {ratio:6.3f} {r['timeloop_wall_s'] / r['ours_wall_s']:8.0f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeloop_bin")
    ap.add_argument("--sparsemap", default=os.path.join(ROOT, "build", "sparsemap"))
    ap.add_argument("--problems", nargs="*", default=list(PROBLEMS), choices=list(PROBLEMS))
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per timeloop run")
    ap.add_argument("--repeat", type=int, default=1, help="runs of both per problem")
    ap.add_argument("--threads", type=int, default=1, help="sparsemap's evaluation threads")
    ap.add_argument("--json", help="write the rows as JSON to this file")
    args = ap.parse_args()
    if not os.access(os.path.join(args.timeloop_bin, "timeloop-mapper"), os.X_OK):
        sys.exit(f"error: no executable timeloop-mapper in '{args.timeloop_bin}'")
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
        [args.timeloop_bin, os.path.join(args.timeloop_bin, "..", "lib"),
         os.environ.get("LD_LIBRARY_PATH", "")])
    print(f"{'problem':26s} {'metrics':13s} {'tl cycles':>11s} {'tl uJ':>10s} {'tl wall':>8s} "
          f"{'tl cpu':>8s} | {'our cycles':>11s} {'our uJ':>10s} {'wall':>7s} {'cpu':>7s} | "
          f"deciding ours/tl wall-ratio")
    rows = []
    for name in args.problems:
        for run in range(args.repeat):
            rows.append(run_problem(name, PROBLEMS[name], args))
            rows[-1]["run"] = run
            print_row(rows[-1])
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
