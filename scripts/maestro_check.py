#!/usr/bin/env python3
"""Checks files written by `sparsemap map --emit-m` against MAESTRO itself (a dev-only check:
MAESTRO is never part of the build or the tests).

Usage:
  sparsemap map --model resnet50 --hw gamma-edge --divisors-only --maestro-compatible \
      --emit-m out/resnet50 --json out/resnet50.json
  scripts/maestro_check.py --maestro /path/to/maestro out/resnet50.json out/resnet50 [...]

Each argument pair is our JSON (`map --json`) and the --emit-m directory holding one network
.m file and accelerator.m. MAESTRO runs on each network file twice, each time in a fresh
temporary directory (it appends to its output CSV rather than overwriting it), with
  --print_res=false --print_res_csv_file=true --print_log_file=false
The script reports per model: MAESTRO's exit status for both runs, whether both CSVs are
identical, and how many layers have MAESTRO's runtime within --tol percent of ours (a batched
GEMM, written as one GEMM layer per batch named <name>_b<i>, is compared as the sum of its
parts). Exit status 0 when every run succeeded, both runs agree, and at least --min-pct of the
layers are within --tol; 1 otherwise.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def maestro_name(name):
    s = re.sub(r"[^A-Za-z0-9]", "_", name)
    if not s or s[0].isdigit():
        s = "L" + s
    return s


def run_maestro(maestro, net_file, hw_file, timeout):
    """Runs MAESTRO in a fresh directory; returns (exit status, CSV text or '', stdout tail)."""
    with tempfile.TemporaryDirectory(prefix="maestro_check_") as d:
        shutil.copy(net_file, os.path.join(d, "net.m"))
        shutil.copy(hw_file, os.path.join(d, "hw.m"))
        try:
            p = subprocess.run(
                [maestro, "--HW_file=hw.m", "--Mapping_file=net.m", "--print_res=false",
                 "--print_res_csv_file=true", "--print_log_file=false"],
                cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
            rc, out = p.returncode, p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            rc, out = "timeout", ""
        csv_path = os.path.join(d, "net.csv")
        text = open(csv_path).read() if os.path.exists(csv_path) else ""
        return rc, text, out[-400:]


def rows_of(text):
    reader = csv.reader(text.splitlines())
    header = [h.strip() for h in next(reader, [])]
    if not header:
        return []
    name_col = header.index("Layer Number")
    rt_col = header.index("Runtime (Cycles)")
    return [(r[name_col].strip(), float(r[rt_col])) for r in reader if len(r) > rt_col]


def check(maestro, ours_json, emit_dir, tol_pct, timeout):
    ours = json.load(open(ours_json))
    nets = [f for f in sorted(os.listdir(emit_dir)) if f.endswith(".m") and f != "accelerator.m"]
    if len(nets) != 1:
        sys.exit(f"{emit_dir}: expected one network .m file beside accelerator.m, found {nets}")
    net_file = os.path.join(emit_dir, nets[0])
    hw_file = os.path.join(emit_dir, "accelerator.m")
    runs = [run_maestro(maestro, net_file, hw_file, timeout) for _ in range(2)]
    res = {"model": ours["model"], "rc": [r[0] for r in runs],
           "same_output": runs[0][1] == runs[1][1] and runs[0][1] != "", "tail": runs[0][2]}
    rows = rows_of(runs[0][1])
    j, within, exact, compared, worst = 0, 0, 0, 0, []
    for layer in ours["layers"]:
        base = maestro_name(layer["name"])
        if j < len(rows) and rows[j][0] == base:
            parts = [rows[j]]
            j += 1
        else:
            parts = []
            while j < len(rows) and re.fullmatch(re.escape(base) + r"_b\d+", rows[j][0]):
                parts.append(rows[j])
                j += 1
        if not parts:
            worst.append((float("inf"), layer["name"], layer["runtime_cycles"], None))
            continue
        m = sum(p[1] for p in parts)
        o = float(layer["runtime_cycles"])
        dev = 100.0 * abs(m - o) / max(o, 1.0)
        compared += 1
        within += dev <= tol_pct
        exact += m == o
        if dev > tol_pct:
            worst.append((dev, layer["name"], o, m))
    res.update(layers=len(ours["layers"]), maestro_rows=len(rows), compared=compared,
               within=within, exact=exact, off=sorted(worst, reverse=True))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--maestro", required=True, help="path of a MAESTRO binary")
    ap.add_argument("--tol", type=float, default=0.5, help="tolerance in percent (default 0.5)")
    ap.add_argument("--min-pct", type=float, default=95.0,
                    help="layers within --tol needed to pass, percent (default 95)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per MAESTRO run")
    ap.add_argument("pairs", nargs="+", help="OURS.json EMIT_DIR [OURS.json EMIT_DIR ...]")
    a = ap.parse_args()
    if len(a.pairs) % 2:
        sys.exit("expected pairs of OURS.json EMIT_DIR")
    ok = True
    tot_layers = tot_within = tot_exact = 0
    for k in range(0, len(a.pairs), 2):
        r = check(a.maestro, a.pairs[k], a.pairs[k + 1], a.tol, a.timeout)
        good = r["rc"] == [0, 0] and r["same_output"] and r["compared"] == r["layers"]
        ok &= good
        tot_layers += r["layers"]
        tot_within += r["within"]
        tot_exact += r["exact"]
        print(f"{r['model']}: MAESTRO exit {r['rc'][0]}, {r['rc'][1]}; same output both runs: "
              f"{'yes' if r['same_output'] else 'NO'}; {r['maestro_rows']} MAESTRO rows for "
              f"{r['layers']} layers; within {a.tol}%: {r['within']}/{r['layers']}; "
              f"exact: {r['exact']}/{r['layers']}")
        if r["rc"] != [0, 0]:
            print("  MAESTRO said: " + r["tail"].strip().replace("\n", " | "))
        for dev, name, o, m in r["off"][:10]:
            print(f"  {name}: ours {o:.0f}, MAESTRO {m if m is None else f'{m:.0f}'}"
                  f" ({dev:.3f}% apart)" if m is not None else f"  {name}: no MAESTRO row")
    pct = 100.0 * tot_within / max(tot_layers, 1)
    print(f"total: {tot_within}/{tot_layers} layers within {a.tol}% ({pct:.1f}%), "
          f"{tot_exact} exact")
    ok &= pct >= a.min_pct
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
