"""sparsemap: hardware-aware DNN sparsity and accelerator co-design, from Python.

The compiled module (_sparsemap) does the work; this package re-exports it, and the system
functions return typed results (sparsemap.results). See docs/python.md.
"""
from ._sparsemap import *  # noqa: F401,F403
from ._sparsemap import __version__  # noqa: F401
from . import _sparsemap
from . import results, spaces  # noqa: F401
from .results import (AttentionResult, CodesignResult, EvalResult, FuseResult,  # noqa: F401
                      HwallocResult, MapResult, MseResult, NongemmResult, Record, Records,
                      ReportResult, ScheduleResult, SparsePriceResult, TrainResult)
from .results import (PruneCompareResult, PruneOverheadResult, PruneStudyResult,  # noqa: F401
                      PruneTrainResult, SpmmBenchResult)
from .spaces import Box, Discrete  # noqa: F401

map_model = results.returning(MapResult)(_sparsemap.map_model)
codesign = results.returning(CodesignResult)(_sparsemap.codesign)
fuse = results.returning(FuseResult)(_sparsemap.fuse)
attention = results.returning(AttentionResult)(_sparsemap.attention)
schedule = results.returning(ScheduleResult)(_sparsemap.schedule)
mse = results.returning(MseResult)(_sparsemap.mse)
eval_model = results.returning(EvalResult)(_sparsemap.eval_model)
timeloop = results.returning(EvalResult)(_sparsemap.timeloop)
prune_study = results.returning(PruneStudyResult)(_sparsemap.prune_study)
spmm_bench = results.returning(SpmmBenchResult)(_sparsemap.spmm_bench)
sparse_price = results.returning(SparsePriceResult)(_sparsemap.sparse_price)

# hwalloc's methods that need libtorch: they run in sparsemap._ml (the extension linked with
# libtorch, built only where libtorch is), imported here only when one of them is asked for, so
# that `import sparsemap` never loads libtorch.
_LIBTORCH_METHODS = {"confuciux", "rl", "a2c"}


def _needs_libtorch(method):
    if method is None or method is False:
        method = "confuciux"  # the default
    names = method if isinstance(method, (list, tuple)) else str(method).split(",")
    return any(str(m).strip() in _LIBTORCH_METHODS for m in names)


@results.returning(HwallocResult)
def hwalloc(model, **kwargs):
    if _needs_libtorch(kwargs.get("method")):
        try:
            from . import _ml
        except ImportError:  # not built: the module without libtorch says so (ValueError)
            pass
        else:
            return _ml.hwalloc(model, **kwargs)
    return _sparsemap.hwalloc(model, **kwargs)



hwalloc.__doc__ = (_sparsemap.hwalloc.__doc__ or "") + (
    "\n\nThe RL methods run in sparsemap._ml (loaded at their first use). Returns a "
    "HwallocResult (sparsemap.results).")


@results.returning(ReportResult)
def report(model, hw, **kwargs):
    # The NonGEMM profile runs the model in libtorch: in sparsemap._ml when it is built; without
    # it (or with no_profile=True) the section says this build has no libtorch, as `sparsemap
    # report` built without libtorch does.
    if not kwargs.get("no_profile"):
        try:
            from . import _ml
        except ImportError:
            pass
        else:
            return _ml.report(model, hw, **kwargs)
    return _sparsemap.report(model, hw, **kwargs)


report.__doc__ = (_sparsemap.report.__doc__ or "") + (
    "\n\nWith a profile asked for, runs in sparsemap._ml (loaded at its first use). Returns a "
    "ReportResult (sparsemap.results).")


@results.returning(NongemmResult)
def nongemm(model=None, **kwargs):
    """`sparsemap nongemm --model MODEL` (or all=True for the suite): NonGEMM Bench, the GEMM vs
    NonGEMM operator time of a model run in libtorch, by taxonomy group, and its horizon on
    faster GEMMs (gemm_speedup=) or an accelerator (hw=). Keyword arguments are the command's
    flags (reuse_memory=False for --no-reuse-memory); trace= and plot= write the files --trace
    and --plot write. Runs in sparsemap._ml (libtorch, loaded at its first use); ValueError when
    it is not built."""
    try:
        from . import _ml
    except ImportError:
        raise ValueError("sparsemap.nongemm needs libtorch: this sparsemap was built without "
                         "sparsemap._ml (SPARSEMAP_WITH_TORCH=OFF)") from None
    return _ml.nongemm(model, **kwargs)


nongemm.__doc__ += _sparsemap._ml_keywords("nongemm")


def _in_ml(name, result=TrainResult):
    """sparsemap.NAME, which trains in libtorch: sparsemap._ml's, loaded at its first call,
    returning a `result` (sparsemap.results)."""
    @results.returning(result)
    def call(**kwargs):
        try:
            from . import _ml
        except ImportError:
            raise ValueError(f"sparsemap.{name} needs libtorch: this sparsemap was built without "
                             "sparsemap._ml (SPARSEMAP_WITH_TORCH=OFF)") from None
        return getattr(_ml, name)(**kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"`sparsemap {name.replace('_', '-')}` (runs in sparsemap._ml, loaded at its "
                    "first call); keyword arguments are the command's flags."
                    + _sparsemap._ml_keywords(name))
    return call


train = _in_ml("train")
nm_study = _in_ml("nm_study")
fuse_train = _in_ml("fuse_train")
prune_train = _in_ml("prune_train", PruneTrainResult)
prune_compare = _in_ml("prune_compare", PruneCompareResult)
prune_overhead = _in_ml("prune_overhead", PruneOverheadResult)
