"""hwalloc, report, nongemm, train, nm_study and fuse_train read their keywords through their
system's option table (the one the CLI registers its flags from): the docstring lists the
table's rows with the CLI's defaults and help, and a keyword is converted and refused as the
CLI converts and refuses its flag (the CLI's first error line)."""
import importlib.util

import pytest

import sparsemap as sm

from cli_support import SOURCE
from cli_support import cli_error as cli_line
HAVE_ML = importlib.util.find_spec("sparsemap._ml") is not None
HWALLOC_MODEL = str(SOURCE / "tests/data/confuciux/models/resnet18.csv")


def test_docstrings_list_the_tables_rows_with_the_clis_defaults():
    doc = sm._sparsemap.hwalloc.__doc__
    assert ("  budget (int, default 10000): cost-model calls, counted as --budget-counts says "
            "(every method spends it)\n") in doc
    assert "  fraction (float, default -1.0): constraint fraction in [0,1] (overrides " in doc
    assert "  budget_counts (str, default 'lookups'): lookups (every cost-model lookup" in doc
    # The CLI's own rows (--json, --plot, --quiet) are not keywords of the table.
    assert "  json (" not in doc and "  quiet (" not in doc and "  plot (" not in doc
    doc = sm._sparsemap.report.__doc__
    assert "  spmm_min_ms (float, default 4.0): Minimum timed ms per measurement\n" in doc
    assert "  no_profile (bool, default False): NonGEMM: skip the libtorch profile\n" in doc
    assert "  image (int, default " in doc  # the zoo rows, last as in `report --help`
    assert doc.index("  profile_iters (") < doc.index("  batch (") < doc.index("  image (")


def test_int_keywords_are_refused_as_the_cli_refuses_them(tmp_path):
    # An int flag out of int's range: CLI11 refuses it (it used to wrap to 0 here).
    line = cli_line("report", "--model", "resnet18", "--hw", "maestro-example", "--no-profile",
                    "--threads", str(2**32))
    assert line == f"Could not convert: --threads = {2**32}"
    with pytest.raises(ValueError) as e:
        sm.report("resnet18", "maestro-example", out=tmp_path / "x.html", no_profile=True,
                  threads=2**32)
    assert str(e.value) == line
    assert not (tmp_path / "x.html").exists()
    line = cli_line("hwalloc", "--model", HWALLOC_MODEL, "--budget", "1.5")
    with pytest.raises(ValueError) as e:
        sm.hwalloc(HWALLOC_MODEL, method="ga", budget=1.5)
    assert str(e.value) == line == "Could not convert: --budget = 1.5"


@pytest.mark.skipif(not HAVE_ML, reason="sparsemap._ml (libtorch) not built")
def test_ml_docstrings_list_their_tables():
    import sparsemap._ml as ml
    assert "  lambda (float, default 0.0002): SR-STE lambda_W\n" in ml.train.__doc__
    assert "  seeds (int, default 2): Seeds per cell (1 with --quick)\n" in ml.nm_study.__doc__
    assert ("  out (str, default None): the trained model, FILE.pt (the plain weights go to "
            "FILE.bin)\n") in ml.fuse_train.__doc__
    doc = ml.nongemm.__doc__
    assert "  schedule (list, default 1,2,2): SKIP,WAIT,WARMUP runs before the active " in doc
    assert "  reuse_memory (bool, default True): On by default: keep freed memory" in doc


@pytest.mark.skipif(not HAVE_ML, reason="sparsemap._ml (libtorch) not built")
def test_nongemm_lists_replace_the_default_and_fail_whole():
    got = sm.nongemm("resnet50", tiny=True, threads=1, iters=1, schedule=[0, 1, 0],
                     no_reuse_memory=True)
    # The default 1,2,2 is replaced, not extended.
    assert got["schedule"] == {"skip": 0, "wait": 1, "warmup": 0, "active": 1}
    assert got["reuse_memory"] is False
    for kw, flags in [({"gemm_speedup": "10,x"}, ["--gemm-speedup", "10,x"]),
                      ({"schedule": [1, 2.5, 0]}, ["--schedule", "1,2.5,0"]),
                      # CLI11 drops empty items: two counts (run's line), and 1,x below.
                      ({"schedule": "1,,2"}, ["--schedule", "1,,2"]),
                      ({"schedule": "1,,x"}, ["--schedule", "1,,x"])]:
        line = cli_line("nongemm", "--model", "gpt2", *flags)
        with pytest.raises(ValueError) as e:
            sm.nongemm("gpt2", **kw)
        assert str(e.value) == line
    assert line == "Could not convert: --schedule = 1,x"


@pytest.mark.skipif(not HAVE_ML, reason="sparsemap._ml (libtorch) not built")
def test_training_keywords_are_refused_as_the_cli_refuses_them():
    for fn, command, flag, value in [(sm.train, "train", "epochs", str(2**31)),
                                     (sm.nm_study, "nm-study", "seeds", "two"),
                                     (sm.fuse_train, "fuse-train", "lr", "fast")]:
        extra = ["--out", "x.pt"] if command == "fuse-train" else []
        line = cli_line(command, "--" + flag, value, *extra)
        assert line == f"Could not convert: --{flag} = {value}"
        with pytest.raises(ValueError) as e:
            fn(**{flag: value}, **({"out": "x.pt"} if extra else {}))
        assert str(e.value) == line
