// sparsemap.codesign: dse::codesign::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags (keywords.h). A Timeloop template (hw= a Timeloop
// architecture file) goes to dse::timeloop::run_codesign (bind_timeloop_search.cpp).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/codesign/run.h"
#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

namespace cd = dse::codesign;

#define SM_TEXT(flag, field) SM_KW_TEXT(cd::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(cd::Options, flag, field, conv)
#define SM_ON(flag, field) SM_KW_ON(cd::Options, flag, field)
#define SM_IGNORED(flag, on_off, conv) SM_KW_IGNORED(cd::Options, flag, on_off, conv)

// `sparsemap codesign`'s flags (apps/cmd_codesign.cpp) as keywords (hw= is read by the caller:
// it takes an Arch object too); those that apply only to Timeloop templates (--ert, --art,
// --map-budget, --final-budget) and to printing (--wide) are accepted and, as by the CLI on a
// built-in template, have no effect.
const std::vector<Keyword<cd::Options>>& codesign_keywords() {
  static const std::vector<Keyword<cd::Options>> table = {
      SM_TEXT("--model", model),
      SM_TEXT("--platform", platform),
      SM_NUM("--area-budget-mm2", area_budget, to_double),
      SM_NUM("--pe-limit", pe_limit, to_int64),
      SM_NUM("--pe-step", pe_step, to_int64),
      SM_TEXT("--objective", objective),
      SM_NUM("--budget", budget, to_int64),
      SM_NUM("--seed", seed, to_seed),
      SM_NUM("--threads", threads, to_int64),
      SM_TEXT("--buffers", buffers),
      SM_NUM("--levels", levels, to_int64),
      SM_ON("--maestro-compatible", maestro_compatible),
      SM_NUM("--population", population, to_uint64),
      SM_TEXT("--baselines", baselines),
      SM_TEXT("--checkpoint", checkpoint),
      SM_NUM("--checkpoint-every", checkpoint_every, to_int64),
      SM_TEXT("--resume", resume),
      SM_ON("--table", table),
      SM_TEXT("--models", models),
      SM_TEXT("--platforms", platforms),
      SM_IGNORED("--wide", true, as_text),
      SM_NUM("--batch", zoo.batch, to_int64),
      SM_NUM("--seq", zoo.seq_len, to_positive),
      SM_NUM("--image", zoo.image_size, to_positive),
      SM_IGNORED("--ert", false, as_text),
      SM_IGNORED("--art", false, as_text),
      SM_IGNORED("--map-budget", false, to_int64),
      SM_IGNORED("--final-budget", false, to_int64),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM
#undef SM_ON
#undef SM_IGNORED

}  // namespace

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
        if (!hw.is_none() && !py::isinstance<arch::Arch>(hw) &&
            dse::timeloop::is_arch_file(fspath(hw)))
          return codesign_timeloop(model, fspath(hw), kw);
        cd::Options o;
        read_model_argument(model, o.model, o.model_object);
        if (py::isinstance<arch::Arch>(hw))
          o.hw_object = hw.cast<arch::Arch>();
        else if (!hw.is_none())
          o.hw = fspath(hw);
        read_keywords(kw, codesign_keywords(), o, {"progress", "hw", "plot"});
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
       "after each batch of evaluations; Ctrl-C stops the search (KeyboardInterrupt).")
          .c_str());
}

}  // namespace sparsemap::python
