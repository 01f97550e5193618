"""Workloads, accelerators, mappings and the cost model from Python, checked against the C++
numbers (the CLI's JSON for the same layer, accelerator and mapping)."""
import json

import numpy as np
import pytest

import sparsemap as sm

from conftest import SOURCE_DIR

MAESTRO_NET = SOURCE_DIR / "tests" / "data" / "maestro"


def test_zoo_model_layers_and_macs():
    m = sm.zoo("resnet50", batch=1)
    assert m.name == "resnet50"
    assert "resnet50" in sm.zoo_models()
    assert m.total_macs == 4089184256  # ResNet-50 at 224x224, batch 1
    conv1 = m[0]
    assert (conv1.name, conv1.kind, conv1.K, conv1.C, conv1.Y, conv1.R, conv1.stride) == (
        "conv1", "CONV", 64, 3, 224, 7, (2, 2))
    assert conv1.macs == 64 * 3 * 7 * 7 * 112 * 112
    assert sum(l.macs for l in m) == m.total_macs
    assert sm.zoo("resnet50", batch=2).total_macs == 2 * m.total_macs


def test_layer_built_from_python():
    l = sm.Layer("CONV", "c", K=16, C=8, Y=10, X=10, R=3, S=3, stride=1)
    assert l.macs == 16 * 8 * 9 * 8 * 8
    assert l.out_y == 8 and l.dims["K"] == 16
    l.K = 32
    assert l.macs == 32 * 8 * 9 * 8 * 8
    g = sm.Layer("GEMM", "g", M=4, N=5, K=6)
    assert g.macs == 120
    assert l == l.copy() and l != g


def test_arch_fields_editable():
    a = sm.arch("gamma-edge")
    assert a.num_pes == 168
    a.num_pes = 64
    a.energy.mac_pj = 2.0
    assert a.num_pes == 64 and a.energy.mac_pj == 2.0
    b = sm.Arch("gamma-edge", l2_bytes=4096)
    assert b.l2_bytes == 4096 and b.num_pes == 168
    assert set(sm.arch_presets()) >= {"gamma-edge", "maestro-example"}


def test_dataflow_and_dfsl_round_trip():
    l = sm.zoo("resnet50").gemm_layers[1]
    hw = sm.arch("gamma-edge")
    for name in ("kcp_ws", "xp_ws", "yxp_os"):
        m = sm.dataflow(name, l, hw)
        assert sm.Mapping.from_dfsl(m.to_dfsl(), l) == m


def test_genome_round_trip():
    l = sm.zoo("resnet50").gemm_layers[3]
    hw = sm.arch("gamma-edge")
    space = sm.MapSpace(l, hw)
    for g in space.sample(20, seed=3):
        m = space.decode(g)
        assert space.decode(space.encode(m)) == m
