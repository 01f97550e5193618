// sparsemap.report: report::run called directly (no CLI parsing, no captured output), with the
// GIL released while it runs; writes the HTML page (out=) and returns to_json(result) as a
// dict, the CLI's JSON. Keywords are the command's flags (keywords.h). Compiled into both
// extension modules: `_sparsemap` binds it without the NonGEMM profile (the section says this
// build has no libtorch, as `sparsemap report` built without it does), `_ml`
// (python/src/ml/module.cpp, linked with libtorch) with ml::nongemm::report_profiler().
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/report/run.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

void bind_report_with(py::module_& m, const std::string& how, report::NonGemmProfiler profiler) {
  const std::string profile =
      profiler ? " The NonGEMM section is measured here, in libtorch (unless no_profile=True)."
               : " The NonGEMM section's measured part needs libtorch: sparsemap.report runs it "
                 "in sparsemap._ml, the extension built with it (imported only for it); here, and "
                 "with no_profile=True, the section says this build has no libtorch, as "
                 "`sparsemap report` built without it does.";
  m.def(
      "report",
      [profiler](py::object model, py::object hw, py::kwargs kw) -> py::object {
        report::Options o;
        if (model.is_none()) throw py::value_error("--model is required");  // CLI11's line
        if (hw.is_none()) throw py::value_error("--hw is required");
        read_model_argument(model, o.model, o.model_object);
        if (!py::isinstance<py::str>(hw) && !py::hasattr(hw, "__fspath__"))
          throw py::type_error(
              "hw: expected a preset name or an accelerator file path (MAESTRO .m or YAML), as "
              "--hw takes");
        o.hw = fspath(hw);
        if (kw.contains("out") && !kw["out"].is_none()) o.out = fspath(kw["out"]);
        read_options(kw, report::option_table(), o, {"progress", "out"});
        report::check_options(o);
        o.profiler = profiler;
        const report::Result r = run_released(
            progress_argument(kw), [&o](search::Observer& obs) { return report::run(o, obs); });
        report::write_outputs(r);
        return json_object(report::to_json(r));
      },
      "model"_a, "hw"_a,
      ("`sparsemap report --model MODEL --hw HW`: one self-contained HTML page (out=, default "
       "report.html) with the per-layer best mappings, the co-design Pareto front, the NonGEMM "
       "breakdown and the SpMM speedup of the pruned layers." +
       profile + how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each step of a section (label mappings, codesign or spmm); Ctrl-C stops the run "
       "(KeyboardInterrupt)." +
       describe_options(report::option_table()))
          .c_str());
}

void bind_report(py::module_& m, const std::string& how) { bind_report_with(m, how, nullptr); }

}  // namespace sparsemap::python
