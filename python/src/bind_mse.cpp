// sparsemap.mse: dse::mse::run called directly (no CLI parsing, no captured output), with the
// GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON. Keywords
// are the command's flags (keywords.h), read with the CLI's conversions and errors; csv= and
// plot= write their files as the CLI does.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/mse/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace ms = dse::mse;

void bind_mse(py::module_& m, const std::string& how) {
  m.def(
      "mse",
      [](py::object models, py::object hw, py::object algos, py::object budgets, py::object seeds,
         py::kwargs kw) -> py::object {
        kw["models"] = models;
        kw["hw"] = hw;
        kw["algos"] = algos;
        kw["budgets"] = budgets;
        kw["seeds"] = seeds;
        ms::Options o;
        read_options(kw, ms::option_table(), o, {"progress"});
        const ms::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return ms::run(o, obs); });
        ms::write_outputs(r);
        return json_object(ms::to_json(r));
      },
      "models"_a = py::none(), "hw"_a = py::none(), "algos"_a = py::none(),
      "budgets"_a = py::none(), "seeds"_a = py::none(),
      ("`sparsemap mse`: the map-space-exploration study, every algorithm (algos=) at every "
       "budget (budgets=) and seed (seeds=) on the distinct layers of the models (models=, zoo "
       "names or files, a list or a comma list), with the CLI's defaults (a long study: give "
       "smaller ones)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "as each run starts (done 0, label 'ALGO budget B seed S') and after each batch of its "
       "evaluations; Ctrl-C stops the study (KeyboardInterrupt)." +
       describe_options(ms::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
