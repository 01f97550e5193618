"""examples/python_tour.py runs end to end with tiny settings (in a temporary folder it
removes), writes its CSV, and its plot when matplotlib is installed."""
import importlib.util
import os
import pathlib
import subprocess
import sys
import tempfile

import sparsemap

SOURCE = pathlib.Path(os.environ.get("SPARSEMAP_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))


def test_python_tour_runs():
    # The package this test imported, whatever the working folder.
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(sparsemap.__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory(prefix="sparsemap-tour-") as tmp:
        out = pathlib.Path(tmp) / "out"
        r = subprocess.run(
            [sys.executable, str(SOURCE / "examples/python_tour.py"), "--budget", "20", "--n",
             "16", "--out", str(out)],
            cwd=tmp, env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.rstrip().endswith("done")
        assert "csr.data views the C++ buffer: True" in r.stdout
        assert "nm:2:4            sparsity 0.500" in r.stdout
        rows = (out / "layers.csv").read_text().splitlines()
        assert rows[0] == "name,runtime_cycles,energy_nj,pe_utilization_pct"
        assert len(rows) == 1 + 21  # resnet18's 21 GEMM-class layers
        has_mpl = importlib.util.find_spec("matplotlib") is not None
        assert (out / "layers.png").exists() == has_mpl
    assert not pathlib.Path(tmp).exists()
