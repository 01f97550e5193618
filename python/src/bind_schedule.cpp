// sparsemap.schedule: dse::schedule::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON
// (and writes the plot when plot= names one). Keywords are the command's flags (keywords.h).
#include <pybind11/stl.h>

#include <limits>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/dse/schedule/run.h"

namespace sparsemap::python {

namespace py = pybind11;

namespace {

namespace sc = dse::schedule;

// CLI11's conversion of an int flag: out of int's range is "Could not convert".
int to_int(const std::string& flag, const std::string& text) {
  const int64_t v = to_int64(flag, text);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw py::value_error("Could not convert: " + flag + " = " + text);
  return static_cast<int>(v);
}

// CLI11's IsMember check of --init and --core-draw, with its line.
std::string member_of(const std::string& flag, const std::string& text,
                      const std::vector<std::string>& names) {
  std::string set;
  for (const auto& n : names) {
    if (n == text) return text;
    set += (set.empty() ? "" : ",") + n;
  }
  throw py::value_error(flag + ": " + text + " not in {" + set + "}");
}
std::string to_init(const std::string& flag, const std::string& text) {
  return member_of(flag, text, {"random", "heuristics"});
}
std::string to_core_draw(const std::string& flag, const std::string& text) {
  return member_of(flag, text, {"speed", "uniform"});
}

#define SM_TEXT(flag, field) SM_KW_TEXT(sc::Options, flag, field)
#define SM_NUM(flag, field, conv) SM_KW_NUM(sc::Options, flag, field, conv)

// `sparsemap schedule`'s flags (apps/cmd_schedule.cpp) as keywords (--json and --quiet are the
// CLI's: read_keywords refuses them).
const std::vector<Keyword<sc::Options>>& schedule_keywords() {
  static const std::vector<Keyword<sc::Options>> table = {
      SM_TEXT("--jobs", jobs),
      SM_TEXT("--platform", platform),
      SM_NUM("--bw", bw, to_double),
      SM_TEXT("--algo", algo),
      SM_NUM("--budget", budget, to_int64),
      SM_NUM("--seed", seed, to_seed),
      SM_NUM("--population", population, to_int),
      SM_TEXT("--job-table", job_table),
      SM_TEXT("--warm-start", warm_start),
      SM_TEXT("--plot", plot),
      SM_NUM("--init", init, to_init),
      SM_NUM("--local-search", local_search, to_double),
      SM_NUM("--climb-work-weight", climb_work_weight, to_double),
      SM_NUM("--warm-copies", warm_copies, to_double),
      SM_NUM("--core-draw", core_draw, to_core_draw),
  };
  return table;
}

#undef SM_TEXT
#undef SM_NUM

}  // namespace

void bind_schedule(py::module_& m, const std::string& how) {
  m.def(
      "schedule",
      [](py::kwargs kw) -> py::object {
        sc::Options o;
        read_keywords(kw, schedule_keywords(), o, {"progress"});
        const sc::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return sc::run(o, obs); });
        sc::write_plot(r);
        return json_object(sc::to_json(r));
      },
      ("`sparsemap schedule`: G# multi-tenant scheduling (jobs=, platform=, job_table=, "
       "algo=)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each generation of G# and MAGMA's GA; Ctrl-C stops it (KeyboardInterrupt).")
          .c_str());
}

}  // namespace sparsemap::python
