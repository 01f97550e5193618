"""sparsemap: hardware-aware DNN sparsity and accelerator co-design, from Python.

The compiled module (_sparsemap) does the work; this package re-exports it. See docs/python.md.
"""
from ._sparsemap import *  # noqa: F401,F403
from ._sparsemap import __version__  # noqa: F401
from . import spaces  # noqa: F401
from .spaces import Box, Discrete  # noqa: F401

from . import _sparsemap as _core

# hwalloc's methods that need libtorch: they run in sparsemap._ml (the extension linked with
# libtorch, built only where libtorch is), imported here only when one of them is asked for, so
# that `import sparsemap` never loads libtorch.
_LIBTORCH_METHODS = {"confuciux", "rl", "a2c"}


def _needs_libtorch(method):
    if method is None or method is False:
        method = "confuciux"  # the default
    names = method if isinstance(method, (list, tuple)) else str(method).split(",")
    return any(str(m).strip() in _LIBTORCH_METHODS for m in names)


def hwalloc(model, **kwargs):
    if _needs_libtorch(kwargs.get("method")):
        try:
            from . import _ml
        except ImportError:  # not built: the module without libtorch says so (ValueError)
            pass
        else:
            return _ml.hwalloc(model, **kwargs)
    return _core.hwalloc(model, **kwargs)


hwalloc.__doc__ = _core.hwalloc.__doc__
