#!/usr/bin/python3
"""DiGamma's tables on held-out seeds: co-design against the best optimiser baseline, against
fixed-grid + GAMMA, and against the bound, per model and platform, at equal samples.

Each case (objective, platform, model, seed) is one `sparsemap codesign` run with every
baseline at the same budget, on one thread. Its result is appended to RESULTS (JSON lines)
as soon as it ends, so a killed run continues where it stopped (cases already there are not
run again). Tables are printed and written to OUT.md.

Table 1 (latency), per model and platform, the mean over the seeds of
  x opt    best optimiser baseline's cycles / codesign cycles (best of ga, random, sa, de, pso,
           cmaes, oneplusone, bo, per seed)
  x grid   fixed-grid + GAMMA cycles / codesign cycles (and the smallest over the seeds)
  x grid+s fixed-grid + GAMMA + spatial seeds (baseline fixed-gamma-seeds: each layer's GAMMA
           opened with the mapper's 4 spatial seeds, same samples) cycles / codesign cycles
           (and the smallest over the seeds, to 4 decimals: it comes close to 1)
  dist     codesign cycles / the bound (compute_bound_cycles)
  dist U   codesign cycles / the utilisation bound (utilisation_bound_cycles: whole loop
           indices spread over the PEs; no design is below it either)
  opt/bnd  the best optimiser's cycles / the bound
  opt/U    the best optimiser's cycles / the utilisation bound: the most any design could
           gain over that optimiser
  grid/bnd fixed-grid + GAMMA cycles / the bound
  grid+s/bnd fixed-grid + GAMMA + spatial seeds cycles / the bound
then geomeans over all models and over the held-out models alone (not in the tuning set); in
the min columns of those rows, the smallest over their models and seeds.
Table 2: the same ratios of the objective itself for the other --objectives (energy, EDP),
on --seeds2 (default two held-out seeds, so the whole run stays near 25 minutes on one core).

Usage: bench/codesign_table.py [--budget N] [--seeds 11,12,13] [--models a,b,...]
       [--platforms edge,cloud] [--objectives latency,energy,edp] [--seeds2 11,12]
       [--results FILE]
       [--out PREFIX]
Needs a built CLI: SPARSEMAP=path (default build/sparsemap).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

TUNING_MODELS = ["resnet50", "mobilenet-v2"]  # digamma_search.cpp, kTuningModels
OLD_TABLE = ["resnet18", "resnet50", "mobilenet-v2", "vgg16", "mnasnet", "bert-base", "dlrm"]
ADDED = ["gpt2", "vit-b16", "t5-base", "ncf"]
OPTIMISERS = ["ga", "random", "sa", "de", "pso", "cmaes", "oneplusone", "bo"]


def run_case(binary, objective, platform, model, seed, budget):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "case.json")
        t0 = time.time()
        subprocess.run([binary, "codesign", "--model", model, "--platform", platform,
                        "--objective", objective, "--budget", str(budget), "--seed", str(seed),
                        "--threads", "1", "--quiet", "--baselines", "all", "--json", out],
                       check=True, stdout=subprocess.DEVNULL)
        j = json.load(open(out))
    row = {"objective": objective, "platform": platform, "model": model, "seed": seed,
           "budget": budget, "wall_s": time.time() - t0,
           "codesign": {"feasible": j["feasible"], "fitness": j["fitness"],
                        "runtime_cycles": j["total"]["runtime_cycles"],
                        "energy_nj": j["total"]["energy_nj"], "pes": j["accelerator"]["pes"],
                        "l1_bytes": j["accelerator"]["l1_bytes"],
                        "l2_bytes": j["accelerator"]["l2_bytes"],
                        "area_mm2": j["accelerator"]["area_mm2"], "samples": j["samples"]},
           "bound_cycles": j["compute_bound_cycles"],
           "utilisation_bound_cycles": j["utilisation_bound_cycles"],
           "area_budget_mm2": j["area_budget_mm2"],
           "baselines": {}}
    for name, b in j["baselines"].items():
        row["baselines"][name] = {k: b[k] for k in ("feasible", "fitness", "runtime_cycles",
                                                    "energy_nj", "samples", "area_mm2")}
    return row


def ratios(row):
    """Per case: (x opt, x grid, dist, opt/bound, grid/bound) of the objective."""
    c = row["codesign"]
    if not c["feasible"]:
        return None
    opts = [row["baselines"][n]["fitness"] for n in OPTIMISERS
            if n in row["baselines"] and row["baselines"][n]["feasible"]]
    best_opt = min(opts) if opts else None

    def fit(name):
        b = row["baselines"].get(name)
        return b["fitness"] if b and b["feasible"] else None
    g, gs = fit("fixed-gamma"), fit("fixed-gamma-seeds")
    lat = row["objective"] == "latency"
    b = row["bound_cycles"] if lat else None
    u = row.get("utilisation_bound_cycles") if lat else None
    f = c["fitness"]
    return {"x_opt": best_opt / f if best_opt else None,
            "x_grid": g / f if g else None,
            "x_grid_seeds": gs / f if gs else None,
            "dist": f / b if b else None,
            "dist_u": f / u if u else None,
            "opt_bound": best_opt / b if (b and best_opt) else None,
            "opt_u": best_opt / u if (u and best_opt) else None,
            "grid_bound": g / b if (b and g) else None,
            "grid_seeds_bound": gs / b if (b and gs) else None}


RATIOS = ("x_opt", "x_grid", "x_grid_seeds", "dist", "dist_u", "opt_bound", "opt_u",
          "grid_bound", "grid_seeds_bound")
MINS = (("min_x_grid", "x_grid"), ("min_x_grid_seeds", "x_grid_seeds"))


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x is not None]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"


def summarize(rows, objective, platform, models, seeds):
    """The figures of one objective and platform: per model whose every seed has a row, the
    mean over seeds of each ratio, the smallest x grid and x grid+s over the seeds, the cases
    where codesign is below grid + seeds and the cases compared, and the PEs; then per group
    ("all", "held_out": not a tuning model) the geomean over its models of each mean ratio,
    the smallest of its models' min columns, the sums of the case counts and its model count.
    Used by the tables and by scripts/readme_figures.py (README's figures)."""
    per_model, pes = {}, {}
    for m in models:
        rs = [r for r in rows if r["objective"] == objective and r["platform"] == platform
              and r["model"] == m and r["seed"] in seeds]
        if len(rs) < len(seeds):
            continue
        q = [x for x in (ratios(r) for r in rs) if x]
        agg = {k: mean([x[k] for x in q]) for k in RATIOS}
        for name, k in MINS:
            agg[name] = min([x[k] for x in q if x[k]], default=None)
        # Cases (seeds) where codesign is behind grid + seeds, and cases compared.
        agg["below_grid_seeds"] = sum(1 for x in q if x["x_grid_seeds"] and x["x_grid_seeds"] < 1)
        agg["cases_grid_seeds"] = sum(1 for x in q if x["x_grid_seeds"])
        per_model[m] = agg
        pes[m] = "/".join(str(r["codesign"]["pes"]) for r in rs)
    groups = {}
    for label, sel in (("all", list(per_model)),
                       ("held_out", [m for m in per_model if m not in TUNING_MODELS])):
        if not sel:
            continue
        g = {k: geomean([per_model[m][k] for m in sel]) for k in RATIOS}
        for name, _ in MINS:
            g[name] = min([per_model[m][name] for m in sel if per_model[m][name]], default=None)
        for k in ("below_grid_seeds", "cases_grid_seeds"):
            g[k] = sum(per_model[m][k] for m in sel)
        g["models"] = len(sel)
        groups[label] = g
    return {"models": per_model, "pes": pes, "groups": groups}


def table(rows, objective, platforms, models, seeds):
    lines = []
    lat = objective == "latency"
    head = "| model | platform | x opt | x grid | min x grid | x grid+s | min x grid+s | " + (
        "dist | dist U | opt/bnd | opt/U | grid/bnd | grid+s/bnd | " if lat else "") + "PEs |"
    lines.append(head)
    lines.append("|" + "---|" * (head.count("|") - 1))

    def cells(a, bold):
        b = (lambda t: f"**{t}**") if bold else (lambda t: t)
        return (f"{b(fmt(a['x_opt']))} | {b(fmt(a['x_grid']))} | {fmt(a['min_x_grid'])} | "
                f"{b(fmt(a['x_grid_seeds']))} | {fmt(a['min_x_grid_seeds'], 4)} | " +
                (f"{b(fmt(a['dist'], 3))} | {fmt(a['dist_u'], 3)} | {fmt(a['opt_bound'])} | "
                 f"{fmt(a['opt_u'])} | {fmt(a['grid_bound'])} | {fmt(a['grid_seeds_bound'])} | "
                 if lat else ""))
    for p in platforms:
        s = summarize(rows, objective, p, models, seeds)
        for m, agg in s["models"].items():
            name = m + (" (tuning)" if m in TUNING_MODELS else "")
            lines.append(f"| {name} | {p} | " + cells(agg, False) + f"{s['pes'][m]} |")
        for key, label in (("all", "geomean, all"), ("held_out", "geomean, held-out models")):
            if key in s["groups"]:
                g = s["groups"][key]
                lines.append(f"| **{label}** ({g['models']}) | {p} | " + cells(g, True) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--seeds", default="11,12,13", help="seeds of the latency table")
    ap.add_argument("--seeds2", default="11,12", help="seeds of the other objectives")
    ap.add_argument("--models", default=",".join(OLD_TABLE + ADDED))
    ap.add_argument("--platforms", default="edge,cloud")
    ap.add_argument("--objectives", default="latency,energy,edp")
    ap.add_argument("--results", default="codesign_table.jsonl")
    ap.add_argument("--out", default="codesign_table")
    a = ap.parse_args()
    binary = os.environ.get("SPARSEMAP", "build/sparsemap")
    seeds = [int(s) for s in a.seeds.split(",")]
    seeds2 = [int(s) for s in a.seeds2.split(",")]
    seeds_of = lambda o: seeds if o == "latency" else seeds2
    models, platforms = a.models.split(","), a.platforms.split(",")
    objectives = a.objectives.split(",")
    bad = [s for s in seeds + seeds2 if s in (1, 2, 3)]
    if bad:
        print(f"note: seeds {bad} are tuning seeds; the tables should use held-out ones",
              file=sys.stderr)
    rows = []
    if os.path.exists(a.results):
        rows = [json.loads(line) for line in open(a.results) if line.strip()]
    done = {(r["objective"], r["platform"], r["model"], r["seed"], r["budget"]) for r in rows}
    t0 = time.time()
    with open(a.results, "a") as f:
        for o in objectives:
            for p in platforms:
                for s in seeds_of(o):
                    for m in models:
                        if (o, p, m, s, a.budget) in done:
                            continue
                        r = run_case(binary, o, p, m, s, a.budget)
                        f.write(json.dumps(r) + "\n")
                        f.flush()
                        rows.append(r)
                        print(f"{o} {p} {m} seed {s}: {r['wall_s']:.1f} s "
                              f"({time.time() - t0:.0f} s so far)", file=sys.stderr)
    rows = [r for r in rows if r["budget"] == a.budget]
    out = []
    for o in objectives:
        out.append(f"### Objective {o}: {a.budget} samples per method, seeds "
                   f"{', '.join(map(str, seeds_of(o)))} (mean over seeds)\n")
        out.append(table(rows, o, platforms, models, seeds_of(o)) + "\n")
    text = "\n".join(out)
    print(text)
    with open(a.out + ".md", "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
