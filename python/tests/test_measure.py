"""sparsemap.prune_study and sparsemap.spmm_bench call measure::prune_study::run and
measure::spmm_bench::run: on a tiny shape their dicts have the CLI's keys and, but for the
timings (and what the timings decide), the values of `sparsemap <command> ... --json`; bad
keywords raise the CLI's line."""

import os

import pytest

import sparsemap as sm

from cli_support import cli_error
from cli_support import cli_json as cli

# Keys whose values are timings, or decided by timings (the adaptive picks but their shape).
TIMED = {"ms", "dense_ms", "speedup", "speedup_vs_unstructured", "min_ms", "dense_min_ms",
         "gflops_useful", "dense_gflops", "dense_geomean_gflops", "geomean_speedup",
         "geomean_speedup_vs_dense", "gain_vs_unstructured", "adaptive_gain_vs_unstructured",
         "adaptive_error_ratio_geomean", "break_even_sparsity",
         "wins_at_every_tested_sparsity"}


def masked(x):
    """`x` with every timed value replaced by None (the keys stay), adaptive picks by shape."""
    if isinstance(x, dict):
        out = {k: None if k in TIMED else masked(v) for k, v in x.items()}
        if "adaptive" in x:
            out["adaptive"] = [{k: (v if k == "shape" else None) for k, v in a.items()}
                               for a in x["adaptive"]]
        return out
    if isinstance(x, list):
        return [masked(v) for v in x]
    return x


def test_prune_study_equals_the_cli(tmp_path):
    seen = []
    got = sm.prune_study(shapes="32,64,16", sparsity=[0.5, 0.75], v=4, min_ms=1, threads=1,
                         seed=3, progress=seen.append)
    want = cli(tmp_path, "prune-study", "--shapes", "32,64,16", "--sparsity", "0.5,0.75",
               "--v", "4", "--min-ms", "1", "--threads", "1", "--seed", "3")
    assert isinstance(got, sm.PruneStudyResult)
    assert masked(got.to_dict()) == masked(want)
    assert got.threads == 1 and got.budget == 0.1
    assert [(p["format"], p["v"], p["sparsity"]) for p in got.results] == [
        ("csr", 1, 0.5), ("cvse", 4, 0.5), ("csr", 1, 0.75), ("cvse", 4, 0.75)]
    assert [s.best_v for s in got.summary] == [4, 4]  # the only V
    assert [(p["done"], p["total"], p["label"]) for p in seen] == [(1, 1, "prune-study")]


def test_spmm_bench_equals_the_cli(tmp_path):
    seen = []
    got = sm.spmm_bench(shapes="32,64,16", formats="csr,nm:2:4", sparsity="0.5,0.75",
                        min_ms=1, min_reps=2, threads=1, detail=True, progress=seen.append)
    want = cli(tmp_path, "spmm-bench", "--shapes", "32,64,16", "--formats", "csr,nm:2:4",
               "--sparsity", "0.5,0.75", "--min-ms", "1", "--min-reps", "2", "--threads", "1")
    assert isinstance(got, sm.SpmmBenchResult)
    assert masked(got.to_dict()) == masked(want)
    assert [(r.spec, r.sparsity, r.stored_values) for r in got.results] == [
        ("csr", 0.5, 1024), ("csr", 0.75, 512), ("nm:2:4", 0.5, 1024)]
    assert got.stat == "median" and [s.spec for s in got.summary] == ["csr", "nm:2:4"]
    assert [p["label"] for p in seen] == ["32x64x16 dense", "32x64x16 csr at 50%",
                                          "32x64x16 csr at 75%", "32x64x16 nm:2:4 at 50%"]


@pytest.mark.parametrize("call, args", [
    (lambda: sm.spmm_bench(stat="mean"), ["spmm-bench", "--stat", "mean"]),
    (lambda: sm.spmm_bench(formats="cvse:3"), ["spmm-bench", "--formats", "cvse:3"]),
    (lambda: sm.spmm_bench(sparsity="0.5,2"), ["spmm-bench", "--sparsity", "0.5,2"]),
    (lambda: sm.spmm_bench(min_reps="many"), ["spmm-bench", "--min-reps", "many"]),
    (lambda: sm.spmm_bench(colour="blue"), ["spmm-bench", "--colour", "blue"]),
    (lambda: sm.prune_study(v="3"), ["prune-study", "--v", "3"]),
    (lambda: sm.prune_study(sparsity=1.5), ["prune-study", "--sparsity", "1.5"]),
    (lambda: sm.prune_study(weights="w.txt"), ["prune-study", "--weights", "w.txt"]),
    (lambda: sm.prune_study(seed=-1), ["prune-study", "--seed", "-1"]),
    (lambda: sm.prune_study(colour=True), ["prune-study", "--colour"]),
])
def test_bad_keywords_raise_the_clis_line(call, args):
    line = cli_error(*args)
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == line


def test_json_keyword_is_refused():
    with pytest.raises(ValueError, match="returns the JSON"):
        sm.prune_study(json="-")


def test_timing_warnings_are_the_clis(tmp_path):
    """The OpenBLAS environment warnings before a timing run are the CLI's lines (none where the
    variables are unset: this test passes with and without them, and never sets them)."""
    import warnings

    from cli_support import run_cli
    args = dict(shapes="32,64,16", formats="csr", sparsity="0.5", min_ms=1, threads=1)
    r = run_cli("spmm-bench", "--shapes", "32,64,16", "--formats", "csr", "--sparsity", "0.5",
                "--min-ms", "1", "--threads", "1", "--json", tmp_path / "cli.json")
    assert r.returncode == 0, r.stderr
    # The CLI wraps its warnings to 120 columns: join each warning's continuation lines.
    cli_lines = " ".join(r.stderr.split("\n  ")).splitlines()
    want = [line.removeprefix("sparsemap: warning: ") for line in cli_lines
            if line.startswith("sparsemap: warning: OPENBLAS_")]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        sm.spmm_bench(**args)
    got = [str(w.message) for w in seen if str(w.message).startswith("OPENBLAS_")]
    assert got == want
    assert len(want) == sum(v in os.environ for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"))
