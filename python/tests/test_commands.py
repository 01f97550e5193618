"""The commands' entry points give the CLI's JSON: each on a tiny configuration, compared with
`sparsemap <command> ... --json FILE` for the same seed (dict equality after dropping the
wall-clock fields), and bad arguments raise the CLI's one-line message."""
import importlib.util
import os
import subprocess
import sys

import pytest

import sparsemap as sm

from cli_support import CLI, SOURCE, without
from cli_support import cli_error as cli_error_line
from cli_support import cli_json as cli_json_plain

# Fields that measure time, not results.
TIMING = {"wall_s", "wall_s_first", "wall_s_per_seed", "load_s", "convergence_seconds",
          "seconds_to_best"}


def deterministic(x):
    return without(x, TIMING)


def cli_json(tmp_path, *args, quiet=True):
    return cli_json_plain(tmp_path, *args, *(["--quiet"] if quiet else []))


def cli_error(*args):
    return cli_error_line(*args, one_line=True)


def test_map_model_equals_the_cli(tmp_path):
    got = sm.map_model("resnet18", "gamma-edge", budget=60, seed=3, threads=2)
    want = cli_json(tmp_path, "map", "--model", "resnet18", "--hw", "gamma-edge", "--budget",
                    "60", "--seed", "3", "--threads", "1")
    assert deterministic(got) == deterministic(want)
    assert got["total"]["layers"] == 21 and got["seed"] == 3
    # Options by name, as the CLI spells them (--compare-dataflows, --levels).
    more = sm.map_model("resnet18", "gamma-edge", budget=20, seed=3, levels=1,
                        compare_dataflows=True)
    assert more["levels"] == 1 and set(more["dataflows_total"]) == {"kcp_ws", "xp_ws", "yxp_os"}


def test_map_model_takes_an_arch_object():
    hw = sm.arch("gamma-edge")
    by_name = sm.map_model("resnet18", "gamma-edge", budget=20, seed=1)
    assert deterministic(sm.map_model("resnet18", hw, budget=20, seed=1)) == deterministic(by_name)
    hw.num_pes = 64  # an edited accelerator is what the search sees
    small = sm.map_model("resnet18", hw, budget=20, seed=1)
    assert max(l["pes_used"] for l in small["layers"]) <= 64


def test_commands_take_model_objects():
    """A Model object (here an edited zoo model) is handed to the command in memory."""
    m = sm.zoo("resnet18")
    whole = sm.map_model("resnet18", "gamma-edge", budget=20, seed=1)
    assert deterministic(sm.map_model(m, "gamma-edge", budget=20, seed=1)) == deterministic(whole)
    first = sm.Model("first-convs", [l for l in m.layers if l.is_gemm_class][:3])
    part = sm.map_model(first, "gamma-edge", budget=20, seed=1)
    assert part["model"] == "first-convs" and part["total"]["layers"] == 3
    assert [l["runtime_cycles"] for l in part["layers"]] == [
        l["runtime_cycles"] for l in whole["layers"][:3]]
    got = sm.codesign(m, platform="edge", budget=20, seed=2, baselines="none")
    assert got["model"] == "resnet18"
    with pytest.raises(TypeError, match="attention takes"):
        sm.attention(m)


def test_codesign_equals_the_cli(tmp_path):
    kw = dict(platform="edge", budget=40, seed=2, baselines="random,fixed-gamma")
    got = sm.codesign("resnet18", **kw)
    want = cli_json(tmp_path, "codesign", "--model", "resnet18", "--platform", "edge",
                    "--budget", "40", "--seed", "2", "--baselines", "random,fixed-gamma")
    assert deterministic(got) == deterministic(want)
    assert set(got["baselines"]) == {"random", "fixed-gamma"}


def test_attention_equals_the_cli(tmp_path):
    got = sm.attention("bert", hw="flat-edge", seq="512", map_budget=30, seed=1)
    want = cli_json(tmp_path, "attention", "--model", "bert", "--hw", "flat-edge", "--seq",
                    "512", "--map-budget", "30", "--seed", "1")
    assert deterministic(got) == deterministic(want)


def test_attention_reports_progress_and_takes_an_arch_object():
    """attention calls dse::attention::run directly: progress= before each length and after
    the last; hw= takes an Arch object."""
    seen = []
    got = sm.attention("bert", seq="512,1K", map_budget=20, progress=seen.append)
    assert [s["label"] for s in seen] == ["bert flat-edge N=512", "bert flat-edge N=1K",
                                          "bert flat-edge"]
    assert seen[-1]["done"] == seen[-1]["total"] == 2
    by_object = sm.attention("bert", seq="512,1K", map_budget=20, hw=sm.arch("flat-edge"))
    assert deterministic(by_object) == deterministic(got)
    with pytest.raises(ValueError, match="<flag --seq>"):
        sm.attention("bert", seq="1K,abc")


def test_fuse_equals_the_cli(tmp_path):
    got = sm.fuse("resnet18", method=["none", "dp"], batch=4)
    want = cli_json(tmp_path, "fuse", "--model", "resnet18", "--method", "none,dp", "--batch",
                    "4")
    assert deterministic(got) == deterministic(want)
    assert [r["method"] for r in got] == ["none", "dp"]


def test_schedule_equals_the_cli(tmp_path):
    table = str(SOURCE / "tests/data/magma/jobtable_batch_mix-insts0.csv")
    got = sm.schedule(job_table=table, bw=1, budget=200, seed=4)
    want = cli_json(tmp_path, "schedule", "--job-table", table, "--bw", "1", "--budget", "200",
                    "--seed", "4")
    assert deterministic(got) == deterministic(want)


def test_schedule_reports_progress_and_refuses_bad_values():
    """schedule calls dse::schedule::run: progress= receives a dict after each generation of G#,
    and bad values raise the CLI's line (CLI11's for --init and --core-draw)."""
    table = str(SOURCE / "tests/data/magma/jobtable_batch_mix-insts0.csv")
    seen = []
    got = sm.schedule(job_table=table, bw=1, budget=200, seed=4, progress=seen.append)
    assert seen and set(seen[0]) == {"item", "items", "done", "total", "best", "label"}
    assert seen[-1]["label"] == "gsharp" and seen[-1]["total"] == 200
    assert seen[-1]["best"] >= got["makespan_cycles"]
    assert deterministic(got) == deterministic(sm.schedule(job_table=table, bw=1, budget=200,
                                                           seed=4))
    for kw, flags in [({"init": "sorted"}, ["--init", "sorted"]),
                      ({"core_draw": "fast"}, ["--core-draw", "fast"]),
                      ({"bw": 0}, ["--bw", "0"]),
                      ({"algo": "magic"}, ["--algo", "magic"]),
                      ({"population": 2**40}, ["--population", str(2**40)]),
                      ({"local_search": 2.0}, ["--local-search", "2.0"])]:
        if not CLI.exists():
            pytest.skip(f"no CLI at {CLI}")
        r = subprocess.run([str(CLI), "schedule", "--job-table", table, "--budget", "20",
                            *flags], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2
        with pytest.raises(ValueError) as e:
            sm.schedule(job_table=table, budget=20, **kw)
        assert str(e.value) == r.stderr.splitlines()[0].removeprefix("sparsemap: ")


def test_hwalloc_equals_the_cli(tmp_path):
    model = str(SOURCE / "tests/data/confuciux/models/resnet18.csv")
    got = sm.hwalloc(model, method="ga", budget=600, seed=5)
    want = cli_json(tmp_path, "hwalloc", "--model", model, "--method", "ga", "--budget", "600",
                    "--seed", "5")
    assert deterministic(got) == deterministic(want)


# sparsemap._ml: the extension linked with libtorch (hwalloc's RL methods), when built.
HAVE_ML = importlib.util.find_spec("sparsemap._ml") is not None


def test_import_does_not_load_libtorch():
    """`import sparsemap` loads neither sparsemap._ml nor libtorch; an RL hwalloc loads both
    (when _ml is built)."""
    model = str(SOURCE / "tests/data/confuciux/models/resnet18.csv")
    code = f"""
import sys, sparsemap
def torch_loaded():
    return any("libtorch" in line for line in open("/proc/self/maps"))
assert "sparsemap._ml" not in sys.modules and not torch_loaded()
sparsemap.hwalloc({model!r}, method="ga", budget=200)
assert "sparsemap._ml" not in sys.modules and not torch_loaded()
if {HAVE_ML!r}:
    sparsemap.hwalloc({model!r}, method="confuciux", budget=200)
    assert "sparsemap._ml" in sys.modules and torch_loaded()
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr


def test_hwalloc_rl_equals_the_cli(tmp_path):
    """The RL methods (seeded: deterministic) give the CLI's JSON, through sparsemap._ml."""
    if not HAVE_ML:
        pytest.skip("sparsemap._ml (libtorch) not built")
    model = str(SOURCE / "tests/data/confuciux/models/resnet18.csv")
    for method in ["confuciux", "a2c"]:
        got = sm.hwalloc(model, method=method, budget=700, seed=3, budget_counts="states")
        want = cli_json(tmp_path, "hwalloc", "--model", model, "--method", method, "--budget",
                        "700", "--seed", "3", "--budget-counts", "states")
        assert deterministic(got) == deterministic(want)
        assert got["rl_episodes"] > 0
    steps = []
    sm.hwalloc(model, method="confuciux", budget=700, seed=3, progress=steps.append)
    assert {s["label"] for s in steps} == {"episode", "generation"}


def test_mse_equals_the_cli(tmp_path):
    steps = []
    got = sm.mse(["ncf"], algos="gamma,random", budgets=[20, 40], seeds=2, progress=steps.append)
    want = cli_json(tmp_path, "mse", "--models", "ncf", "--algos", "gamma,random", "--budgets",
                    "20,40", "--seeds", "2")
    assert deterministic(got.to_dict()) == deterministic(want)
    assert isinstance(got, sm.MseResult) and [l.best for l in got.layers] == [496, 257, 65, 2]
    assert got.results[0].geomean_ratio == 1.0718698532477045
    starts = [s["label"] for s in steps if s["done"] == 0]
    assert starts[0] == "gamma budget 20 seed 1" and len(starts) == 8
    assert all(s["items"] == 4 for s in steps)
    # csv= writes the convergence curves, as --csv does.
    csv = tmp_path / "curves.csv"
    sm.mse("ncf", algos="random", budgets=10, seeds=1, csv=str(csv))
    assert csv.read_text().startswith("algo,budget,samples,geomean_ratio\nrandom,10,1,")


def test_eval_model_equals_the_cli(tmp_path):
    got = sm.eval_model("resnet18", "gamma-edge", "kcp_ws")
    want = cli_json(tmp_path, "eval", "--model", "resnet18", "--dataflow", "kcp_ws", "--hw",
                    "gamma-edge", quiet=False)
    assert isinstance(got, sm.EvalResult) and got.to_dict() == want
    assert got.total.runtime_cycles == 34930517
    sparse = sm.eval_model("ncf", hw="maestro-example", dataflow="xp_ws", density="W=0.5",
                           structure="W=nm:2:4", enforce_buffers=True)
    want = cli_json(tmp_path, "eval", "--model", "ncf", "--dataflow", "xp_ws", "--hw",
                    "maestro-example", "--density", "W=0.5", "--structure", "W=nm:2:4",
                    "--enforce-buffers", quiet=False)
    assert sparse.to_dict() == want and sparse.total.runtime_cycles == 2050
    several = sm.eval_model(sm.zoo("ncf"), sm.arch("gamma-edge"), ["kcp_ws", "xp_ws"])
    want = cli_json(tmp_path, "eval", "--model", "ncf", "--dataflow", "kcp_ws,xp_ws", "--hw",
                    "gamma-edge", quiet=False)
    assert several.to_dict() == want and len(several.evaluations) == 2
    mapping = SOURCE / "tests/data/maestro/networks/ncf_nmk.m"
    with pytest.warns(UserWarning, match="clamped"):  # the file's reader warnings
        from_file = sm.eval_model(hw="maestro-example", mapping=mapping)
    want = cli_json(tmp_path, "eval", "--mapping", str(mapping), "--hw", "maestro-example",
                    quiet=False)
    assert from_file.to_dict() == want


def test_eval_model_with_timeloop_files_equals_the_cli(tmp_path):
    kp = SOURCE / "tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp"
    files = [kp / "timeloop-model.ERT.yaml", kp / "parsed-processed-input.yaml"]
    got = sm.eval_model(timeloop=files)
    want = cli_json(tmp_path, "eval", "--timeloop", *map(str, files), quiet=False)
    assert got.to_dict() == want == cli_json(tmp_path, "timeloop", *map(str, files), quiet=False)
    assert got.cycles == 3072
    with pytest.raises(ValueError, match="--hw does not apply to Timeloop files"):
        sm.eval_model(hw="gamma-edge", timeloop=files)


def test_timeloop_takes_the_commands_flags(tmp_path):
    kp = SOURCE / "tests/data/timeloop/04-model-conv1d+oc-3levelspatial/ref-output/kp"
    files = [kp / "timeloop-model.ERT.yaml", kp / "parsed-processed-input.yaml"]
    emitted = tmp_path / "map.yaml"
    got = sm.timeloop(*files, no_leakage=True, timeloop_3_0_3=True, emit_map=emitted)
    assert isinstance(got, sm.EvalResult) and got.cycles == 3072
    want = cli_json(tmp_path, "timeloop", *map(str, files), "--no-leakage", "--timeloop-3.0.3",
                    quiet=False)
    assert got.to_dict() == want
    assert emitted.read_text().startswith("mapping:")
    # a preset's hierarchy in place of the files' architecture: the files hold one, so refused
    line = cli_error("timeloop", *map(str, files), "--hw", "gamma-edge")
    with pytest.raises(ValueError) as e:
        sm.timeloop(*files, hw="gamma-edge")
    assert str(e.value) == line
    with pytest.raises(ValueError, match="files is required"):
        sm.timeloop()
    with pytest.raises(ValueError, match="The following argument was not expected: --leakage"):
        sm.timeloop(*files, leakage=True)


@pytest.mark.parametrize("call,args", [
    (lambda: sm.mse("ncf", budgets="20,0"), ["mse", "--models", "ncf", "--budgets", "20,0"]),
    (lambda: sm.mse("ncf", seeds=0), ["mse", "--models", "ncf", "--seeds", "0"]),
    (lambda: sm.mse("ncf", algos="gamma,hillclimb"),
     ["mse", "--models", "ncf", "--algos", "gamma,hillclimb"]),
    (lambda: sm.eval_model("resnet18", "gamma-edge"),
     ["eval", "--model", "resnet18", "--hw", "gamma-edge"]),
    (lambda: sm.eval_model("resnet18", "gamma-edge", "kcp_ws", mapping="x.m"),
     ["eval", "--model", "resnet18", "--hw", "gamma-edge", "--dataflow", "kcp_ws", "--mapping",
      "x.m"]),
    (lambda: sm.eval_model("resnet18", "gamma-edge", "kcp_ws", density="W=2"),
     ["eval", "--model", "resnet18", "--hw", "gamma-edge", "--dataflow", "kcp_ws", "--density",
      "W=2"]),
    (lambda: sm.map_model("resnet18", "gamma-edge", algo="hillclimb"),
     ["map", "--model", "resnet18", "--hw", "gamma-edge", "--algo", "hillclimb"]),
    (lambda: sm.map_model("resnet18", "gamma-edge", budget=0),
     ["map", "--model", "resnet18", "--hw", "gamma-edge", "--budget", "0"]),
    (lambda: sm.map_model("resnet18", "no-such-arch"),
     ["map", "--model", "resnet18", "--hw", "no-such-arch"]),
    (lambda: sm.map_model("resnet1800", "gamma-edge"),
     ["map", "--model", "resnet1800", "--hw", "gamma-edge"]),
    (lambda: sm.fuse("resnet18", method="magic"), ["fuse", "--model", "resnet18", "--method",
                                                   "magic"]),
    (lambda: sm.codesign("resnet18", objective="speed", platform="edge"),
     ["codesign", "--model", "resnet18", "--platform", "edge", "--objective", "speed"]),
])
def test_bad_arguments_raise_the_clis_line(call, args):
    line = cli_error(*args)
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == line


def test_flag_parse_errors_give_cli11s_first_line():
    if not CLI.exists():
        pytest.skip(f"no CLI at {CLI}")
    for kw, flags in [({"budget": "abc"}, ["--budget", "abc"]),
                      ({"colour": "blue"}, ["--colour", "blue"]),
                      ({"seed": -1}, ["--seed", "-1"])]:
        r = subprocess.run([str(CLI), "map", "--model", "resnet18", "--hw", "gamma-edge", *flags],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2
        with pytest.raises(ValueError) as e:
            sm.map_model("resnet18", "gamma-edge", **kw)
        assert str(e.value) == r.stderr.splitlines()[0]


def test_missing_file_is_file_not_found():
    with pytest.raises(FileNotFoundError, match="no-such.m"):
        sm.map_model("no-such.m", "gamma-edge")


def test_unknown_option_and_libtorch_methods():
    with pytest.raises(ValueError, match="--colour"):
        sm.map_model("resnet18", "gamma-edge", colour="blue")
    with pytest.raises(ValueError, match="json"):
        sm.map_model("resnet18", "gamma-edge", json="-")
    with pytest.raises(TypeError, match="zoo name"):
        sm.map_model(42, "gamma-edge")
    with pytest.raises(ValueError, match="expected a model name"):
        sm.map_model("python:resnet18#0", "gamma-edge")  # no model is held under that key
    # _sparsemap is built without libtorch: its RL methods say so, as such a CLI does; so does
    # sparsemap.hwalloc when sparsemap._ml (the extension with libtorch) is not built.
    model = str(SOURCE / "tests/data/confuciux/models/resnet18.csv")
    with pytest.raises(ValueError, match="without libtorch"):
        sm._sparsemap.hwalloc(model, method="confuciux", budget=10)
    if not HAVE_ML:
        with pytest.raises(ValueError, match="without libtorch"):
            sm.hwalloc(model, method="confuciux", budget=10)
    else:  # _ml runs it, with the CLI's checks
        with pytest.raises(ValueError, match="<flag --budget>: expected more than the 100"):
            sm.hwalloc(model, method="confuciux", budget=10)
    # The learned fusion mapper needs no libtorch: it runs from the shipped plain weights.
    assert sm.fuse("resnet18", method="learned")["method"] == "learned"


def test_map_model_and_codesign_report_progress():
    """progress= receives a dict after each batch of evaluations (map_model and codesign call
    the library's run directly)."""
    seen = []
    got = sm.map_model("ncf", "gamma-edge", budget=40, seed=1, progress=seen.append)
    assert seen and set(seen[0]) == {"item", "items", "done", "total", "best", "label"}
    assert seen[-1]["done"] == seen[-1]["total"] == 40
    assert deterministic(got) == deterministic(sm.map_model("ncf", "gamma-edge", budget=40, seed=1))
    steps = []
    sm.codesign("ncf", platform="edge", budget=20, seed=1, baselines="none",
                progress=steps.append)
    assert steps and steps[0]["label"] == "ncf digamma"


def test_map_model_runs_from_several_threads():
    """Two threads map at once (no lock around the library call) and get what one alone gets."""
    import threading
    alone = {m: deterministic(sm.map_model(m, "gamma-edge", budget=30, seed=2))
             for m in ("ncf", "resnet18")}
    got = {}

    def work(m):
        got[m] = deterministic(sm.map_model(m, "gamma-edge", budget=30, seed=2))

    threads = [threading.Thread(target=work, args=(m,)) for m in alone]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == alone


EYERISS = SOURCE / "tests/data/timeloop/example_designs/eyeriss_like/parsed-processed-input.yaml"


def without_seconds(x):
    """The Timeloop searches' JSON less its wall times ("seconds" at every level)."""
    if isinstance(x, dict):
        return {k: without_seconds(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [without_seconds(v) for v in x]
    return x


def test_timeloop_map_model_and_codesign_equal_the_cli(tmp_path):
    """map_model and codesign on a Timeloop architecture call dse::timeloop's run directly."""
    seen = []
    got = sm.map_model(None, str(EYERISS), budget=300, seed=2, progress=seen.append)
    want = cli_json(tmp_path, "map", "--hw", str(EYERISS), "--budget", "300", "--seed", "2")
    assert without_seconds(got) == without_seconds(want)
    assert got["budget"] == 300 and got["metrics"] == ["edp"] and seen
    shapes = str(SOURCE / "tests/data/timeloop/layer_shapes/resnet18")
    kw = dict(area_budget_mm2=1.0, budget=4, map_budget=30, final_budget=60, seed=3)
    got = sm.codesign(shapes, hw=str(EYERISS), **kw)
    want = cli_json(tmp_path, "codesign", "--hw", str(EYERISS), "--model", shapes,
                    "--area-budget-mm2", "1.0", "--budget", "4", "--map-budget", "30",
                    "--final-budget", "60", "--seed", "3")
    assert without_seconds(got) == without_seconds(want) and got["designs"] == 4


def test_timeloop_refuses_the_flags_of_maestro_class_accelerators():
    for call, args in [
        (lambda: sm.map_model(None, str(EYERISS), levels=2),
         ["map", "--hw", str(EYERISS), "--levels", "2"]),
        (lambda: sm.codesign(None, hw=str(EYERISS), area_budget_mm2=1.0, platform="edge"),
         ["codesign", "--hw", str(EYERISS), "--area-budget-mm2", "1", "--platform", "edge"]),
        (lambda: sm.codesign(None, hw=str(EYERISS)), ["codesign", "--hw", str(EYERISS)]),
    ]:
        line = cli_error(*args)
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == line


def test_results_are_typed_with_attributes_and_to_dict(tmp_path):
    got = sm.map_model("ncf", "gamma-edge", budget=30, seed=2)
    assert isinstance(got, sm.MapResult) and isinstance(got.total, sm.Record)
    assert got.total.layers == got["total"]["layers"] == len(got.layers)
    assert got.layers[0].runtime_cycles == got["layers"][0]["runtime_cycles"]
    plain = got.to_dict()
    assert type(plain) is dict and type(plain["total"]) is dict and type(plain["layers"][0]) is dict
    want = cli_json(tmp_path, "map", "--model", "ncf", "--hw", "gamma-edge", "--budget", "30",
                    "--seed", "2")
    assert deterministic(plain) == deterministic(want)
    with pytest.raises(AttributeError, match="no field 'no_such'"):
        got.no_such
    assert "total" in dir(got)
    several = sm.fuse("resnet18", method=["none", "dp"], batch=4)
    assert isinstance(several, sm.Records) and isinstance(several[1], sm.FuseResult)
    assert [r.method for r in several] == ["none", "dp"]
    assert type(several.to_dict()[0]) is dict
    assert isinstance(sm.schedule(job_table=str(SOURCE / "tests/data/magma/jobtable_batch_mix-insts0.csv"),
                                  budget=50), sm.ScheduleResult)


@pytest.mark.parametrize("call", [
    lambda: sm.codesign("resnet50", platform="cloud", budget=100000, seed=1),
    lambda: sm.codesign(str(SOURCE / "tests/data/timeloop/layer_shapes/resnet18"),
                        hw=str(EYERISS), area_budget_mm2=1.0, budget=100000),
    lambda: sm.map_model("resnet50", "gamma-edge", budget=10**7),
    lambda: sm.mse("resnet50", algos="gamma", budgets=10**7, seeds=1),
    # report's inner searches (mappings, then codesign): cancelled at their progress reports.
    lambda: sm.report("resnet50", "gamma-edge", out=os.devnull, no_profile=True, budget=50,
                      codesign_budget=10**6, spmm_shapes=0),
])
def test_ctrl_c_stops_a_search_within_a_second(call):
    """SIGINT during a long search raises KeyboardInterrupt within one second."""
    import signal
    import threading
    import time
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        stopped = time.perf_counter()
    finally:
        timer.cancel()
    print(f"stopped {stopped - sent[0]:.3f} s after SIGINT")
    assert sent and stopped - sent[0] < 1.0, stopped - sent[0]


# report: a tiny page (small budgets, no SpMM timing); `warning` says how busy the machine was.
REPORT_TINY = {"budget": 20, "codesign_budget": 20, "spmm_shapes": 0}
REPORT_FLAGS = ["--budget", "20", "--codesign-budget", "20", "--spmm-shapes", "0"]



def test_report_writes_the_page_and_equals_the_cli(tmp_path):
    page = tmp_path / "page.html"
    steps = []
    got = sm.report("resnet18", "maestro-example", out=page, no_profile=True,
                    progress=steps.append, **REPORT_TINY)
    assert isinstance(got, sm.ReportResult)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and 'id="section-nongemm"' in html
    want = cli_json(tmp_path, "report", "--model", "resnet18", "--hw", "maestro-example",
                    *REPORT_FLAGS, "--no-profile", "--out", str(tmp_path / "cli.html"))
    assert without(got.to_dict(), TIMING | {"warning"}) == without(want, TIMING | {"warning"})
    assert got.mappings.layers[0]["name"] == want["mappings"]["layers"][0]["name"]
    # _sparsemap has no libtorch: the section says so, as `sparsemap report` built without it.
    assert "without libtorch" in got.nongemm.measured.why_absent
    assert {s["label"] for s in steps} == {"mappings", "codesign"}


def test_report_refuses_bad_input_with_the_clis_line(tmp_path):
    missing = tmp_path / "missing" / "x.html"
    for kw, flags in [({"out": missing}, ["--out", str(missing)]),
                      ({"spmm_formats": "bogus"}, ["--spmm-formats", "bogus"]),
                      ({"profile_iters": 0}, ["--profile-iters", "0"])]:
        line = cli_error("report", "--model", "resnet18", "--hw", "maestro-example",
                         "--no-profile", *flags)
        with pytest.raises(ValueError) as e:
            sm.report("resnet18", "maestro-example", no_profile=True, **kw)
        assert str(e.value) == line
    with pytest.raises(ValueError, match="no-such-hw"):
        sm.report("resnet18", "no-such-hw", out=tmp_path / "x.html", no_profile=True)
    assert not (tmp_path / "x.html").exists()


def test_report_profiles_nongemm_in_ml(tmp_path):
    """With a profile asked for, sparsemap.report runs in sparsemap._ml and measures the model
    in libtorch."""
    if not HAVE_ML:
        pytest.skip("sparsemap._ml (libtorch) not built")
    got = sm.report("resnet50", "maestro-example", out=tmp_path / "r50.html", profile_iters=1,
                    budget=10, codesign_budget=8, spmm_shapes=0)
    m = got.nongemm.measured
    assert m.available and 0 < m.gemm_ms < m.total_ms and m.runs == 1
    assert "CPU, measured" in (tmp_path / "r50.html").read_text(encoding="utf-8")
    # A model outside the NonGEMM Bench suite is not profiled: the section says why.
    other = sm.report("ncf", "maestro-example", out=tmp_path / "ncf.html", profile_iters=1,
                      **REPORT_TINY)
    assert "not a model of the NonGEMM Bench suite" in other.nongemm.measured.why_absent


def shape(x):
    """The JSON's structure: keys (recursively) and value types, without the values."""
    if isinstance(x, dict):
        return {k: shape(v) for k, v in x.items()}
    if isinstance(x, list):
        return [shape(x[0])] if x else []
    return "number" if isinstance(x, (int, float)) and not isinstance(x, bool) else type(x).__name__


def test_nongemm_in_ml_has_the_clis_structure(tmp_path):
    if not HAVE_ML:
        with pytest.raises(ValueError, match="needs libtorch"):
            sm.nongemm("resnet50", tiny=True)
        return
    flags = {"tiny": True, "threads": 1, "iters": 1, "schedule": [0, 0, 0]}
    got = sm.nongemm("resnet50", plot=tmp_path / "groups.svg", **flags)
    assert isinstance(got, sm.NongemmResult)
    want = cli_json(tmp_path, "nongemm", "--model", "resnet50", "--tiny", "--threads", "1",
                    "--iters", "1", "--schedule", "0,0,0")
    assert shape(got.to_dict()) == shape(want)
    for key in ["model", "batch", "image", "schedule", "threads", "tiny", "seed", "iters",
                "statistic", "reuse_memory"]:
        assert got[key] == want[key], key
    assert sorted(o["name"] for o in got.ops) == sorted(o["name"] for o in want["ops"])
    assert (tmp_path / "groups.svg.csv").exists()
    assert not sm.nongemm("resnet50", reuse_memory=False, **flags).reuse_memory
    for kw, args in [({}, []), ({"schedule": "a,b,c"}, ["--model", "gpt2", "--schedule", "a,b,c"]),
                     ({"gemm_speedup": 0}, ["--model", "gpt2", "--gemm-speedup", "0"])]:
        r = subprocess.run([str(CLI), "nongemm", *args], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 2
        with pytest.raises(ValueError) as e:
            sm.nongemm("gpt2" if args else None, **kw)
        assert str(e.value) == r.stderr.splitlines()[0].removeprefix("sparsemap: ")


def test_training_functions_run_in_ml_and_equal_the_cli(tmp_path):
    """train and fuse_train call ml::train::run / ml::fusion::run in sparsemap._ml."""
    try:
        import sparsemap._ml  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="needs libtorch"):
            sm.train(data="synthetic", quick=True, steps=1)
        return
    kw = dict(data="synthetic", quick=True, steps=4, batch=16, train_limit=256, test_limit=64,
              threads=1, eval_every=2, seed=3)
    steps = []
    got = sm.train(progress=steps.append, **kw)
    assert isinstance(got, sm.TrainResult) and steps
    flags = [x for k, v in kw.items() for x in (
        [f"--{k.replace('_', '-')}"] if v is True else [f"--{k.replace('_', '-')}", str(v)])]
    times = TIMING | {"elapsed_s", "train_s", "total_s", "eval_s"}
    assert without(got.to_dict(), times) == without(cli_json(tmp_path, "train", *flags), times)
    out = tmp_path / "fuser.pt"
    fused = sm.fuse_train(models="synth:1", draws=1, search_budget=40, epochs=1, threads=1,
                          out=str(out))
    assert out.exists() and isinstance(fused, sm.TrainResult)
    with pytest.raises(ValueError, match="--expert"):
        sm.fuse_train(expert="foo", out=str(out))
