"""Timeloop v0.4 / Accelergy inputs from Python (sparsemap.load_timeloop): the parsed parts, the
loop-nest model's result against timeloop-model's reference statistics of the tutorial's
exercise 03 (tests/data/timeloop, see its PROVENANCE.md), to_dict() against the CLI's --json,
and bad input as the CLI's one-line error."""
import json
import threading

import pytest

import sparsemap as sm

from conftest import SOURCE_DIR, cli_error

EX03 = SOURCE_DIR / "tests" / "data" / "timeloop" / "03-model-conv1d+oc-3level"
FILES = [EX03 / "arch" / "3level.arch.yaml", EX03 / "prob" / "conv1d+oc.prob.yaml",
         EX03 / "map" / "conv1d+oc-3level.map.yaml",
         EX03 / "ref-output" / "no-bypass" / "timeloop-model.ERT.yaml"]


def test_parts_are_parsed():
    t = sm.load_timeloop(*FILES)
    assert t.problem.name == "Conv1D_OC"
    assert t.problem.dims == ["K", "R", "P"]
    assert t.problem.bounds == {"K": 32, "R": 3, "P": 16}
    assert t.problem.data_spaces == ["Weights", "Inputs", "Outputs"]
    assert t.problem.operations == 1536
    assert [l.name for l in t.arch.levels] == ["MainMemory", "GlobalBuffer", "RegisterFile"]
    assert t.arch.levels[1].depth == 32768 and t.arch.compute_name == "MACC"
    d = t.mapping.directives
    assert [(x.target, x.type) for x in d] == [
        ("MainMemory", "temporal"), ("GlobalBuffer", "temporal"), ("RegisterFile", "temporal")]
    assert d[2].factors == [("R", 3), ("P", 1), ("K", 2)] and d[2].permutation == "RPK"
    assert d[2].split is None
    assert t.art is None and len(t.ert) == 4
    assert t.sources["mapping"] == str(FILES[2])
    # The writer's text reads back to the same directives.
    assert "factors: R=3 P=1 K=2" in t.mapping.to_yaml()


def test_result_matches_timeloop_model_reference():
    r = sm.load_timeloop(*FILES).evaluate()
    # ref-output/no-bypass/timeloop-model.stats.txt
    assert r.ok and r.macs == 1536 and r.cycles == 1536
    assert r.utilization == 1.0
    assert r.fj_per_compute("Total") == pytest.approx(32130.51, abs=0.01)
    assert r.energy_pj == pytest.approx(32130.51 * 1536 / 1000, rel=1e-6)
    assert r.fj_per_compute("MainMemory") == pytest.approx(26666.67, abs=0.01)
    assert [(l.name, l.instances) for l in r.levels] == [
        ("MainMemory", 1), ("GlobalBuffer", 1), ("RegisterFile", 1)]
    rf = r.levels[2].dataspaces
    assert (rf["Weights"].reads, rf["Weights"].fills, rf["Weights"].updates) == (1536, 96, 0)
    assert (rf["Inputs"].reads, rf["Inputs"].fills) == (1536, 288)
    assert (rf["Outputs"].reads, rf["Outputs"].updates) == (1024, 1536)
    gb = r.levels[1].dataspaces
    assert (gb["Inputs"].reads, gb["Inputs"].fills, gb["Outputs"].updates) == (288, 18, 512)
    assert r.levels[0].dataspaces["Weights"].reads == 96


def test_to_dict_is_the_cli_json(cli):
    rc, out, err = cli("timeloop", *FILES, "--json", "-")
    assert rc == 0, err
    r = sm.load_timeloop(*FILES).evaluate()
    assert r.to_dict() == json.loads(out)
    rc, out, err = cli("eval", "--timeloop", *FILES, "--json", "-")
    assert rc == 0, err
    assert r.to_dict() == json.loads(out)


def test_evaluate_releases_the_gil():
    t = sm.load_timeloop(*FILES)
    results = []
    threads = [threading.Thread(target=lambda: results.append(t.evaluate().cycles))
               for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [1536] * 4


def test_bad_factor_is_the_cli_error(cli, tmp_path):
    bad = tmp_path / "bad.map.yaml"
    bad.write_text("mapping:\n  - target: MainMemory\n    type: temporal\n"
                   "    factors: R=1 P=0 K=1\n")
    rc, _, err = cli("timeloop", FILES[0], FILES[1], bad)
    assert rc == 2
    with pytest.raises(ValueError) as e:
        sm.load_timeloop(FILES[0], FILES[1], bad)
    assert str(e.value) == cli_error(err)
    assert str(e.value) == f"{bad}:4:20: expected a positive integer factor for P"


def test_missing_parts_and_infeasible_mappings(cli, tmp_path):
    with pytest.raises(ValueError, match="expected a mapping among the files"):
        sm.load_timeloop(FILES[0], FILES[1]).evaluate()
    with pytest.raises(FileNotFoundError):
        sm.load_timeloop(tmp_path / "none.yaml")
    short = tmp_path / "short.map.yaml"
    short.write_text("mapping:\n  - target: MainMemory\n    type: temporal\n    factors: P=8\n")
    rc, _, err = cli("timeloop", FILES[0], FILES[1], short)
    assert rc == 2
    t = sm.load_timeloop(FILES[0], FILES[1], short)
    with pytest.raises(ValueError) as e:
        t.evaluate()
    assert str(e.value) == cli_error(err)
    r = t.evaluate(check=False)
    assert not r.ok
    assert r.reason == "mapping: the factors of K multiply to 1, the problem's bound is 32"
