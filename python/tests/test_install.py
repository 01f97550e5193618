"""`cmake --install` puts an importable package below the prefix."""
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
