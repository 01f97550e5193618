"""prune_train, prune_compare and prune_overhead call ml::prune's run functions in
sparsemap._ml: their dicts equal the CLI's --json (less the timings), and their errors are the
CLI's lines."""
import importlib.util

import pytest

import sparsemap as sm

from cli_support import run_cli as cli
from cli_support import cli_json as cli_json_file
from cli_support import without
HAVE_ML = importlib.util.find_spec("sparsemap._ml") is not None

# The fields that are wall times (or ratios of them), not results.
TIMES = {"step_ms", "hook_ms_per_step", "train_ms", "elapsed_s", "dense_step_ms", "overhead_pct",
         "hook_ms", "hook_pct", "update_ms", "amortized_pct", "dense_ms", "sparse_ms", "speedup"}

# 256 synthetic images in batches of 64, one epoch: 4 steps, under a second.
TINY = dict(data="synthetic", train_limit=256, test_limit=64, epochs=1, batch=64, threads=1)


def flags(kw):
    return [x for k, v in kw.items() for x in (
        [f"--{k.replace('_', '-')}"] if v is True else [f"--{k.replace('_', '-')}", str(v)])]


def cli_json(tmp_path, command, kw):
    return cli_json_file(tmp_path, command, *flags(kw), "--quiet")


needs_ml = pytest.mark.skipif(not HAVE_ML, reason="sparsemap._ml not built (no libtorch)")


def test_without_ml_the_functions_say_so():
    if HAVE_ML:
        pytest.skip("sparsemap._ml is built")
    with pytest.raises(ValueError, match="needs libtorch"):
        sm.prune_train(**TINY)


@needs_ml
def test_prune_train_equals_the_cli(tmp_path):
    kw = dict(TINY, algo="rigl", export="csr,nm:2:4", export_n=8, export_ms=1)
    reports = []
    got = sm.prune_train(progress=reports.append, **kw)
    assert isinstance(got, sm.PruneTrainResult)
    assert got.command == "prune-train" and got.algorithm == "rigl" and got.steps == 4
    assert len(got.export) == 6  # 3 weights x 2 formats
    assert [(r["done"], r["total"], r["label"]) for r in reports] == [(1, 1, "rigl")]
    assert without(got.to_dict(), TIMES) == without(cli_json(tmp_path, "prune-train", kw), TIMES)


@needs_ml
def test_prune_compare_and_overhead_equal_the_cli(tmp_path):
    kw = dict(TINY, algos="dense,magnitude")
    got = sm.prune_compare(**kw)
    assert isinstance(got, sm.PruneCompareResult)
    assert [r.algorithm for r in got.results] == ["no_prune", "magnitude"]
    assert without(got.to_dict(), TIMES) == without(cli_json(tmp_path, "prune-compare", kw), TIMES)
    kw = dict(data="synthetic", batch=16, steps=2, rounds=1, threads=1, algos="magnitude,set")
    got = sm.prune_overhead(**kw)
    assert isinstance(got, sm.PruneOverheadResult)
    assert [r.algorithm for r in got.rows] == ["magnitude", "set"]
    want = cli_json(tmp_path, "prune-overhead", kw)
    assert without(got.to_dict(), TIMES) == without(want, TIMES)


@needs_ml
@pytest.mark.parametrize("function, command, kw", [
    (sm.prune_train, "prune-train", {"mask_grads": "maybe"}),
    (sm.prune_train, "prune-train", {"epochs": "two"}),
    (sm.prune_train, "prune-train", {"colour": "blue"}),
    (sm.prune_train, "prune-train", {"algos": "set"}),  # prune-compare's flag
    (sm.prune_compare, "prune-compare", {"algos": "magnitude,lottery"}),
    (sm.prune_overhead, "prune-overhead", {"algos": "dense"}),
    (sm.prune_overhead, "prune-overhead", {"epochs": 1}),  # prune-train's flag
])
def test_bad_keywords_are_the_clis_errors(function, command, kw):
    kw = dict(kw, data="synthetic")
    r = cli(command, *flags(kw))
    assert r.returncode != 0
    with pytest.raises(ValueError) as e:
        function(**kw)
    assert str(e.value) == r.stderr.strip().splitlines()[0].removeprefix("sparsemap: ")


@needs_ml
def test_json_and_quiet_are_the_clis_only():
    with pytest.raises(ValueError, match="returns the JSON"):
        sm.prune_train(json="-", **TINY)
