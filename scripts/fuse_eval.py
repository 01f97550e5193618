#!/usr/bin/env python3
"""Held-out evaluation of the learned fusion mapper (docs/dnnfuser.md).

Runs `sparsemap fuse --method dp,search,learned --json -` on every (model, batch, buffer) of
the held-out grid and prints a markdown table per model plus totals: the learned mapper's
latency against the search mapper's, their wall times, and buffer violations.

usage: scripts/fuse_eval.py [--sparsemap build/sparsemap] [--weights data/dnnfuser/fuser.pt]
                            [--models resnet18,mobilenet-v2,vgg16,mnasnet]
                            [--batches 8,32,64] [--buffers-kb 192,384,768,1536] [--csv FILE]
"""
import argparse
import json
import statistics
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sparsemap", default="build/sparsemap")
    ap.add_argument("--weights", default="data/dnnfuser/fuser.pt")
    ap.add_argument("--models", default="resnet18,mobilenet-v2,vgg16,mnasnet")
    ap.add_argument("--batches", default="8,32,64")
    ap.add_argument("--buffers-kb", default="192,384,768,1536")
    ap.add_argument("--hw", default="flat-edge")
    ap.add_argument("--budget", default="6000")
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    rows = []
    for model in a.models.split(","):
        for batch in a.batches.split(","):
            for kb in a.buffers_kb.split(","):
                cmd = [a.sparsemap, "fuse", "--model", model, "--batch", batch, "--hw", a.hw,
                       "--buffer-kb", kb, "--method", "none,dp,search,learned", "--budget",
                       a.budget, "--weights", a.weights, "--quiet", "--json", "-"]
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
                    "learned_meets": l["meets_buffer"],
                    "search_saved_mb": (n["dram_bytes"] - s["dram_bytes"]) / 1e6,
                    "learned_saved_mb": (n["dram_bytes"] - l["dram_bytes"]) / 1e6,
                })
                print(f"{model} b{batch} {kb} KiB: learned/search {rows[-1]['ratio']:.4f}",
                      file=sys.stderr)
    print("| model | cases | learned/search latency (mean, worst) | within 10% | "
          "search s (mean) | learned s (mean) | speed-up (median) | meets buffer | "
          "none/search | gain captured |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model in a.models.split(",") + ["all"]:
        rs = [r for r in rows if model == "all" or r["model"] == model]
        ratios = [r["ratio"] for r in rs]
        ss = statistics.mean(r["search_s"] for r in rs)
        ls = statistics.mean(r["learned_s"] for r in rs)
        within = sum(x <= 1.10 for x in ratios)
        meets = sum(r["learned_meets"] for r in rs)
        gain = statistics.mean(r["none_cycles"] / r["search_cycles"] for r in rs)
        # Share of the search's latency gain over no fusion that the learned mapper keeps,
        # over the cases where fusion gains at least 0.5%.
        g = [(r["none_cycles"] - r["learned_cycles"]) / (r["none_cycles"] - r["search_cycles"])
             for r in rs if r["none_cycles"] > 1.005 * r["search_cycles"]]
        captured = f"{100 * statistics.mean(g):.0f}% ({len(g)})" if g else "-"
        speed = statistics.median(r["search_s"] / max(1e-9, r["learned_s"]) for r in rs)
        print(f"| {model} | {len(rs)} | {statistics.mean(ratios):.4f}, {max(ratios):.4f} | "
              f"{within}/{len(rs)} | {ss:.4f} | {ls:.4f} | {speed:.0f}x | "
              f"{meets}/{len(rs)} | {gain:.3f}x | {captured} |")
    if a.csv:
        with open(a.csv, "w") as f:
            keys = list(rows[0].keys())
            f.write(",".join(keys) + "\n")
            for r in rows:
                f.write(",".join(str(r[k]) for k in keys) + "\n")


if __name__ == "__main__":
    main()
