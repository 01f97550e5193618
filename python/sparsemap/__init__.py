"""sparsemap: hardware-aware DNN sparsity and accelerator co-design, from Python.

The compiled module (_sparsemap) does the work; this package re-exports it. See docs/python.md.
"""
from ._sparsemap import *  # noqa: F401,F403
from ._sparsemap import __version__  # noqa: F401
from . import spaces  # noqa: F401
from .spaces import Box, Discrete  # noqa: F401
