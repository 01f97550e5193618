// sparsemap.prune_study and sparsemap.spmm_bench: measure::prune_study::run and
// measure::spmm_bench::run called directly (no CLI parsing, no captured output), with the GIL
// released while they time the kernels; each returns to_json(result) as a dict, the CLI's JSON
// (prune_study also writes the plot when plot= names one). Keywords are the commands' flags
// (keywords.h). Before timing, each warns (UserWarning) of OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
// set and of a busy machine, as the CLI does on stderr.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/measure/prune_study.h"
#include "sparsemap/measure/spmm_bench_run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace ps = measure::prune_study;
namespace sb = measure::spmm_bench;

void bind_measure(py::module_& m, const std::string& how) {
  m.def(
      "prune_study",
      [](py::kwargs kw) -> py::object {
        ps::Options o;
        read_options(kw, ps::option_table(), o, {"progress"});
        const ps::Plan plan = ps::plan(o);  // bad options refused before the warnings
        warn_timing_environment("prune-study");
        const ps::Result r = run_released(
            progress_argument(kw), [&plan](search::Observer& obs) { return ps::run(plan, obs); });
        ps::write_plot(r);
        return json_object(ps::to_json(r));
      },
      ("`sparsemap prune-study`: column-vector pruning (each V) against unstructured pruning, "
       "timed against OpenBLAS sgemm per shape and sparsity (shapes=, v=, sparsity=)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each shape; Ctrl-C stops it between shapes (KeyboardInterrupt)." +
       describe_options(ps::option_table()))
          .c_str());
  m.def(
      "spmm_bench",
      [](py::kwargs kw) -> py::object {
        sb::Options o;
        read_options(kw, sb::option_table(), o, {"progress"});
        const sb::Plan plan = sb::plan(o);  // bad options refused before the warnings
        warn_timing_environment("spmm-bench");
        const sb::Result r = run_released(
            progress_argument(kw), [&plan](search::Observer& obs) { return sb::run(plan, obs); });
        return json_object(sb::to_json(r));
      },
      ("`sparsemap spmm-bench`: the sparse kernels timed against OpenBLAS sgemm (shapes=, "
       "formats=, sparsity=)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "before each measurement; Ctrl-C stops it between shapes (KeyboardInterrupt). detail= "
       "changes nothing (it only prints)." +
       describe_options(sb::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
