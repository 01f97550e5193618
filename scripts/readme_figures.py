#!/usr/bin/python3
"""README's figures, computed from the results files in bench/data (python3 standard library).

Every figure README quotes from a results file is one entry of FIGURES: an id, the data file
(relative to the repository root), a function that computes the value from that file, and a
format. README holds each figure between two HTML comments, which GitHub does not render:

    <!-- fig:codesign_edge_x_grid -->1.48x<!-- /fig -->

(the text between them is what the format writes; a marker pair stays on one line).

Usage (from anywhere; paths are the repository's):
  scripts/readme_figures.py           print every figure: id, value, README text, data file
  scripts/readme_figures.py --write   rewrite the text of README's markers from the data
  scripts/readme_figures.py --check   exit 1, naming every figure whose README text is not what
                                      the data give, every marker whose id is not in FIGURES,
                                      and every placed figure without a marker in README
  --readme FILE                       another README (tests)

To add a figure: write a function of the data file's path that returns the value, add a
Figure(id, file, function, format) to FIGURES, put `<!-- fig:ID --><!-- /fig -->` where README
quotes it, and run --write. A figure with placed=False is computed and listed but not required
in README yet (a row someone else is rewriting); --check still fails when its data are missing.
"""
import argparse
import csv
import importlib.util
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"<!-- fig:([A-Za-z0-9_]+) -->(.*?)<!-- /fig -->")


class Figure:
    def __init__(self, fid, path, compute, fmt, placed=True):
        self.id, self.path, self.compute, self.fmt, self.placed = fid, path, compute, fmt, placed

    def text(self):
        value = self.compute(os.path.join(ROOT, self.path))
        if value is None:
            raise ValueError("the data hold no value for it")
        return self.fmt(value) if callable(self.fmt) else self.fmt.format(value)


# --- co-design (docs/codesign.md, "Tables"): bench/codesign_table.py's own definitions --------

CODESIGN_RESULTS = "bench/data/codesign_table_results.jsonl"
CODESIGN_BUDGET = 500  # the table's declared budget and held-out seeds (docs/codesign.md)
CODESIGN_SEEDS = (11, 12, 13)


def _codesign_table():
    spec = importlib.util.spec_from_file_location(
        "codesign_table", os.path.join(ROOT, "bench", "codesign_table.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _codesign_latency(path, platform):
    """bench/codesign_table.py's summary of the latency table on one platform (every model)."""
    ct = _codesign_table()
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if r["budget"] == CODESIGN_BUDGET]
    s = ct.summarize(rows, "latency", platform, ct.OLD_TABLE + ct.ADDED, list(CODESIGN_SEEDS))
    if s["groups"].get("all", {}).get("models") != len(ct.OLD_TABLE + ct.ADDED):
        raise ValueError(f"{path}: not every model has seeds {CODESIGN_SEEDS} on {platform}")
    return s["groups"]["all"]


def codesign_geomean(platform, key):
    return lambda path: _codesign_latency(path, platform)[key]


def codesign_min(key):
    """The smallest per-case ratio over every model, seed and both platforms."""
    def f(path):
        v = [_codesign_latency(path, p)[key] for p in ("edge", "cloud")]
        return None if None in v else min(v)
    return f


def codesign_below_grid_seeds(path):
    """(latency cases, both platforms, where codesign is behind grid + seeds, cases)."""
    g = [_codesign_latency(path, p) for p in ("edge", "cloud")]
    return sum(x["below_grid_seeds"] for x in g), sum(x["cases_grid_seeds"] for x in g)


# --- hwalloc (docs/confuciux.md, "Convergence table", at equal lookups) -------------------------

HWALLOC_10K = "bench/data/hwalloc/convergence_lookups_10k.csv"


def _hwalloc_runs(path):
    """{(model, constraint): {method: [best / row best, one per seed]}} of bench/hwalloc_table.sh."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = {}
    for r in rows:
        k = (r["model"], r["constraint"])
        ratio = int(r["best_latency_cycles"]) / int(r["row_best_cycles"])
        out.setdefault(k, {}).setdefault(r["method"], []).append(ratio)
    return out


def hwalloc_confuciux_best_rows(path):
    """(rows where a confuciux run found the row's best design, rows)."""
    runs = _hwalloc_runs(path)
    return sum(1 for m in runs.values() if min(m.get("confuciux", [2])) == 1.0), len(runs)


def hwalloc_confuciux_best_mean_rows(path):
    """(rows where confuciux's mean over seeds is the lowest of every method's, rows)."""
    runs = _hwalloc_runs(path)
    mean = lambda r: sum(r) / len(r)
    return sum(1 for m in runs.values()
               if "confuciux" in m and mean(m["confuciux"]) == min(mean(r) for r in m.values())), len(runs)


def hwalloc_excess_range(baselines):
    """(min, max) over rows of (mean over seeds of best / row best - 1), in %, for confuciux
    alone (baselines=False) or over every other method (baselines=True)."""
    def f(path):
        v = [100 * (sum(r) / len(r) - 1) for m in _hwalloc_runs(path).values()
             for meth, r in m.items() if (meth != "confuciux") == baselines]
        return (min(v), max(v)) if v else None
    return f


def pct_range(v):
    return f"{v[0]:.1f}-{v[1]:.1f}%"


# --- DNNFuser (docs/dnnfuser.md, "held-out evaluation") ----------------------------------------

DNNFUSER_GAIN = "bench/data/dnnfuser/gain_share.csv"


def _fuser_cases(path):
    with open(path) as f:
        return [{k: float(r[k]) for k in ("none", "dp", "learned")}
                for r in csv.DictReader(f)]


def fuser_gain_kept(gaining_only):
    """(none - learned) / (none - dp) in latency, pooled over the cases (all, or those where
    fusion gains at least 0.5%: none > 1.005 dp), in %: scripts/fuse_eval.py --gain-share."""
    def f(path):
        rs = [r for r in _fuser_cases(path) if not gaining_only or r["none"] > 1.005 * r["dp"]]
        saved_dp = sum(r["none"] - r["dp"] for r in rs)
        return 100 * sum(r["none"] - r["learned"] for r in rs) / saved_dp if saved_dp > 0 else None
    return f


def fuser_gaining_cases(path):
    return sum(1 for r in _fuser_cases(path) if r["none"] > 1.005 * r["dp"])


def fuser_slower_than_none(path):
    rs = _fuser_cases(path)
    return sum(1 for r in rs if r["learned"] > r["none"]), len(rs)


# --- FLAT (docs/flat.md, "Validation"): build/flat_fit's output -------------------------------

FLAT_FIT = "bench/data/flat/flat_fit.txt"


def _flat_half(path, half):
    """(latency worst %, rows whose footprint is reproduced, traffic worst %, [traffic errors %
    of the rows whose footprint is not]) of the 'tuning set' or 'held out' half."""
    text = open(path).read()
    m = re.search(half + r" \(48 rows\): latency worst ([0-9.]+)%; footprint reproduced on "
                  r"(\d+) .*?traffic worst ([0-9.]+)%", text)
    if not m:
        return None
    rest = text[m.end():].split("\n")
    errors = []
    for line in rest[2:]:
        e = re.match(r"    .* (-?[0-9.]+)%$", line)
        if not e:
            break
        errors.append(float(e.group(1)))
    return float(m.group(1)), int(m.group(2)), float(m.group(3)), errors


def flat_held_out(i):
    return lambda path: _flat_half(path, "held out")[i]


def flat_undercount_range(path):
    errors = _flat_half(path, "held out")[3]
    return (min(-e for e in errors), max(-e for e in errors)) if errors else None


def all_or_k_of_n(v):
    k, n = v
    return f"all {n}" if k == n else f"{k} of {n}"


def k_of_n(v):
    return f"{v[0]} of {v[1]}"


TIMELOOP_SPEED = "bench/data/timeloop/side_by_side.txt"
TIMELOOP_CODESIGN = "bench/data/timeloop/codesign_eyeriss_resnet18_1.2604mm2.json"


def timeloop_speed(key):
    """From bench/timeloop_side_by_side.sh's output: 'point' (our prepared evaluations per cpu
    second) or 'model_x' (timeloop-model's cpu per run over ours per evaluation)."""
    def f(path):
        text = open(path).read()
        if key == "point":
            return int(re.search(r"(\d+) evaluations per cpu second as a prepared point", text)[1])
        return int(re.search(r"ours per evaluation: (\d+)x \(point\)", text)[1])
    return f


def timeloop_codesign(key):
    """Co-design on eyeriss_like for ResNet-18 at the template's area: the template's latency or
    EDP over the co-designed one's."""
    def f(path):
        j = json.load(open(path))
        t, b = j["template"]["network"], j["best"]["network"]
        return t[key] / b[key]
    return f


FIGURES = [
    Figure("codesign_models", CODESIGN_RESULTS, codesign_geomean("edge", "models"), "{}"),
    Figure("codesign_edge_x_grid", CODESIGN_RESULTS, codesign_geomean("edge", "x_grid"),
           "{:.2f}x"),
    Figure("codesign_cloud_x_grid", CODESIGN_RESULTS, codesign_geomean("cloud", "x_grid"),
           "{:.2f}x"),
    Figure("codesign_edge_x_grid_seeds", CODESIGN_RESULTS,
           codesign_geomean("edge", "x_grid_seeds"), "{:.2f}x"),
    Figure("codesign_cloud_x_grid_seeds", CODESIGN_RESULTS,
           codesign_geomean("cloud", "x_grid_seeds"), "{:.2f}x"),
    Figure("codesign_min_x_grid", CODESIGN_RESULTS, codesign_min("min_x_grid"), "{:.2f}x"),
    Figure("codesign_min_x_grid_seeds", CODESIGN_RESULTS, codesign_min("min_x_grid_seeds"),
           "{:.4f}x"),
    Figure("codesign_below_grid_seeds", CODESIGN_RESULTS, codesign_below_grid_seeds, k_of_n),
    Figure("codesign_edge_dist", CODESIGN_RESULTS, codesign_geomean("edge", "dist"), "{:.3f}x"),
    Figure("codesign_edge_x_opt", CODESIGN_RESULTS, codesign_geomean("edge", "x_opt"),
           "{:.2f}x"),
    Figure("codesign_cloud_x_opt", CODESIGN_RESULTS, codesign_geomean("cloud", "x_opt"),
           "{:.1f}x"),
    Figure("dnnfuser_gain_kept", DNNFUSER_GAIN, fuser_gain_kept(False), "{:.0f}%"),
    Figure("dnnfuser_gain_kept_gaining", DNNFUSER_GAIN, fuser_gain_kept(True), "{:.0f}%"),
    Figure("dnnfuser_gaining_cases", DNNFUSER_GAIN, fuser_gaining_cases, "{}"),
    Figure("dnnfuser_slower_than_none", DNNFUSER_GAIN, fuser_slower_than_none, k_of_n),
    Figure("flat_held_out_latency", FLAT_FIT, flat_held_out(0), "{:.2f}%"),
    Figure("flat_held_out_rows", FLAT_FIT, flat_held_out(1), "{}"),
    Figure("flat_held_out_traffic", FLAT_FIT, flat_held_out(2), "{:.2f}%"),
    Figure("flat_held_out_not_reproduced", FLAT_FIT, lambda p: len(flat_held_out(3)(p)), "{}"),
    Figure("flat_held_out_undercount", FLAT_FIT, flat_undercount_range,
           lambda v: f"{v[0]:.1f}% to {v[1]:.1f}%"),
    Figure("hwalloc_confuciux_best_rows", HWALLOC_10K, hwalloc_confuciux_best_rows,
           all_or_k_of_n),
    Figure("hwalloc_confuciux_best_mean_rows", HWALLOC_10K, hwalloc_confuciux_best_mean_rows,
           all_or_k_of_n),
    Figure("hwalloc_confuciux_excess", HWALLOC_10K, hwalloc_excess_range(False), pct_range),
    Figure("hwalloc_baseline_excess", HWALLOC_10K, hwalloc_excess_range(True), pct_range),
    Figure("loopnest_points_per_s", TIMELOOP_SPEED, timeloop_speed("point"), "{:,}"),
    Figure("loopnest_x_timeloop_model", TIMELOOP_SPEED, timeloop_speed("model_x"), "{:,}x"),
    Figure("timeloop_codesign_latency_x", TIMELOOP_CODESIGN, timeloop_codesign("cycles"),
           "{:.2f}x"),
    Figure("timeloop_codesign_edp_x", TIMELOOP_CODESIGN, timeloop_codesign("edp"), "{:.2f}x"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    a = ap.parse_args()

    ids = [f.id for f in FIGURES]
    assert len(set(ids)) == len(ids), "duplicate figure ids"
    problems, want = [], {}
    for f in FIGURES:
        try:
            want[f.id] = f.text()
        except (OSError, ValueError, KeyError, TypeError) as e:
            problems.append(f"{f.id}: cannot compute it from {f.path}: {e}")
    readme = open(a.readme).read()
    found = {}
    for m in MARKER.finditer(readme):
        found.setdefault(m.group(1), []).append(m.group(2))
    for fid, texts in found.items():
        if fid not in want and fid not in ids:
            problems.append(f"{fid}: a README marker with no entry in FIGURES")
    for f in FIGURES:
        if f.id not in want:
            continue
        if f.placed and f.id not in found:
            problems.append(f"{f.id}: no <!-- fig:{f.id} --> marker in README ({want[f.id]})")
        for t in found.get(f.id, []):
            if t != want[f.id]:
                problems.append(f"{f.id}: README says '{t}', {f.path} gives '{want[f.id]}'")

    if a.check:
        for p in problems:
            print(f"readme_figures: {p}", file=sys.stderr)
        if problems:
            print(f"readme_figures: {len(problems)} problem(s); scripts/readme_figures.py --write "
                  "rewrites drifted figures from bench/data", file=sys.stderr)
            return 1
        print(f"readme_figures: {sum(len(v) for v in found.values())} README figures match "
              "bench/data")
        return 0
    if a.write:
        new = MARKER.sub(lambda m: (f"<!-- fig:{m.group(1)} -->{want[m.group(1)]}<!-- /fig -->"
                                    if m.group(1) in want else m.group(0)), readme)
        if new != readme:
            with open(a.readme, "w") as f:
                f.write(new)
        left = [p for p in problems if "README says" not in p]
        for p in left:
            print(f"readme_figures: {p}", file=sys.stderr)
        return 1 if left else 0
    for f in FIGURES:
        where = ", ".join(f"'{t}'" for t in found.get(f.id, [])) or (
            "not in README" + ("" if f.placed else " (not placed yet)"))
        print(f"{f.id:30s} {want.get(f.id, '?'):>10s}  README: {where:14s} {f.path}")
    for p in problems:
        print(f"readme_figures: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
