// sparsemap.nongemm (NonGEMM Bench): ml::nongemm::run called directly, with the GIL released;
// returns to_json(result) as a dict, the CLI's JSON, and writes the trace= and plot= files as
// --trace and --plot do. In `sparsemap._ml` only (it runs the models in libtorch).
#include <pybind11/stl.h>

#include "../bindings.h"
#include "../keywords.h"
#include "sparsemap/ml/nongemm/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace ng = ml::nongemm;

void bind_nongemm(py::module_& m) {
  m.def(
      "nongemm",
      [](py::object model, py::kwargs kw) -> py::object {
        ng::Options o;
        if (!model.is_none()) o.model = py::str(model);
        // reuse_memory= is read here: False turns off a flag that is on by default (as
        // no_reuse_memory=True, the table's negation, does), which read_options leaves out.
        read_options(kw, ng::option_table(), o, {"progress", "reuse_memory"});
        if (kw.contains("reuse_memory") && !kw["reuse_memory"].is_none())
          o.reuse_memory = PyObject_IsTrue(kw["reuse_memory"].ptr()) == 1;
        const ng::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return ng::run(o, obs); });
        ng::write_trace(r);
        ng::write_plot(r);
        return json_object(ng::to_json(r));
      },
      "model"_a = py::none(),
      ("`sparsemap nongemm --model MODEL` (or all=True for the suite): NonGEMM Bench, the GEMM "
       "vs NonGEMM operator time of a model run in libtorch, by taxonomy group, and its horizon "
       "on faster GEMMs (gemm_speedup=) or an accelerator (hw=). Keyword arguments are the "
       "command's flags (foo_bar=x for --foo-bar x, True for a flag; reuse_memory=False for "
       "--no-reuse-memory); defaults are the CLI's. trace= and plot= write the files --trace "
       "and --plot write. Returns the JSON the CLI writes with --json. progress= (a callable) "
       "is called with a dict (item, items, done, total, best, label) before each model's "
       "profile (label: the model); Ctrl-C stops between models (KeyboardInterrupt)." +
       describe_options(ng::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
