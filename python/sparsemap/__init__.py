"""sparsemap: hardware-aware DNN sparsity and accelerator co-design, from Python.

The compiled module (_sparsemap) does the work; this package re-exports it.
"""
from ._sparsemap import *  # noqa: F401,F403
from ._sparsemap import __version__  # noqa: F401
