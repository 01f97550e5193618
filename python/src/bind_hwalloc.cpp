// sparsemap.hwalloc: dse::hwalloc::run called directly (no CLI parsing, no captured output),
// with the GIL released while it runs; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags (keywords.h). Compiled into both extension modules:
// `_sparsemap` binds it without the RL methods, `_ml` (python/src/ml/module.cpp, linked with
// libtorch) with ml::hwalloc::rl_method().
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/hwalloc/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace hw = dse::hwalloc;

void bind_hwalloc_with(py::module_& m, const std::string& how, dse::hwalloc::RlMethod rl) {
  const std::string methods =
      rl ? " Every method runs here, the RL ones (confuciux, rl, a2c) with libtorch."
         : " The RL methods (confuciux, rl, a2c) need libtorch: sparsemap.hwalloc runs them in "
           "sparsemap._ml, the extension built with it (imported only for them); without it "
           "they raise ValueError. ga, sa, bo and random run here.";
  m.def(
      "hwalloc",
      [rl](py::object model, py::kwargs kw) -> py::object {
        hw::Options o;
        if (model.is_none()) throw py::value_error("--model is required");  // CLI11's line
        read_model_argument(model, o.model, o.model_object);
        read_options(kw, hw::option_table(), o, {"progress", "plot"});
        const std::string plot =
            kw.contains("plot") && !kw["plot"].is_none() ? fspath(kw["plot"]) : "";
        hw::check_options(o, "", plot);
        o.rl = rl;
        const hw::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return hw::run(o, obs); });
        if (!plot.empty()) hw::write_plot(r, plot);
        return json_object(hw::to_json(r));
      },
      "model"_a,
      ("`sparsemap hwalloc`: ConfuciuX's per-layer PEs and buffers." + methods + how +
       " plot= writes the convergence plot (.png or .svg) as --plot does. progress= (a "
       "callable) is called with a dict (item, items, done, total, best, label) after each RL "
       "episode, GA generation or baseline design (label says which and item counts them; "
       "done of total are the budgeted calls); Ctrl-C stops the run (KeyboardInterrupt)." +
       describe_options(hw::option_table()))
          .c_str());
}

void bind_hwalloc(py::module_& m, const std::string& how) { bind_hwalloc_with(m, how, nullptr); }

}  // namespace sparsemap::python
