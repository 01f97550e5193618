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
# Base designs in the tag form (arch.yaml, problem.yaml), flattened by flatten_tag_form.
TAGGED_BASES = {"conv1d": "03.2.3-conv1d+oc-spatial", "spmspm": "02.2.1-spMspM",
                "eyeriss": "04.2.1-eyeriss-like-gating",
                "eyerisscomp": "04.2.3-eyeriss-like-onchip-compression"}

from timeloop_v303 import respell  # noqa: E402  (bench/timeloop_v303.py)


def base_spec(base):
    with open(os.path.join(DATA, BASES[base], "parsed-processed-input.yaml")) as f:
        spec = yaml.safe_load(f)
    keep = {k: spec[k] for k in ("architecture", "problem")}
    return keep


class _TagLoader(yaml.SafeLoader):
    """Reads the v0.4 tag form (!Container, !Component, !Parallel) as dicts with a `tag` key."""


def _tagged(tag):
    def construct(loader, node):
        d = loader.construct_mapping(node, deep=True)
        d["tag"] = tag
        return d
    return construct


for _t in ("Container", "Component", "Parallel", "Hierarchical"):
    _TagLoader.add_constructor("!" + _t, _tagged(_t))


def flatten_tag_form(design):
    """A tag-form design (tests/data/sparseloop/<design>/arch.yaml, problem.yaml) in the
    processed form v3.0.3 reads: one subtree `<top container>_top_level` whose locals are the
    components outermost first, each named `Name[1..n]` (n the instances: the product of the
    spatial fan-outs above it) with the mesh of the fan-outs above it; a container with a
    spatial fan-out adds the dummy storage level `inter_<Container>_spatial` above its
    contents (as the Timeloop 4 front end does, and as the committed mappings name it). The
    components' `sparse_optimizations` become top-level targets; constraints are dropped (the
    model checks a given mapping)."""
    with open(os.path.join(DATA, design, "arch.yaml")) as f:
        arch = yaml.load(f, Loader=_TagLoader)["architecture"]
    with open(os.path.join(DATA, design, "problem.yaml")) as f:
        problem = yaml.safe_load(f)["problem"]
    locals_, targets = [], []
    state = {"n": 1, "x": 1, "y": 1, "top": None}

    def add(node):
        tag = node.get("tag")
        if tag in ("Parallel", "Hierarchical") or (tag is None and "nodes" in node):
            for child in node["nodes"]:
                add(child)
            return
        if tag == "Container":
            if state["top"] is None:
                state["top"] = node["name"]
            sp = node.get("spatial", {})
            fx, fy = sp.get("meshX", 1), sp.get("meshY", 1)
            if fx * fy > 1:
                locals_.append({"name": f"inter_{node['name']}_spatial[1..{state['n']}]",
                                "class": "dummy_storage",
                                "attributes": {"width": 1, "depth": 1, "datawidth": 1,
                                               "meshX": state["x"], "meshY": state["y"]}})
                state["n"] *= fx * fy
                state["x"] *= fx
                state["y"] *= fy
            return
        attrs = dict(node.get("attributes", {}))
        attrs.update({"meshX": state["x"], "meshY": state["y"]})
        c = {"name": f"{node['name']}[1..{state['n']}]", "class": node["class"],
             "attributes": attrs}
        if "subclass" in node:
            c["subclass"] = node["subclass"]
        locals_.append(c)
        if "sparse_optimizations" in node:
            t = {"name": node["name"]}
            t.update(node["sparse_optimizations"])
            targets.append(t)

    for n in arch["nodes"]:
        add(n)
    spec = {"architecture": {"version": "0.4", "subtree": [
        {"name": f"{state['top']}_top_level", "local": locals_}]}, "problem": problem}
    return spec, targets


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


# ---- designs in the tag form: conv1d+oc on 4 PEs (03.2.3), spMspM (02.2.1), eyeriss-like
# (04.2.1: DRAM, global buffer, 14 x 12 PEs with ifmap / weights / psum scratchpads). ----
def tagged(design, instance, densities, targets, mapping):
    """`design` flattened, with the problem's instance updated, its densities and sparse
    targets replaced (None keeps the design's own), and `mapping` (a list of directives)."""
    def make():
        s, own = flatten_tag_form(design)
        inst = s["problem"]["instance"]
        inst.update(instance)
        inst["densities"] = densities
        return s, own if targets is None else targets, mapping
    return make


def committed_map(design):
    """The mapping of the design's reference run (its timeloop-mapper.map.yaml)."""
    with open(os.path.join(DATA, design, "timeloop-mapper.map.yaml")) as f:
        return yaml.safe_load(f)["mapping"]


def eyeriss_levels(psum, weights, ifmap, pe, column, glb, dram):
    """The eyeriss-like mapping: temporal factors per level, the PE (meshY 12) and PE_column
    (meshX 14) fan-outs as (factors, permutation, split)."""
    keep = [("psum_spad", ["Outputs"], ["Weights", "Inputs"]),
            ("weights_spad", ["Weights"], ["Inputs", "Outputs"]),
            ("ifmap_spad", ["Inputs"], ["Weights", "Outputs"]),
            ("inter_PE_spatial", [], ["Weights", "Inputs", "Outputs"]),
            ("inter_PE_column_spatial", [], ["Weights", "Inputs", "Outputs"]),
            ("shared_glb", ["Inputs", "Outputs"], ["Weights"]),
            ("DRAM", ["Weights", "Inputs", "Outputs"], [])]
    perm = "CMRSNPQ"
    temporal = {"psum_spad": psum, "weights_spad": weights, "ifmap_spad": ifmap,
                "inter_PE_spatial": "C1 M1 R1 S1 N1 P1 Q1",
                "inter_PE_column_spatial": "C1 M1 R1 S1 N1 P1 Q1", "shared_glb": glb,
                "DRAM": dram}
    spatial = {"inter_PE_spatial": pe, "inter_PE_column_spatial": column}
    return [(t, k, b, temporal[t], perm, spatial.get(t)) for t, k, b in keep]


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
    # conv1d+oc on 4 PEs (03.2.3's architecture and sparse spec), other densities and splits.
    "conv1d-spatial-hyper": tagged("03.2.3-conv1d+oc-spatial", {"M": 16, "S": 3, "Q": 9},
                                   {"Weights": dens(0.3, "hypergeometric"), "Inputs": dens(0.8)},
                                   None, directives([
        ("Buffer", ["Weights", "Inputs", "Outputs"], [], "M1 S3 Q9", "SQM", None),
        ("inter_PE_spatial", [], ["Weights", "Inputs", "Outputs"], "M1 S1 Q1", "MSQ",
         ("M4 S1 Q1", "MSQ", 1)),
        ("BackingStorage", ["Weights", "Inputs", "Outputs"], [], "M4 S1 Q1", "MSQ", None)])),
    "conv1d-spatial-m2-q": tagged("03.2.3-conv1d+oc-spatial", {"M": 8, "S": 3, "Q": 16},
                                  {"Weights": dens(0.5), "Inputs": dens(0.6, "hypergeometric")},
                                  None, directives([
        ("Buffer", ["Weights", "Inputs", "Outputs"], [], "M1 S3 Q4", "SQM", None),
        ("inter_PE_spatial", [], ["Weights", "Inputs", "Outputs"], "M1 S1 Q1", "MSQ",
         ("M2 S1 Q2", "MQS", 2)),
        ("BackingStorage", ["Weights", "Inputs", "Outputs"], [], "M4 S1 Q2", "MQS", None)])),
    # spMspM (02.2.1's UOP-CP formats, double-sided skipping) at other densities and shape.
    "spmspm-hyper": tagged("02.2.1-spMspM", {"M": 8, "K": 16, "N": 4},
                           {"A": dens(0.3, "hypergeometric"), "B": dens(0.6, "hypergeometric")},
                           None, directives([
        ("Buffer", ["B", "Z"], ["A"], "M8 N4 K16", "MNK", None),
        ("BackingStorage", ["A", "B", "Z"], [], "M1 N1 K1", "MNK", None)])),
    # eyeriss-like (04.2.1: weights gated on inputs in the PEs), a smaller layer, other
    # densities and a 12 x 14 split of output channels and rows.
    "eyeriss-gating-small": tagged("04.2.1-eyeriss-like-gating",
                                   {"C": 16, "M": 24, "N": 1, "P": 14, "Q": 14, "R": 3, "S": 3},
                                   {"Inputs": dens(0.5), "Weights": dens(0.35, "hypergeometric"),
                                    "Outputs": dens(0.6)},
                                   None, directives(eyeriss_levels(
        psum="C1 M2 R1 S1 N1 P1 Q1", weights="C4 M1 R3 S1 N1 P1 Q1",
        ifmap="C1 M1 R1 S1 N1 P1 Q1", pe=("C1 M4 R1 S3 N1 P1 Q1", "SMCRNPQ", 0),
        column=("C1 M1 R1 S1 N1 P1 Q14", "QCMRSNP", 1), glb="C1 M1 R1 S1 N1 P14 Q1",
        dram="C4 M3 R1 S1 N1 P1 Q1"))),
    # eyeriss-like with on-chip compression (04.2.3's sparse spec, layer and mapping): other
    # densities, hypergeometric weights.
    "eyerisscomp-hyper": tagged("04.2.3-eyeriss-like-onchip-compression", {},
                                {"Inputs": dens(0.4), "Weights": dens(0.3, "hypergeometric"),
                                 "Outputs": dens(0.5)}, None,
                                committed_map("04.2.3-eyeriss-like-onchip-compression")),
    # 04.2.1's layer and mapping with skipping instead of gating in the weight scratchpads.
    "eyeriss-skip-weights": tagged("04.2.1-eyeriss-like-gating", {},
                                   {"Inputs": dens(0.6), "Weights": dens(0.5, "hypergeometric"),
                                    "Outputs": dens(0.7)},
                                   [{"name": "weights_spad", "action_optimization": [
                                       opt("skipping", "Weights", "Inputs")]}],
                                   committed_map("04.2.1-eyeriss-like-gating")),
}


def run(name, out, timeloop_bin, env):
    spec, targets, mapping = VARIANTS[name]()
    spec["sparse_optimizations"] = {"targets": targets}
    spec = respell(spec)
    base = BASES.get(name.split("-")[0]) or TAGGED_BASES[name.split("-")[0]]
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
