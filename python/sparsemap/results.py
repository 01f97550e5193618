"""Typed results of the system functions (map_model, codesign, fuse, attention, schedule, hwalloc,
report, nongemm, mse, eval_model, sparse_price): each is the CLI's JSON for the same call
(`sparsemap <command> ... --json`), readable as attributes (`r.total.runtime_cycles`) and as a
dict (`r["total"]["runtime_cycles"]`), with to_dict() giving plain dicts and lists equal to what
the CLI writes. The field names are the JSON's keys (docs/python.md lists them per function); a
key that is not an identifier ("fixed-gamma") is read with [].
"""
import functools


class Record(dict):
    """One JSON object as a dict whose keys are also attributes; nested objects are Records."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r} "
                                 f"(fields: {', '.join(self)})") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | {k for k in self if k.isidentifier()})

    def to_dict(self):
        """The CLI's JSON as plain dicts and lists (a deep copy)."""
        return _plain(self)

    @classmethod
    def from_json(cls, value):
        return cls({k: _typed(v) for k, v in value.items()})


class Records(list):
    """A JSON array of objects (fuse with several methods: one object per method)."""

    __slots__ = ()

    def to_dict(self):
        """The CLI's JSON: a list of plain dicts."""
        return _plain(self)


def _typed(value):
    if isinstance(value, dict):
        return Record.from_json(value)
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return value


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class MapResult(Record):
    """map_model: settings, `layers` (one per mapped layer: best mapping, cycles, energy, PEs),
    `total`, and with compare_dataflows the templates' totals; on a Timeloop architecture,
    `layers` and `total` with lower bounds and the optimised `metrics`."""


class CodesignResult(Record):
    """codesign: the co-designed accelerator and its mappings beside the baselines (`cases` and
    `table` with table=True); on a Timeloop template, `template` and `best` designs."""


class FuseResult(Record):
    """fuse: one method's fusion mapping (`groups`), its cost and the speedup over no fusion."""


class AttentionResult(Record):
    """attention: per sequence length FLAT's chosen configuration beside the unfused baseline
    (`rows`), or with table=True every case and the `summary` beside FLAT's figures."""


class ScheduleResult(Record):
    """schedule: each algorithm's makespan and evaluations, the heuristics, and the best
    schedule of the first algorithm."""


class HwallocResult(Record):
    """hwalloc: per layer the PEs and buffer level assigned, the totals against the budget, and
    each method's search statistics."""


class ReportResult(Record):
    """report: the page's data (the HTML is written to out=): the model and accelerator,
    `mappings` (per-layer best mappings), `codesign` (the Pareto front), `nongemm` (the static
    breakdown and, when profiled in libtorch, the `measured` one) and `spmm` (the measured
    speedups)."""


class NongemmResult(Record):
    """nongemm: one model's operator profile (`groups`, `ops`, gemm_pct, nongemm_pct, the
    horizons), or with all=True the suite's (`models`)."""


class MseResult(Record):
    """mse: the distinct `layers` studied with the best any method found, and per algorithm and
    budget (`results`) the geomean of best / best found, the samples to within 5% and the wall
    time per seed."""


class EvalResult(Record):
    """eval_model: per layer its cost under the dataflow (`layers`) and the `total`, or with
    several dataflows one such object per dataflow (`evaluations`); with timeloop=, the loop-nest
    model's result (cycles, energy_pj, levels, ...)."""


class PruneStudyResult(Record):
    """prune_study: per shape, sparsity and pruning (unstructured, or column vectors of each V)
    the kernel's time against OpenBLAS sgemm and its reconstruction error (`results`), and per
    sparsity the geomean speedups, the best V and the adaptive picks (`summary`)."""


class SpmmBenchResult(Record):
    """spmm_bench: per shape the dense sgemm figures (`dense`), per shape, format and target
    sparsity the kernel's time, speedup, footprint and error (`results`), and per format the
    geomean speedups and the break-even sparsity (`summary`)."""


class SparsePriceResult(Record):
    """sparse_price: per GEMM-class layer (`layers`) the pruned weights' density and the dense
    and sparse Sparseloop prices of the same mapping (cycles, energy_pj, computes), their
    `speedup` and `energy_ratio`, with spmm=True the measured SpMM; and the `total`."""


def returning(cls):
    """Wraps a function returning the CLI's JSON (a dict, or a list of dicts) to return `cls`
    (a Records list of `cls` for a list)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            value = fn(*args, **kwargs)
            if isinstance(value, list):
                return Records(cls.from_json(v) if isinstance(v, dict) else v for v in value)
            return cls.from_json(value)
        call.__doc__ = (fn.__doc__ or "") + f"\n\nReturns a {cls.__name__} (sparsemap.results)."
        return call
    return wrap


class TrainResult(Record):
    """train (and each cell of nm_study, fuse_train): the settings, the evaluations along the
    run and the final accuracy / loss; nm_study: every cell's; fuse_train: the trajectories,
    the training loss and the model written."""


class PruneTrainResult(Record):
    """prune_train: the settings, the final test accuracy and sparsities, each parameter's
    (`layers`), the epochs (`history`) and, with export=, each weight in each format (`export`)."""


class PruneCompareResult(Record):
    """prune_compare: the shared settings and one training run per algorithm (`results`, each
    as prune_train's without command, data and seed)."""


class PruneOverheadResult(Record):
    """prune_overhead: the settings, OpenBLAS's kernel and per algorithm the dense and sparse
    step times, the hooks' and mask updates' shares (`rows`)."""
