"""The built CLI as the tests' reference: where the trees are, running `sparsemap` (a test is
skipped where it is not built), its --json and its one-line errors, and dropping timing keys."""
import json
import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("SPARSEMAP_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(os.environ.get("SPARSEMAP_BUILD_DIR", SOURCE / "build"))
CLI = BUILD / "sparsemap"


def run_cli(*args, timeout=120):
    """`sparsemap ARGS` run in the source tree: the CompletedProcess (text output)."""
    if not CLI.exists():
        pytest.skip(f"no CLI at {CLI} (set SPARSEMAP_BUILD_DIR)")
    return subprocess.run([str(CLI), *map(str, args)], cwd=SOURCE, capture_output=True,
                          text=True, timeout=timeout)


def cli_json(tmp_path, *args, timeout=120):
    """The JSON `sparsemap ARGS --json FILE` writes (it must exit 0)."""
    out = tmp_path / "cli.json"
    r = run_cli(*args, "--json", out, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads(out.read_text())


def cli_error(*args, one_line=False):
    """The first line `sparsemap ARGS` prints when it refuses them (exit 2), without its
    "sparsemap: " prefix; one_line: it must print only that line."""
    r = run_cli(*args, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines and (len(lines) == 1 or not one_line), r.stderr
    return lines[0].removeprefix("sparsemap: ")


def without(x, keys):
    """`x` with the dict keys in `keys` dropped at every depth."""
    if isinstance(x, dict):
        return {k: without(v, keys) for k, v in x.items() if k not in keys}
    if isinstance(x, list):
        return [without(v, keys) for v in x]
    return x
