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


def layer_record(l):
    """The fields of `sparsemap show --json` for one layer, read from a Layer."""
    dims = {k: v for k, v in l.dims.items() if v != 1 or k in "NKCYXRS" and l.kind == "CONV"}
    return dict(name=l.name, kind=l.kind, macs=l.macs, params=l.params, out_y=l.out_y,
                out_x=l.out_x, input_elems=l.input_elems, weight_elems=l.weight_elems,
                output_elems=l.output_elems, stride=list(l.stride), pad=list(l.pad)), dims


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("spec", [
    "data/gamma/resnet18.csv",
    "data/onnx/mobilenet_v2.onnx",
    "tests/data/maestro/networks/MobileNetV2_kcp_ws.m",
    "bert-base",
])
def test_load_model_equals_cli_show(cli, spec):
    path = str(SOURCE_DIR / spec) if "/" in spec else spec
    rc, out, err = cli("show", path, "--json", "-")
    assert rc == 0, err
    expected = json.loads(out)["layers"]
    model = sm.load_model(path)
    assert len(model) == len(expected)
    for l, e in zip(model, expected):
        rec, _ = layer_record(l)
        for key, value in rec.items():
            if key in e:
                assert e[key] == value, (l.name, key)
        for letter, size in e.get("dims", {}).items():
            assert l.dims[letter] == size, (l.name, letter)


def eval_expected(cli, *args):
    rc, out, err = cli("eval", *args, "--json", "-")
    assert rc == 0, err
    return json.loads(out)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("net,hw", [
    ("networks/MobileNetV2_kcp_ws.m", "accelerator_1.m"),
    ("networks/Resnet50_yxp_os.m", "accelerator_1.m"),
    ("uneven/case000.m", "uneven/case000.hw.m"),
    ("uneven/case007.m", "uneven/case007.hw.m"),
])
def test_evaluate_equals_cli_eval(cli, net, hw):
    net, hw = MAESTRO_NET / net, MAESTRO_NET / hw
    expected = eval_expected(cli, "--mapping", net, "--hw", hw)["layers"]
    parsed = sm.read_dfsl(str(net))
    accel = sm.load_arch(str(hw))
    assert len(parsed["layers"]) == len(expected)
    previous = None
    for layer, mapping, clamped, e in zip(parsed["layers"], parsed["mappings"],
                                          parsed["clamped"], expected):
        if len(mapping) == 0:  # MAESTRO reuses the mapping of the layer before
            mapping = previous
        previous = mapping
        got = sm.evaluate(layer, accel, mapping).to_dict()
        got["clamped"] = clamped
        e.pop("note", None)
        assert got == e, layer.name


def test_evaluate_dataflow_and_sparsity_equal_cli(cli):
    hw = sm.arch("gamma-edge")
    flags = ("--density", "W=0.5", "--structure", "W=nm:2:4", "--sparse-mode", "skip")
    expected = eval_expected(cli, "--model", "resnet18", "--dataflow", "xp_ws", "--hw",
                             "gamma-edge", *flags)["layers"]
    layers = sm.zoo("resnet18").gemm_layers
    assert len(layers) == len(expected)
    for l, e in zip(layers, expected):
        c = sm.evaluate(l, hw, sm.dataflow("xp_ws", l, hw), density="W=0.5",
                        structure="W=nm:2:4", sparse_mode="skip")
        assert c.to_dict() == e, l.name
        assert (c.runtime_cycles, c.energy_nj, c.l2_bytes) == (
            e["runtime_cycles"], e["energy_nj"], e["l2_bytes"])


BATCH_FIELDS = ["runtime_cycles", "energy_nj", "l1_bytes", "l2_bytes", "pes_used", "macs",
                "compute_cycles", "mapped_macs", "effectual_macs", "avg_pes_utilized",
                "noc_words_per_cycle", "offchip_words_per_cycle", "area_mm2", "power_mw"]


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_single(threads):
    l = sm.zoo("resnet50").gemm_layers[5]
    hw = sm.arch("gamma-edge")
    space = sm.MapSpace(l, hw, max_levels=3)
    genomes = space.sample(300, seed=threads)
    mappings = [space.decode(g) for g in genomes]
    by_genome = sm.evaluate_batch(l, hw, genomes, threads=threads, space=space,
                                  enforce_buffers=True)
    by_mapping = sm.evaluate_batch(l, hw, mappings, threads=threads, enforce_buffers=True)
    singles = [sm.evaluate(l, hw, m, enforce_buffers=True) for m in mappings]
    for key in BATCH_FIELDS:
        want = np.array([getattr(c, key) for c in singles])
        assert np.array_equal(by_genome[key], want), key
        assert np.array_equal(by_mapping[key], want), key
    status = np.array([sm.STATUS_NAMES.index(c.status) for c in singles])
    assert np.array_equal(by_genome["status"], status)
    assert by_genome["runtime_cycles"].dtype == np.int64
    assert 0 < (status == 0).sum() < len(status)  # both feasible and infeasible ones


def test_batch_default_space_is_two_levels():
    l = sm.zoo("resnet18").gemm_layers[2]
    hw = sm.arch("gamma-edge")
    g = sm.MapSpace(l, hw).sample(5, seed=9)
    r = sm.evaluate_batch(l, hw, g)
    assert list(r["runtime_cycles"]) == [
        sm.evaluate(l, hw, sm.MapSpace(l, hw).decode(x)).runtime_cycles for x in g]


def test_load_arch_files_and_yaml():
    a = sm.load_arch(str(MAESTRO_NET / "accelerator_1.m"))
    assert (a.num_pes, a.noc_words_per_cycle, a.offchip_words_per_cycle) == (256, 1000, 50)
    b = sm.arch("gamma-edge")
    b.num_pes = 64
    assert sm.parse_arch_yaml(b.to_yaml()).num_pes == 64


def test_values_pickle_round_trip():
    import pickle
    m = sm.zoo("mobilenet-v2")
    assert pickle.loads(pickle.dumps(m)) == m
    l = sm.Layer("CONV", "c", K=8, C=4, Y=9, X=7, R=3, S=3, stride=(2, 1), pad=1)
    assert pickle.loads(pickle.dumps(l)) == l
    a = sm.Arch("gamma-edge", num_pes=64, array_shape=[8, 8])
    a.energy.mac_pj = 0.5
    b = pickle.loads(pickle.dumps(a))
    assert b == a and b.energy.mac_pj == 0.5 and b.array_shape == [8, 8]
    layer = sm.zoo("resnet50").gemm_layers[2]
    for name in ("kcp_ws", "yxp_os"):  # with Sz() and Cluster directives
        mp = sm.dataflow(name, layer, a)
        assert pickle.loads(pickle.dumps(mp)) == mp


def test_arch_edits_change_the_cost():
    l = sm.zoo("resnet50").gemm_layers[2]
    a = sm.arch("gamma-edge")
    mp = sm.dataflow("kcp_ws", l, a)
    e1 = sm.evaluate(l, a, mp).energy_breakdown_nj["mac"]
    a.energy.mac_pj *= 2
    assert sm.evaluate(l, a, mp).energy_breakdown_nj["mac"] == pytest.approx(2 * e1, rel=1e-12)


def test_batch_releases_the_gil():
    """While one thread is inside evaluate_batch, another keeps running Python: the largest gap
    between its loop iterations stays well below the batch's duration."""
    import threading
    import time
    l = sm.zoo("resnet50").gemm_layers[4]
    hw = sm.arch("gamma-edge")
    space = sm.MapSpace(l, hw)
    genomes = space.sample(30_000, seed=1)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        sm.evaluate_batch(l, hw, genomes, space=space, threads=1)
        span["end"] = time.perf_counter()

    t = threading.Thread(target=work)
    stamps = []
    t.start()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    inside = [s for s in stamps if span["start"] <= s <= span["end"]]
    duration = span["end"] - span["start"]
    gaps = np.diff([span["start"], *inside, span["end"]])
    assert gaps.max() < 0.75 * duration, (gaps.max(), duration)  # held: about 0.96
