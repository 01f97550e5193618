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

namespace {

#define SM_TEXT(flag, field) SM_KW_TEXT(report::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(report::Options, flag, field, conv)
#define SM_ON(flag, field) SM_KW_ON(report::Options, flag, field)

// `sparsemap report`'s flags (apps/cmd_report.cpp) as keywords (model and hw are the
// positional arguments; out= is a path, read by the caller).
const std::vector<Keyword<report::Options>>& report_keywords() {
  static const std::vector<Keyword<report::Options>> table = {
      SM_NUM("--budget", budget, to_int64),
      SM_NUM("--codesign-budget", codesign_budget, to_int64),
      SM_TEXT("--platform", platform),
      SM_NUM("--seed", seed, to_seed),
      SM_NUM("--threads", threads, to_int64),
      SM_TEXT("--spmm-formats", spmm_formats),
      SM_TEXT("--spmm-sparsity", spmm_sparsity),
      SM_NUM("--spmm-cols", spmm_cols, to_int64),
      SM_NUM("--spmm-shapes", spmm_shapes, to_int64),
      SM_NUM("--spmm-min-ms", spmm_min_ms, to_double),
      SM_NUM("--profile-iters", profile_iters, to_int64),
      SM_ON("--no-profile", no_profile),
      SM_NUM("--batch", zoo.batch, to_int64),
      SM_NUM("--seq", zoo.seq_len, to_positive),
      SM_NUM("--image", zoo.image_size, to_positive),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM
#undef SM_ON

}  // namespace

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
        read_keywords(kw, report_keywords(), o, {"progress", "out"});
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
       "(KeyboardInterrupt).")
          .c_str());
}

void bind_report(py::module_& m, const std::string& how) { bind_report_with(m, how, nullptr); }

}  // namespace sparsemap::python
