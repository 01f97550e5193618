// sparsemap.schedule: dse::schedule::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON
// (and writes the plot when plot= names one). Keywords are the command's flags (keywords.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/schedule/run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace sc = dse::schedule;

void bind_schedule(py::module_& m, const std::string& how) {
  m.def(
      "schedule",
      [](py::kwargs kw) -> py::object {
        const sc::Result r = run_with_options(kw, sc::option_table(), sc::Options(), sc::run);
        sc::write_plot(r);
        return json_object(sc::to_json(r));
      },
      ("`sparsemap schedule`: G# multi-tenant scheduling (jobs=, platform=, job_table=, "
       "algo=)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each generation of G# and MAGMA's GA; Ctrl-C stops it (KeyboardInterrupt)." +

       describe_options(sc::option_table()))
          .c_str());
}

}  // namespace sparsemap::python
