// sparsemap.map_model: dse::mapper::run called directly (no CLI parsing, no captured output),
// with the GIL released while it searches; returns to_json(result) as a dict, the CLI's JSON.
// Keywords are the command's flags (keywords.h), read with the CLI's conversions and errors.
// On a Timeloop architecture file it calls dse::timeloop::run_map; the keywords are read through
// the command's one table (dse/timeloop/commands.h), which refuses the MAESTRO-class ones there.
#include <pybind11/stl.h>

#include "bindings.h"
#include "keywords.h"
#include "sparsemap/arch/arch.h"
#include "sparsemap/dse/mapper/run.h"
#include "sparsemap/dse/timeloop/commands.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::python {

namespace py = pybind11;
using namespace pybind11::literals;

namespace mp = dse::mapper;
namespace tl = dse::timeloop;

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
        tl::MapCommandOptions both;
        read_options(kw, tl::map_option_table(), both, {"progress"});
        py::object progress = progress_argument(kw);
        if (!arch_object && tl::is_arch_file(fspath(arch))) {
          refuse_with_timeloop(kw, tl::map_option_table(), tl::kMapRefusal);
          tl::MapOptions& o = both.timeloop;
          o.hw = fspath(arch);
          read_model_argument(model, o.model, o.model_object);
          const tl::MapResult r =
              run_released(progress, [&o](search::Observer& obs) { return tl::run_map(o, obs); });
          tl::write_outputs(r);
          return json_object(tl::to_json(r));
        }
        mp::Options& o = both.maestro;
        read_model_argument(model, o.model, o.model_object);
        if (arch_object)
          o.arch_object = arch.cast<arch::Arch>();
        else
          o.hw = fspath(arch);
        const mp::Result r =
            run_released(progress, [&o](search::Observer& obs) { return mp::run(o, obs); });
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
       "after each batch of evaluations; Ctrl-C stops the search (KeyboardInterrupt)." +

       describe_options(tl::map_option_table()))
          .c_str());
}

}  // namespace sparsemap::python
