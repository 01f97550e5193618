// sparsemap.codesign: dse::codesign::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags, read through its one table (dse/timeloop/commands.h,
// keywords.h); a Timeloop template (hw= a Timeloop architecture file) goes to
// dse::timeloop::run_codesign.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/codesign/run.h"
#include "sparsemap/dse/timeloop/commands.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace cd = dse::codesign;
namespace tl = dse::timeloop;

// codesign on a Timeloop template `hw`: the CLI's checks, then run_codesign.
py::object codesign_timeloop(py::handle model, const std::string& hw, const py::kwargs& kw,
                             tl::CodesignRunOptions& o) {
  refuse_with_timeloop(kw, tl::codesign_option_table(), tl::kCodesignRefusal);
  if (!kw.contains("area_budget_mm2") || kw["area_budget_mm2"].is_none())
    throw InputError({"<flag --area-budget-mm2>"},
                     "expected --area-budget-mm2 with a Timeloop template");
  o.hw = hw;
  read_model_argument(model, o.model, o.model_object);
  const tl::CodesignRunResult r = run_released(
      progress_argument(kw), [&o](search::Observer& obs) { return tl::run_codesign(o, obs); });
  return json_object(tl::to_json(r));
}

void bind_codesign(py::module_& m, const std::string& how) {
  m.def(
      "codesign",
      [](py::object model, py::object platform, py::object budget, py::object seed,
         py::object threads, py::kwargs kw) -> py::object {
        const py::object hw = kw.contains("hw") ? py::object(kw["hw"]) : py::none();
        kw["platform"] = platform;
        kw["budget"] = budget;
        kw["seed"] = seed;
        kw["threads"] = threads;
        tl::CodesignCommandOptions both;
        read_options(kw, tl::codesign_option_table(), both, {"progress", "hw", "plot"});
        if (!hw.is_none() && !py::isinstance<arch::Arch>(hw) && tl::is_arch_file(fspath(hw)))
          return codesign_timeloop(model, fspath(hw), kw, both.timeloop);
        cd::Options& o = both.maestro;
        read_model_argument(model, o.model, o.model_object);
        if (py::isinstance<arch::Arch>(hw))
          o.hw_object = hw.cast<arch::Arch>();
        else if (!hw.is_none())
          o.hw = fspath(hw);
        const std::string plot =
            kw.contains("plot") && !kw["plot"].is_none() ? fspath(kw["plot"]) : "";
        const cd::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return cd::run(o, obs); });
        if (!plot.empty() && !o.table) cd::write_plot(r.cases.at(0), plot);
        return json_object(cd::to_json(r));
      },
      "model"_a = py::none(), "platform"_a = py::none(), "budget"_a = py::none(),
      "seed"_a = py::none(), "threads"_a = py::none(),
      ("`sparsemap codesign`: DiGamma's accelerator and mapping co-design under an area "
       "budget, beside baselines (table=True: the speedup table)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each batch of evaluations; Ctrl-C stops the search (KeyboardInterrupt)." +

       describe_options(tl::codesign_option_table()))
          .c_str());
}

}  // namespace sparsemap::python
