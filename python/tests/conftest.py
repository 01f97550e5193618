"""Shared fixtures: the built CLI (to compute expectations) and small inputs."""
import os
import pathlib
import subprocess

import pytest

import sparsemap

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


def build_dir():
    """The build tree: $SPARSEMAP_BUILD_DIR, else two levels above the imported module."""
    env = os.environ.get("SPARSEMAP_BUILD_DIR")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(sparsemap.__file__).resolve().parents[2]


def cli_path():
    return build_dir() / "sparsemap"


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI with an argument list; returns (returncode, stdout, stderr)."""
    exe = cli_path()
    if not exe.exists():
        pytest.skip(f"the CLI is not built at {exe}")

    def run(*args):
        p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                           timeout=60)
        return p.returncode, p.stdout, p.stderr

    return run


def cli_error(stderr):
    """The one line the CLI prints for an InputError, without its 'sparsemap: ' prefix."""
    line = stderr.strip().splitlines()[-1]
    return line[len("sparsemap: "):] if line.startswith("sparsemap: ") else line
