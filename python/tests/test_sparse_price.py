"""sparsemap.sparse_price calls dse::sparse_price::run: its dict equals `sparsemap sparse-price
... --json FILE` for the same seed on a tiny case (no --spmm: nothing timed, every field is
deterministic), and bad keywords raise the CLI's one-line message."""
import json

import pytest

import sparsemap as sm

from cli_support import SOURCE, run_cli

DESIGN = SOURCE / "tests/data/sparseloop/04.2.1-eyeriss-like-gating"


def cli(*args):
    return run_cli("sparse-price", *args, timeout=300)


def test_sparse_price_equals_the_cli(tmp_path):
    out = tmp_path / "cli.json"
    r = cli("--hw", str(DESIGN), "--model", "resnet18", "--prune", "nm:2:4", "--budget", "20",
            "--seed", "3", "--json", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    want = json.loads(out.read_text())
    got = sm.sparse_price("resnet18", hw=DESIGN, prune="nm:2:4", budget=20, seed=3)
    assert isinstance(got, sm.SparsePriceResult)
    assert got.to_dict() == want
    # The JSON says what was asked; every one of resnet18's 21 GEMM-class layers is priced.
    assert got.prune == "nm:2:4" and got.seed == 3 and got.budget == 20
    assert got.total.layers == got.total.priced == 21
    # 2:4 keeps half of each row of 4-groups; conv1's rows (64) hold 3 x 7 x 7 = 147 = 36 x 4 + 3
    # weights, and its last group of 3 keeps 2: 64 x (36 x 2 + 2) = 4736 of 9408.
    conv1, rest = got.layers[0], got.layers[1:]
    assert (conv1.name, conv1.weights, conv1.weight_nonzeros) == ("conv1", 9408, 4736)
    assert all(l.weight_nonzeros * 2 == l.weights for l in rest)
    assert got.total.weight_nonzeros == 4736 + sum(l.weights // 2 for l in rest)
    assert "spmm" not in got.total and all("spmm" not in l for l in got.layers)
    assert got.strict_keep is True
    # free_keep=True is --free-keep: the JSON's strict_keep is its negation.
    free = sm.sparse_price("resnet18", hw=DESIGN, budget=20, seed=3, free_keep=True)
    assert free.strict_keep is False and free.total.layers == 21


@pytest.mark.parametrize("kw, flags", [
    ({"colour": "blue"}, ["--colour", "blue"]),
    ({"prune": "nm:2"}, ["--prune", "nm:2"]),
    ({"budget": "abc"}, ["--budget", "abc"]),
    ({"threads": 2**40}, ["--threads", str(2**40)]),
])
def test_sparse_price_refuses_bad_keywords_with_the_clis_line(kw, flags):
    r = cli("--hw", str(DESIGN), "--model", "resnet18", *flags)
    assert r.returncode == 2
    with pytest.raises(ValueError) as e:
        sm.sparse_price("resnet18", hw=DESIGN, **kw)
    assert str(e.value) == r.stderr.splitlines()[0].removeprefix("sparsemap: ")


def test_sparse_price_needs_hw_and_model():
    for args, call in [(["--model", "resnet18"], lambda: sm.sparse_price("resnet18")),
                       (["--hw", str(DESIGN)], lambda: sm.sparse_price(hw=DESIGN))]:
        r = cli(*args)
        assert r.returncode != 0
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == r.stderr.splitlines()[0]
    with pytest.raises(ValueError, match="json"):
        sm.sparse_price("resnet18", hw=DESIGN, json="-")
