// map_model and codesign on a Timeloop architecture file: dse::timeloop::run_map and
// run_codesign called directly with the GIL released; keywords are the flags of `map` /
// `codesign` that apply there (keywords.h), read with the CLI's conversions and errors; those
// that apply only to MAESTRO-class accelerators or built-in templates raise the CLI's line.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

namespace tl = dse::timeloop;

#define SM_TEXT(O, flag, field) SM_KW_TEXT(O, flag, field)
#define SM_NUM(O, flag, field, conv) SM_KW_NUM(O, flag, field, conv)

// The flags of `map` with a Timeloop architecture (apps/cmd_map.cpp); --warm-start is accepted
// and changes nothing (warm start is on), as in the CLI.
const std::vector<Keyword<tl::MapOptions>>& map_keywords() {
  using O = tl::MapOptions;
  static const std::vector<Keyword<O>> table = {
      SM_TEXT(O, "--ert", ert),
      SM_TEXT(O, "--emit-timeloop", emit_dir),
      SM_NUM(O, "--exhaustive-limit", exhaustive_limit, to_uint64),
      SM_TEXT(O, "--algo", algo),
      SM_NUM(O, "--budget", budget, to_int64),
      SM_TEXT(O, "--objective", objective),
      SM_NUM(O, "--seed", seed, to_seed),
      SM_NUM(O, "--threads", threads, to_int64),
      SM_KW_IGNORED(O, "--warm-start", true, as_text),
      SM_TEXT(O, "--checkpoint", checkpoint),
      SM_NUM(O, "--checkpoint-every", checkpoint_every, to_int64),
      SM_TEXT(O, "--resume", resume),
      SM_NUM(O, "--batch", zoo.batch, to_int64),
      SM_NUM(O, "--seq", zoo.seq_len, to_positive),
      SM_NUM(O, "--image", zoo.image_size, to_positive),
  };
  return table;
}

// The flags of `codesign` with a Timeloop template (apps/cmd_codesign.cpp).
const std::vector<Keyword<tl::CodesignRunOptions>>& codesign_keywords() {
  using O = tl::CodesignRunOptions;
  static const std::vector<Keyword<O>> table = {
      SM_TEXT(O, "--model", model),
      SM_NUM(O, "--area-budget-mm2", area_budget_mm2, to_double),
      SM_TEXT(O, "--objective", objective),
      SM_NUM(O, "--budget", budget, to_int64),
      SM_NUM(O, "--seed", seed, to_seed),
      SM_NUM(O, "--threads", threads, to_int64),
      SM_TEXT(O, "--ert", ert),
      SM_TEXT(O, "--art", art),
      SM_NUM(O, "--map-budget", map_budget, to_int64),
      SM_NUM(O, "--final-budget", final_budget, to_int64),
      SM_NUM(O, "--batch", zoo.batch, to_int64),
      SM_NUM(O, "--seq", zoo.seq_len, to_positive),
      SM_NUM(O, "--image", zoo.image_size, to_positive),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM

// The CLI's refusal of the first of `flags` that `kw` sets (a value other than None / False).
void refuse(const py::kwargs& kw, std::initializer_list<const char*> flags,
            const std::string& why) {
  for (const char* flag : flags)
    for (auto item : kw) {
      const py::handle v = item.second;
      if (flag_of(py::str(item.first)) != flag || v.is_none() ||
          (py::isinstance<py::bool_>(v) && !v.cast<bool>()))
        continue;
      throw InputError({std::string("<flag ") + flag + ">"}, std::string(flag) + " " + why);
    }
}

}  // namespace

py::object map_model_timeloop(py::handle model, const std::string& hw, const py::kwargs& kw) {
  refuse(kw,
         {"--mapping", "--levels", "--divisors-only", "--maestro-compatible", "--constraint",
          "--mapping-db", "--spatial-seeds", "--mapping-db-out", "--density", "--structure",
          "--sparse-mode", "--worst-case", "--emit-m", "--compare-dataflows", "--wide"},
         "applies to MAESTRO-class accelerators: expected it without a Timeloop architecture");
  tl::MapOptions o;
  o.hw = hw;
  read_model_argument(model, o.model, o.model_object);
  read_keywords(kw, map_keywords(), o, {"progress"});
  const tl::MapResult r = run_released(progress_argument(kw),
                                       [&o](search::Observer& obs) { return tl::run_map(o, obs); });
  tl::write_outputs(r);
  return json_object(tl::to_json(r));
}

py::object codesign_timeloop(py::handle model, const std::string& hw, const py::kwargs& kw) {
  refuse(kw,
         {"--platform", "--pe-limit", "--pe-step", "--buffers", "--levels", "--maestro-compatible",
          "--population", "--baselines", "--checkpoint", "--checkpoint-every", "--resume", "--plot",
          "--table", "--models", "--platforms", "--wide"},
         "applies to the built-in templates: expected it without a Timeloop architecture");
  if (!kw.contains("area_budget_mm2") || kw["area_budget_mm2"].is_none())
    throw InputError({"<flag --area-budget-mm2>"},
                     "expected --area-budget-mm2 with a Timeloop template");
  tl::CodesignRunOptions o;
  o.hw = hw;
  read_model_argument(model, o.model, o.model_object);
  read_keywords(kw, codesign_keywords(), o, {"progress", "hw"});
  const tl::CodesignRunResult r = run_released(
      progress_argument(kw), [&o](search::Observer& obs) { return tl::run_codesign(o, obs); });
  return json_object(tl::to_json(r));
}

}  // namespace sparsemap::python
