// sparsemap.map_model: dse::mapper::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags (keywords.h), read with the CLI's conversions and errors.
// A Timeloop architecture file goes to dse::timeloop::run_map (bind_timeloop_search.cpp).
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/mapper/run.h"
#include "sparsemap/dse/timeloop/run.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

namespace mp = dse::mapper;
using MapKeyword = Keyword<mp::Options>;

#define SM_TEXT(flag, field) SM_KW_TEXT(mp::Options, flag, field)
#define SM_INT(flag, field, conv) SM_KW_NUM(mp::Options, flag, field, conv)
#define SM_ON(flag, field) SM_KW_ON(mp::Options, flag, field)
#define SM_IGNORED(flag, on_off, conv) SM_KW_IGNORED(mp::Options, flag, on_off, conv)

// `sparsemap map`'s flags (apps/cmd_map.cpp) as keywords; those that apply only to Timeloop
// architectures (--ert, --emit-timeloop, --exhaustive-limit) and to printing (--wide) are
// accepted and, as by the CLI on a MAESTRO-class accelerator, have no effect.
const std::vector<MapKeyword>& map_keywords() {
  static const std::vector<MapKeyword> table = {
      SM_TEXT("--mapping", mapping),
      MapKeyword{"--hw", false,
                 [](mp::Options& o, const std::string& v) {
                   o.hw = v;
                   o.arch_object.reset();
                 }},
      SM_IGNORED("--ert", false, as_text),
      SM_IGNORED("--emit-timeloop", false, as_text),
      SM_IGNORED("--exhaustive-limit", false, to_uint64),
      SM_TEXT("--algo", algo),
      SM_INT("--budget", budget, to_int64),
      SM_TEXT("--objective", objective),
      SM_INT("--seed", seed, to_seed),
      SM_INT("--threads", threads, to_int64),
      SM_INT("--levels", levels, to_int64),
      SM_ON("--divisors-only", divisors_only),
      SM_ON("--maestro-compatible", maestro_compatible),
      SM_TEXT("--constraint", constraint),
      SM_INT("--population", population, to_uint64),
      SM_INT("--mutation-rate", mutation_rate, to_double),
      SM_ON("--warm-start", warm_start),
      SM_TEXT("--mapping-db", mapping_db),
      SM_INT("--spatial-seeds", spatial_seeds, to_uint64),
      SM_TEXT("--mapping-db-out", mapping_db_out),
      SM_TEXT("--density", density),
      SM_TEXT("--structure", structure),
      SM_TEXT("--sparse-mode", sparse_mode),
      SM_ON("--worst-case", worst_case),
      SM_TEXT("--checkpoint", checkpoint),
      SM_INT("--checkpoint-every", checkpoint_every, to_int64),
      SM_TEXT("--resume", resume),
      SM_TEXT("--emit-m", emit_m),
      SM_ON("--compare-dataflows", compare),
      SM_IGNORED("--wide", true, as_text),
      SM_INT("--batch", zoo.batch, to_int64),
      SM_INT("--seq", zoo.seq_len, to_positive),
      SM_INT("--image", zoo.image_size, to_positive),
  };
  return table;
}

#undef SM_TEXT
#undef SM_INT
#undef SM_ON
#undef SM_IGNORED

}  // namespace

void bind_map(py::module_& m, const std::string& how) {
  m.def(
      "map_model",
      [](py::object model, py::object arch, py::object algo, py::object budget, py::object seed,
         py::object threads, py::kwargs kw) -> py::object {
        const bool arch_object = py::isinstance<arch::Arch>(arch);
        kw["algo"] = algo;
        kw["budget"] = budget;
        kw["seed"] = seed;
        kw["threads"] = threads;
        if (!arch_object && dse::timeloop::is_arch_file(fspath(arch)))
          return map_model_timeloop(model, fspath(arch), kw);
        mp::Options o;
        read_model_argument(model, o.model, o.model_object);
        if (arch_object)
          o.arch_object = arch.cast<arch::Arch>();
        else
          o.hw = fspath(arch);
        read_keywords(kw, map_keywords(), o, {"progress"});
        const mp::Result r = run_released(progress_argument(kw),
                                          [&o](search::Observer& obs) { return mp::run(o, obs); });
        mp::write_outputs(r);
        py::object d = json_object(mp::to_json(r));
        mp::require_some_feasible(r);
        return d;
      },
      "model"_a, "arch"_a, "algo"_a = py::none(), "budget"_a = py::none(), "seed"_a = py::none(),
      "threads"_a = py::none(),
      ("`sparsemap map --model MODEL --hw ARCH`: the best mapping of every layer (GAMMA or a "
       "baseline optimiser)." +
       how +
       " progress= (a callable) is called with a dict (item, items, done, total, best, label) "
       "after each batch of evaluations; Ctrl-C stops the search (KeyboardInterrupt).")
          .c_str());
}

}  // namespace sparsemap::python
