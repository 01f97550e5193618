"""`cmake --install` puts an importable package below the prefix."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import build_dir


def test_installed_package_imports_and_evaluates(tmp_path):
    build = build_dir()
    cmake = shutil.which("cmake")
    if cmake is None or not (build / "CMakeCache.txt").exists():
        pytest.skip("no cmake or no build tree")
    subprocess.run([cmake, "--install", str(build), "--prefix", str(tmp_path), "--component",
                    "python"], check=True, capture_output=True, timeout=120)
    inits = list(tmp_path.rglob("sparsemap/__init__.py"))
    assert len(inits) == 1
    site = inits[0].parent.parent
    assert list(site.glob("sparsemap/_sparsemap*.so"))
    # sparsemap._ml (libtorch), when built, is installed beside it.
    if list((build / "python/sparsemap").glob("_ml*.so")):
        assert list(site.glob("sparsemap/_ml*.so"))
    code = ("import sparsemap as s; l = s.zoo('resnet18').gemm_layers[1]; "
            "hw = s.arch('gamma-edge'); "
            "print(s.__file__); print(s.evaluate(l, hw, s.dataflow('kcp_ws', l, hw)).runtime_cycles)")
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=tmp_path, check=True, timeout=60).stdout.split("\n")
    assert pathlib.Path(out[0]).resolve().is_relative_to(tmp_path.resolve())
    import sparsemap as here
    l = here.zoo("resnet18").gemm_layers[1]
    hw = here.arch("gamma-edge")
    assert int(out[1]) == here.evaluate(l, hw, here.dataflow("kcp_ws", l, hw)).runtime_cycles


def test_installed_cli_and_package_run_without_the_trees(tmp_path):
    """The whole install (CLI, plugins, data, package) runs `fuse --method learned` and `report`
    from a folder of its own: the learned mapper's weights come from PREFIX/share/sparsemap
    (CLI) and from the package's data/ (Python), not from the source or build tree."""
    build = build_dir()
    cmake = shutil.which("cmake")
    if cmake is None or not (build / "CMakeCache.txt").exists():
        pytest.skip("no cmake or no build tree")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", str(build), "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=300)
    cli = prefix / "bin" / "sparsemap"
    assert (prefix / "share/sparsemap/data/dnnfuser/fuser.bin").exists()
    assert list((prefix / "lib/sparsemap").glob("libsparsemap_onnx.so"))
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SPARSEMAP"))}
    fused = subprocess.run([str(cli), "fuse", "--model", "resnet18", "--method", "learned",
                            "--json", "-", "--quiet"], cwd=work, env=env, capture_output=True,
                           text=True, timeout=120)
    assert fused.returncode == 0, fused.stderr
    assert json.loads(fused.stdout)["weights"].startswith(str(prefix))
    page = work / "r.html"
    rep = subprocess.run([str(cli), "report", "--model", "resnet18", "--hw", "maestro-example",
                          "--budget", "20", "--codesign-budget", "20", "--spmm-shapes", "0",
                          "--no-profile", "--out", str(page), "--quiet"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert page.read_text().startswith("<!DOCTYPE html>")
    site = next(prefix.rglob("sparsemap/__init__.py")).parent.parent
    code = ("import sparsemap as s, sys; f = s.fuse('resnet18', method='learned'); "
            "r = s.report('resnet18', 'maestro-example', out=sys.argv[1], no_profile=True, "
            "budget=20, codesign_budget=20, spmm_shapes=0); "
            "print(f.weights); print(r.model)")
    out = subprocess.run([sys.executable, "-c", code, str(work / "p.html")],
                         env=dict(env, PYTHONPATH=str(site)), cwd=work, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    weights, model = out.stdout.split("\n")[:2]
    assert pathlib.Path(weights).resolve().is_relative_to(site.resolve()) and model == "resnet18"
    assert (work / "p.html").read_text().startswith("<!DOCTYPE html>")
