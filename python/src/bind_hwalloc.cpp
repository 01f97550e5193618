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

namespace {

namespace hw = dse::hwalloc;

#define SM_TEXT(flag, field) SM_KW_TEXT(hw::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(hw::Options, flag, field, conv)

// `sparsemap hwalloc`'s flags (apps/cmd_hwalloc.cpp) as keywords (model is the positional
// argument; plot= is read by the caller: it names a file written after the run).
const std::vector<Keyword<hw::Options>>& hwalloc_keywords() {
  static const std::vector<Keyword<hw::Options>> table = {
      SM_TEXT("--dataflow", dataflow),
      SM_TEXT("--platform", platform),
      SM_NUM("--fraction", fraction, to_double),
      SM_TEXT("--constraint", constraint),
      SM_TEXT("--objective", objective),
      SM_TEXT("--deployment", deployment),
      SM_TEXT("--edges", edges),
      SM_TEXT("--method", method),
      SM_NUM("--budget", budget, to_int64),
      SM_TEXT("--budget-counts", budget_counts),
      SM_NUM("--seed", seed, to_seed),
      SM_NUM("--rl-fraction", rl_fraction, to_double),
      SM_NUM("--episodes", episodes, to_int64),
      SM_NUM("--max-designs", max_designs, to_int64),
      SM_NUM("--rl-stall", rl_stall, to_int64),
      SM_NUM("--stall", stall, to_int64),
      SM_TEXT("--checkpoint", checkpoint),
      SM_NUM("--checkpoint-every", checkpoint_every, to_int64),
      SM_TEXT("--resume", resume),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM

}  // namespace

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
        read_keywords(kw, hwalloc_keywords(), o, {"progress", "plot"});
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
       "done of total are the budgeted calls); Ctrl-C stops the run (KeyboardInterrupt).")
          .c_str());
}

void bind_hwalloc(py::module_& m, const std::string& how) { bind_hwalloc_with(m, how, nullptr); }

}  // namespace sparsemap::python
