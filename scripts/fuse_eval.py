#!/usr/bin/env python3
"""Held-out evaluation of the learned fusion mapper (docs/dnnfuser.md).

Runs `sparsemap fuse --method dp,search,learned --json -` on every (model, batch, buffer) of
the held-out grid and prints a markdown table per model plus totals: the learned mapper's
latency against the search mapper's (the GA as shipped: `fuse`'s default budget of 6,000
samples, population 64, seeded with none, greedy and dp, one thread), their wall times (each
the median of --repeat runs in one process, and the first run alone; the weights' load is
reported apart), buffer
violations, and the share of the search's gain over no fusion that the learned mapper keeps.

With --gain-share it runs only `--method none,dp,learned` (DP is the best search on this grid:
it found the GA's latency in all 48 cases) and prints the headline of docs/dnnfuser.md: the
share of the fusion gain the learned mapper keeps, (none - learned) / (none - dp) in latency
cycles, pooled over all the cases (the cycles the learned mapper saves over the cycles DP
saves; a case where it is slower than no fusion counts against it), per model and over all
cases, beside the same pooled over the cases where fusion gains at least 0.5%, the mean of
their per-case shares, and the cases where the learned mapping is slower than no fusion.
About 30 s.

usage: scripts/fuse_eval.py [--sparsemap build/sparsemap] [--weights data/dnnfuser/fuser.bin]
                            [--models resnet18,mobilenet-v2,vgg16,mnasnet]
                            [--batches 8,32,64] [--buffers-kb 192,384,768,1536] [--repeat 5]
                            [--csv FILE] [--gain-share]
"""
import argparse
import json
import statistics
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sparsemap", default="build/sparsemap")
    ap.add_argument("--weights", default="data/dnnfuser/fuser.bin")
    ap.add_argument("--models", default="resnet18,mobilenet-v2,vgg16,mnasnet")
    ap.add_argument("--batches", default="8,32,64")
    ap.add_argument("--buffers-kb", default="192,384,768,1536")
    ap.add_argument("--hw", default="flat-edge")
    ap.add_argument("--budget", default="6000")
    ap.add_argument("--repeat", default="5")
    ap.add_argument("--csv", default="")
    ap.add_argument("--from-csv", default="", help="tabulate the rows of an earlier --csv")
    ap.add_argument("--gain-share", action="store_true",
                    help="the headline only: none, dp and learned, share of the gain kept")
    a = ap.parse_args()
    if a.gain_share:
        gain_share(a)
        return
    rows = []
    if a.from_csv:  # re-tabulate a previous run
        with open(a.from_csv) as f:
            keys = f.readline().strip().split(",")
            for line in f:
                r = dict(zip(keys, line.strip().split(",")))
                for k in keys:
                    if k != "model":
                        r[k] = r[k] == "True" if r[k] in ("True", "False") else float(r[k])
                rows.append(r)
    for model in ([] if a.from_csv else a.models.split(",")):
        for batch in a.batches.split(","):
            for kb in a.buffers_kb.split(","):
                cmd = [a.sparsemap, "fuse", "--model", model, "--batch", batch, "--hw", a.hw,
                       "--buffer-kb", kb, "--method", "none,dp,search,learned", "--budget",
                       a.budget, "--weights", a.weights, "--repeat", a.repeat, "--quiet",
                       "--json", "-"]
                out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
                runs = json.loads(out[out.index("["):])
                by = {r["method"]: r for r in runs}
                s, l, d, n = by["search"], by["learned"], by["dp"], by["none"]
                rows.append({
                    "model": model, "batch": int(batch), "buffer_kb": int(kb),
                    "none_cycles": n["latency_cycles"], "dp_cycles": d["latency_cycles"],
                    "search_cycles": s["latency_cycles"], "learned_cycles": l["latency_cycles"],
                    "ratio": l["latency_cycles"] / s["latency_cycles"],
                    "search_s": s["wall_s"], "learned_s": l["wall_s"], "dp_s": d["wall_s"],
                    "search_first_s": s["wall_s_first"], "learned_first_s": l["wall_s_first"],
                    "learned_meets": l["meets_buffer"], "load_s": l["load_s"],
                    "search_saved_mb": (n["dram_bytes"] - s["dram_bytes"]) / 1e6,
                    "learned_saved_mb": (n["dram_bytes"] - l["dram_bytes"]) / 1e6,
                })
                print(f"{model} b{batch} {kb} KiB: learned/search {rows[-1]['ratio']:.4f}",
                      file=sys.stderr)
    print("| model | cases | learned/search latency (mean, worst) | within 10% | "
          "search s (median) | learned s (median) | speed-up (median, min) | "
          "speed-up, first runs (median, min) | meets buffer | "
          "none/search (mean, worst) | gain kept (mean, pooled) | worse than none |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for model in a.models.split(",") + ["all"]:
        rs = [r for r in rows if model == "all" or r["model"] == model]
        ratios = [r["ratio"] for r in rs]
        ss = statistics.median(r["search_s"] for r in rs)
        ls = statistics.median(r["learned_s"] for r in rs)
        within = sum(x <= 1.10 for x in ratios)
        meets = sum(r["learned_meets"] for r in rs)
        gains = [r["none_cycles"] / r["search_cycles"] for r in rs]
        # Share of the search's latency gain over no fusion that the learned mapper keeps:
        # per case over the cases where fusion gains at least 0.5% (their count in
        # parentheses), and pooled over the same cases (sum of the cycles the learned mapper
        # saves over the sum the search saves). "worse than none": cases where the learned
        # mapping is slower than no fusion at all (by how much at worst).
        fr = [r for r in rs if r["none_cycles"] > 1.005 * r["search_cycles"]]
        g = [(r["none_cycles"] - r["learned_cycles"]) / (r["none_cycles"] - r["search_cycles"])
             for r in fr]
        pooled = sum(r["none_cycles"] - r["learned_cycles"] for r in fr) / \
            sum(r["none_cycles"] - r["search_cycles"] for r in fr) if fr else 0
        kept = f"{100 * statistics.mean(g):.0f}% ({len(g)}), {100 * pooled:.0f}%" if g else "-"
        worse = [r["learned_cycles"] / r["none_cycles"] for r in rs
                 if r["learned_cycles"] > r["none_cycles"]]
        worse_s = f"{len(worse)} (+{100 * (max(worse) - 1):.1f}%)" if worse else "0"
        speeds = [r["search_s"] / max(1e-9, r["learned_s"]) for r in rs]
        firsts = [r["search_first_s"] / max(1e-9, r["learned_first_s"]) for r in rs]
        print(f"| {model} | {len(rs)} | {statistics.mean(ratios):.4f}, {max(ratios):.4f} | "
              f"{within}/{len(rs)} | {ss:.4f} | {ls:.5f} | "
              f"{statistics.median(speeds):.0f}x, {min(speeds):.0f}x | "
              f"{statistics.median(firsts):.0f}x, {min(firsts):.0f}x | {meets}/{len(rs)} | "
              f"{statistics.mean(gains):.3f}x, {max(gains):.3f}x | {kept} | {worse_s} |")
    print(f"\nThe weights load in {1e3 * statistics.median(r['load_s'] for r in rows):.2f} ms "
          "(median).")
    if a.csv:
        write_csv(a.csv, rows)


def write_csv(path, rows):
    """One line per case, the columns in the rows' key order."""
    with open(path, "w") as f:
        keys = list(rows[0].keys())
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")


def gain_share(a):
    rows = []
    for model in a.models.split(","):
        for batch in a.batches.split(","):
            for kb in a.buffers_kb.split(","):
                cmd = [a.sparsemap, "fuse", "--model", model, "--batch", batch, "--hw", a.hw,
                       "--buffer-kb", kb, "--method", "none,dp,learned", "--weights", a.weights,
                       "--quiet", "--json", "-"]
                out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
                by = {r["method"]: r for r in json.loads(out[out.index("["):])}
                rows.append({"model": model, "batch": int(batch), "buffer_kb": int(kb),
                             "none": by["none"]["latency_cycles"],
                             "dp": by["dp"]["latency_cycles"],
                             "learned": by["learned"]["latency_cycles"],
                             "learned_dram": by["learned"]["dram_bytes"],
                             "meets": by["learned"]["meets_buffer"]})
                r = rows[-1]
                print(f"{model} b{batch} {kb} KiB: none {r['none']:.0f} dp {r['dp']:.0f} "
                      f"learned {r['learned']:.0f} (DRAM {r['learned_dram']:.0f} B)",
                      file=sys.stderr)
    print("| model | cases | fusion gains >= 0.5% | none/dp latency (mean, worst) | "
          "gain kept, pooled over all cases | gain kept, pooled over gaining cases | "
          "gain kept, mean over gaining cases | learned slower than none | "
          "learned/dp (mean, worst) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model in a.models.split(",") + ["all"]:
        rs = [r for r in rows if model == "all" or r["model"] == model]
        saved_dp = sum(r["none"] - r["dp"] for r in rs)
        saved_learned = sum(r["none"] - r["learned"] for r in rs)
        pooled = f"{100 * saved_learned / saved_dp:.1f}%" if saved_dp > 0 else "- (no gain)"
        fr = [r for r in rs if r["none"] > 1.005 * r["dp"]]
        per = [(r["none"] - r["learned"]) / (r["none"] - r["dp"]) for r in fr]
        mean = f"{100 * statistics.mean(per):.1f}%" if per else "-"
        pooled_fr = "-"
        if fr:
            share = sum(r["none"] - r["learned"] for r in fr) / sum(r["none"] - r["dp"] for r in fr)
            pooled_fr = f"{100 * share:.1f}%"
        worse = [r["learned"] / r["none"] for r in rs if r["learned"] > r["none"]]
        worse_s = f"{len(worse)} (worst +{100 * (max(worse) - 1):.2f}%)" if worse else "0"
        gains = [r["none"] / r["dp"] for r in rs]
        ratios = [r["learned"] / r["dp"] for r in rs]
        print(f"| {model} | {len(rs)} | {len(fr)} | {statistics.mean(gains):.4f}, "
              f"{max(gains):.4f} | {pooled} | {pooled_fr} | {mean} | {worse_s} | "
              f"{statistics.mean(ratios):.4f}, {max(ratios):.4f} |")
    print(f"\nlearned meets the buffer in {sum(r['meets'] for r in rows)}/{len(rows)} cases")
    if a.csv:  # the per-case rows (bench/data/dnnfuser/gain_share.csv feeds README's figures)
        write_csv(a.csv, rows)


if __name__ == "__main__":
    main()
