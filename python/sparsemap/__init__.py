"""sparsemap: hardware-aware DNN sparsity and accelerator co-design, from Python.

The compiled module (_sparsemap) does the work; this package re-exports it, and the system
functions return typed results (sparsemap.results). See docs/python.md.
"""
from ._sparsemap import *  # noqa: F401,F403
from ._sparsemap import __version__  # noqa: F401
from . import _sparsemap
from . import results, spaces  # noqa: F401
from .results import (AttentionResult, CodesignResult, FuseResult, HwallocResult,  # noqa: F401
                      MapResult, Record, Records, ScheduleResult)
from .spaces import Box, Discrete  # noqa: F401

map_model = results.returning(MapResult)(_sparsemap.map_model)
codesign = results.returning(CodesignResult)(_sparsemap.codesign)
fuse = results.returning(FuseResult)(_sparsemap.fuse)
attention = results.returning(AttentionResult)(_sparsemap.attention)
schedule = results.returning(ScheduleResult)(_sparsemap.schedule)
hwalloc = results.returning(HwallocResult)(_sparsemap.hwalloc)
