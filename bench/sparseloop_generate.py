#!/usr/bin/env python3
"""Makes Sparseloop reference runs beyond the exercises with timeloop-model v3.0.3.

Usage: bench/sparseloop_generate.py TIMELOOP_BIN [--out tests/data/sparseloop/generated]
           [--only NAME ...] [--list]

TIMELOOP_BIN is the folder of timeloop v3.0.3's timeloop-model (built from NVlabs/timeloop,
never part of this repository; tests/data/sparseloop/generated/PROVENANCE.md says how). Each
variant below starts from a committed design's processed input (`parsed-processed-input.yaml`
of tests/data/sparseloop/01.2.3-SCDU-dot-product or sparse_tensor_core_like), changes its
problem (shape, densities), its architecture attributes, its sparse optimisations and its
mapping, and writes, under OUT/<name>/:

- `input.yaml`: `architecture`, `problem` and `sparse_optimizations` exactly as timeloop-model
  read them: the processed form, keys spelled the way v3.0.3 reads them (hyphens:
  `data-spaces`, `read-write`, `cluster-size`, `representation-format`, `action-optimization`,
  `compute-optimization`, `condition-on`, `metadata-word-bits`, `flattened-rankIDs`, ...) and
  the distribution `fixed-structured` (v3.0.3 does not know `fixed_structured`);
- `map.yaml`: the mapping;
- `timeloop-model.stats.txt`: timeloop-model's statistics, unchanged.

The energy table is the base design's committed `timeloop-mapper.ERT.yaml`, unchanged (not
copied). Sparsemap's src/cost/sparseloop_generated_test.cpp replays every run.
"""
import argparse
import copy
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "sparseloop")

# Base designs: folder under tests/data/sparseloop with a parsed-processed-input.yaml.
BASES = {"dot": "01.2.3-SCDU-dot-product", "stc": "sparse_tensor_core_like"}

# Keys v3.0.3 reads only hyphenated (architecture, problem and sparse optimisations).
HYPHENATED = {"data_spaces", "read_write", "cluster_size", "multiple_buffering",
              "min_utilization", "num_ports", "representation_format", "action_optimization",
              "compute_optimization", "condition_on", "flattened_rankIDs", "metadata_word_bits",
              "payload_word_bits", "rank_application_order", "compression_rate"}
VALUES = {"fixed_structured": "fixed-structured", "inner_to_outer": "inner-to-outer",
          "outer_to_inner": "outer-to-inner", "skipping_spatial": "skipping-spatial"}


def respell(node):
    if isinstance(node, dict):
        return {(k.replace("_", "-") if k in HYPHENATED else k): respell(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [respell(v) for v in node]
    if isinstance(node, str):
        return VALUES.get(node, node)
    return node


def base_spec(base):
    with open(os.path.join(DATA, BASES[base], "parsed-processed-input.yaml")) as f:
        spec = yaml.safe_load(f)
    keep = {k: spec[k] for k in ("architecture", "problem")}
    return keep


def local(spec, name):
    """The architecture component whose name (before any [..]) is `name`."""
    for c in spec["architecture"]["subtree"][0]["local"]:
        if c["name"].split("[")[0] == name:
            return c
    raise KeyError(name)


def rank(fmt, **kw):
    r = {"format": fmt}
    r.update(kw)
    return r


def fmt(name, *ranks, **kw):
    d = {"name": name, "ranks": list(ranks)}
    d.update(kw)
    return d


def opt(kind, target, *leaders):
    return {"type": kind, "options": [{"target": target, "condition_on": list(leaders)}]}


def dens(d, dist="fixed_structured"):
    return {"distribution": dist, "density": d}


def directives(levels):
    """levels: [(target, keep, bypass, temporal 'M1 N1', permutation, spatial or None), ...]."""
    m = []
    for target, keep, bypass, *_ in levels:
        m.append({"target": target, "type": "datatype", "keep": keep, "bypass": bypass})
    for target, _, _, temporal, perm, spatial in levels:
        if spatial:
            m.append({"target": target, "type": "spatial", "factors": spatial[0],
                      "permutation": spatial[1], "split": spatial[2]})
        m.append({"target": target, "type": "temporal", "factors": temporal,
                  "permutation": perm})
    return m


# ---- dot product (01.2.3): one Buffer holding A, B, Z; one MAC. ----
DOT_DEEP = {"depth": 256, "metadata_storage_depth": 256}


def dot(k, densities, targets, depth=None, md_width=None):
    """A dot product of K = k (M = 1) with the given densities and sparse targets."""
    def make():
        s = base_spec("dot")
        inst = s["problem"]["instance"]
        inst["K"] = k
        inst["densities"] = densities
        attrs = local(s, "Buffer")["attributes"]
        if depth:
            attrs.update(depth)
        if md_width:
            attrs["metadata_storage_width"] = md_width
            attrs["metadata_datawidth"] = md_width
        mapping = directives([("Buffer", ["A", "B", "Z"], [], f"K{k} M1", "KM", None)])
        return s, targets, mapping
    return make


def buffer_target(formats=None, actions=None, compute=None):
    t = {"name": "Buffer"}
    if formats:
        t["representation_format"] = {"data_spaces": formats}
    if actions:
        t["action_optimization"] = actions
    out = [t]
    if compute:
        out.append({"name": "mac", "compute_optimization": [{"type": c} for c in compute]})
    return out


# ---- GEMM on sparse_tensor_core_like: DRAM, SMEM, 4 RF (Z), 1024 LRF (A), 1024 MACs. ----
def stc(m, n, k, densities, targets, levels):
    def make():
        s = base_spec("stc")
        inst = s["problem"]["instance"]
        inst.update({"M": m, "N": n, "K": k})
        inst["densities"] = densities
        if any(t["name"] == "SMEM" and "representation_format" in t for t in targets):
            # The LRF holds A uncompressed under a compressed SMEM: it decompresses.
            local(s, "LRF")["attributes"]["decompression_supported"] = True
        return s, targets, directives(levels)
    return make


# Weight-stationary-like split: 16 x 16 (K x M) LRFs per RF, 4 RFs along M, N temporal at LRF.
def stc_levels(lrf_n=8, dram="M1 N1 K1", smem="M1 N1 K1", rf="M1 N1 K1", pe=("K16 M16 N1", "KMN", 1),
               sub=("M4 N1 K1", "MNK", 0)):
    return [("LRF", ["A"], ["B", "Z"], f"M1 N{lrf_n} K1", "NKM", None),
            ("inter_PE_spatial", [], ["A", "B", "Z"], "M1 N1 K1", "MNK", pe),
            ("RF", ["Z"], ["A", "B"], rf, "NKM", None),
            ("inter_Subpartition_spatial", [], ["A", "B", "Z"], "M1 N1 K1", "MNK", sub),
            ("SMEM", ["A", "B"], ["Z"], smem, "NKM", None),
            ("DRAM", ["A", "B", "Z"], [], dram, "NKM", None)]


def stc_targets(dram=None, smem=None, smem_actions=None, rf_actions=None, lrf_actions=None,
                lrf_formats=None, compute=None):
    out = []
    for name, formats, actions in (("DRAM", dram, None), ("SMEM", smem, smem_actions),
                                   ("RF", None, rf_actions), ("LRF", lrf_formats, lrf_actions)):
        t = {"name": name}
        if formats:
            t["representation_format"] = {"data_spaces": formats}
        if actions:
            t["action_optimization"] = actions
        if len(t) > 1:
            out.append(t)
    if compute:
        out.append({"name": "mac", "compute_optimization": [{"type": c} for c in compute]})
    return out


def UOP_CP(ds, uops=2, **kw):
    """`uops` UOP ranks over a CP rank (one rank per nontrivial loop of the tile)."""
    return fmt(ds, *[rank("UOP") for _ in range(uops)], rank("CP", **kw))

VARIANTS = {
    # Densities on 01.2.3's sparse spec (A in CP, B and Z skipped on A).
    "dot-fixed-0.6-cp-skip": dot(16, {"A": dens(0.6)}, buffer_target(
        [fmt("A", rank("CP"))], [opt("skipping", "B", "A"), opt("skipping", "Z", "A")])),
    "dot-hyper-0.3-cp-skip": dot(64, {"A": dens(0.3, "hypergeometric")}, buffer_target(
        [fmt("A", rank("CP"))], [opt("skipping", "B", "A"), opt("skipping", "Z", "A")]),
        DOT_DEEP),
    # Gating instead of skipping, uncompressed, two sparse operands.
    "dot-gate-both": dot(32, {"A": dens(0.5, "hypergeometric"), "B": dens(0.7)}, buffer_target(
        None, [opt("gating", "B", "A"), opt("gating", "A", "B"), opt("gating", "Z", "A", "B")]),
        DOT_DEEP),
    # Other formats for A: bitmask (1-bit metadata), run-length (2-bit runs).
    "dot-bitmask-skip": dot(32, {"A": dens(0.4), "B": dens(0.8, "hypergeometric")},
                            buffer_target([fmt("A", rank("B"))],
                                          [opt("skipping", "B", "A"), opt("skipping", "Z", "A")]),
                            DOT_DEEP),
    "dot-rle-2bit-skip": dot(32, {"A": dens(0.35)}, buffer_target(
        [fmt("A", rank("RLE", metadata_word_bits=2))],
        [opt("skipping", "B", "A"), opt("skipping", "Z", "A")]), DOT_DEEP),
    # Compute-level optimisations only.
    "dot-compute-gating": dot(16, {"A": dens(0.25), "B": dens(0.5)},
                              buffer_target(compute=["gating"])),
    "dot-cp-both-compute-skip": dot(32, {"A": dens(0.5), "B": dens(0.25, "hypergeometric")},
                                    buffer_target([fmt("A", rank("CP")), fmt("B", rank("CP"))],
                                                  [opt("skipping", "Z", "A", "B")],
                                                  compute=["skipping"]), DOT_DEEP),
    # GEMM on the sparse tensor core: A compressed off-chip, B uncompressed.
    "stc-gemm-a-uopcp": stc(64, 8, 16, {"A": dens(0.5)}, stc_targets(
        dram=[UOP_CP("A")], smem=[UOP_CP("A")]), stc_levels()),
    "stc-gemm-hyper-skip-z": stc(64, 8, 16, {"A": dens(0.5), "B": dens(0.3, "hypergeometric")},
                                 stc_targets(dram=[UOP_CP("A"), UOP_CP("B")],
                                             smem=[UOP_CP("A"), UOP_CP("B")],
                                             rf_actions=[opt("skipping", "Z", "A", "B")]),
                                 stc_levels()),
    "stc-gemm-lrf-gating": stc(64, 8, 16, {"A": dens(0.25), "B": dens(0.6)}, stc_targets(
        lrf_actions=[opt("gating", "A", "B")], rf_actions=[opt("gating", "Z", "A", "B")],
        compute=["gating"]), stc_levels()),
    "stc-gemm-bitmask-smem": stc(64, 8, 16, {"A": dens(0.3), "B": dens(0.5)}, stc_targets(
        dram=[fmt("A", rank("UOP"), rank("UOP"), rank("B")), fmt("B", rank("UOP"), rank("B"))],
        smem=[fmt("A", rank("UOP"), rank("UOP"), rank("B")), fmt("B", rank("UOP"), rank("B"))],
        smem_actions=[opt("skipping", "B", "A")]), stc_levels()),
    "stc-gemm-rle-8bit": stc(64, 8, 16, {"A": dens(0.2, "hypergeometric")}, stc_targets(
        dram=[fmt("A", rank("UOP"), rank("UOP"), rank("RLE", metadata_word_bits=8))],
        smem=[fmt("A", rank("UOP"), rank("UOP"), rank("RLE", metadata_word_bits=8))]), stc_levels()),
    # Another mapping: more of K temporal at SMEM, smaller spatial fan-out.
    "stc-gemm-fanout-8x8": stc(64, 8, 64, {"A": dens(0.5), "B": dens(0.4)}, stc_targets(
        dram=[UOP_CP("A", 4), UOP_CP("B", 3)], smem=[UOP_CP("A", 3), UOP_CP("B", 3)],
        rf_actions=[opt("skipping", "Z", "A", "B")]),
        stc_levels(lrf_n=4, smem="M1 N2 K8", pe=("K8 M8 N1", "KMN", 1),
                   dram="M2 N1 K1")),
    "stc-gemm-dram-tiled": stc(128, 16, 32, {"A": dens(0.5), "B": dens(0.5, "hypergeometric")},
                               stc_targets(dram=[UOP_CP("A", 4), UOP_CP("B", 4)],
                                           smem=[UOP_CP("A"), UOP_CP("B")],
                                           smem_actions=[opt("skipping", "B", "A")],
                                           rf_actions=[opt("skipping", "Z", "A", "B")]),
                               stc_levels(lrf_n=4, dram="M2 N2 K2", smem="M1 N2 K1")),
    # Explicit metadata word bits on a level without a metadata datawidth (CP coordinates of 4
    # bits, UOP offsets of 8), skipping at the LRF (A on B) and at the compute.
    "stc-gemm-cp-4bit-lrf-skip": stc(64, 8, 16, {"A": dens(0.4, "hypergeometric"), "B": dens(0.5)},
                                     stc_targets(
        dram=[fmt("A", rank("UOP", payload_word_bits=8), rank("UOP", payload_word_bits=8),
                  rank("CP", metadata_word_bits=4))],
        smem=[fmt("A", rank("UOP", payload_word_bits=8), rank("UOP", payload_word_bits=8),
                  rank("CP", metadata_word_bits=4))],
        lrf_actions=[opt("skipping", "A", "B")], compute=["skipping"]), stc_levels()),
    # Uncompressed bitmask (UB): metadata for every coordinate, zeros still stored.
    "dot-ub-gate": dot(32, {"A": dens(0.3), "B": dens(0.6)}, buffer_target(
        [fmt("A", rank("UB"))], [opt("gating", "B", "A"), opt("gating", "Z", "A")]), DOT_DEEP),
    # RLE of 3-bit runs on a 4-bit metadata store: timeloop widens the word to 4 bits.
    "dot-rle-3bit-widened": dot(32, {"A": dens(0.45, "hypergeometric")}, buffer_target(
        [fmt("A", rank("RLE", metadata_word_bits=3))],
        [opt("skipping", "B", "A"), opt("skipping", "Z", "A")]), DOT_DEEP),
    # Spatial skipping (not modelled by sparsemap: listed as not reproduced if it differs).
    "stc-gemm-spatial-skip": stc(64, 8, 16, {"A": dens(0.5), "B": dens(0.5)}, stc_targets(
        dram=[UOP_CP("A"), UOP_CP("B")], smem=[UOP_CP("A"), UOP_CP("B")],
        lrf_actions=[{"type": "skipping_spatial",
                      "options": [{"target": "A", "condition_on": ["B"]}]}]), stc_levels()),
}


def run(name, out, timeloop_bin, env):
    spec, targets, mapping = VARIANTS[name]()
    spec["sparse_optimizations"] = {"targets": targets}
    spec = respell(spec)
    base = BASES[name.split("-")[0]]
    ert = os.path.join(DATA, base, "timeloop-mapper.ERT.yaml")
    dst = os.path.join(out, name)
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "input.yaml"), "w") as f:
        f.write(f"# {name}: from {base}'s parsed-processed-input.yaml "
                "(bench/sparseloop_generate.py); read by timeloop-model v3.0.3\n")
        yaml.safe_dump(spec, f, sort_keys=False)
    with open(os.path.join(dst, "map.yaml"), "w") as f:
        yaml.safe_dump({"mapping": mapping}, f, sort_keys=False)
    with tempfile.TemporaryDirectory() as w:
        p = subprocess.run([os.path.join(timeloop_bin, "timeloop-model"),
                            os.path.join(dst, "input.yaml"), os.path.join(dst, "map.yaml"), ert],
                           cwd=w, env=env, capture_output=True, text=True)
        stats = os.path.join(w, "timeloop-model.stats.txt")
        if p.returncode != 0 or not os.path.exists(stats):
            print(f"{name}: timeloop-model failed ({p.returncode})\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
            return False
        shutil.copy(stats, os.path.join(dst, "timeloop-model.stats.txt"))
    print(f"{name}: {dst}")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeloop_bin")
    ap.add_argument("--out", default=os.path.join(DATA, "generated"))
    ap.add_argument("--only", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    args = ap.parse_args()
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join(
        [args.timeloop_bin, os.environ.get("LD_LIBRARY_PATH", "")]))
    ok = all([run(name, args.out, args.timeloop_bin, env) for name in args.only])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
