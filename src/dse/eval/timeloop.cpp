// `sparsemap timeloop`'s work as a library call: the files read and merged, the architecture
// from --hw, leakage dropped, the loop-nest or Sparseloop model run (timeloop.h).
#include "sparsemap/dse/eval/timeloop.h"

#include <algorithm>

#include "sparsemap/arch/maestro_hierarchy.h"
#include "sparsemap/error.h"
#include "sparsemap/io/arch_files.h"
#include "sparsemap/io/timeloop.h"
#include "sparsemap/io/util.h"

namespace sparsemap::dse::eval {

TimeloopResult run_timeloop(const TimeloopOptions& o, search::Observer& observer) {
  auto in = io::read_timeloop_files(o.files);
  const bool no_leakage = o.no_leakage || o.timeloop_303;
  if (!o.hw.empty()) {
    if (in.arch || in.ert)
      throw InputError({"<flag --hw>"},
                       "expected either --hw or an architecture and ERT among the files, not both");
    const arch::ArchHierarchy v = arch::to_hierarchy(io::load_arch(o.hw));
    in.arch = v.hierarchy;
    in.ert = v.ert;
  }
  in.require_evaluable();
  if (no_leakage && in.ert)  // timeloop-model 3.0.3 prices no leakage
    for (auto& c : in.ert->components)
      c.actions.erase(std::remove_if(c.actions.begin(), c.actions.end(),
                                     [](const arch::ActionEnergy& a) { return a.name == "leak"; }),
                      c.actions.end());
  if (!in.ert)
    observer.on_warning("no ERT (Accelergy's energy table) among the files: every energy is 0");
  TimeloopResult r;
  r.options = o;
  r.mapping = *in.mapping;
  if (in.sparse && !in.sparse->empty()) {  // densities alone: Timeloop's dense run
    r.sparse = cost::evaluate_sparseloop(*in.problem, *in.arch, *in.mapping,
                                         in.ert ? &*in.ert : nullptr, *in.sparse, in.densities,
                                         o.timeloop_303 ? cost::SparseloopPricing::kTimeloop303
                                                        : cost::SparseloopPricing::kTimeloop4);
    if (!r.sparse->ok()) throw InputError({in.sources.at("mapping")}, r.sparse->reason);
    return r;
  }
  r.dense =
      cost::evaluate_loopnest(*in.problem, *in.arch, *in.mapping, in.ert ? &*in.ert : nullptr);
  if (!r.dense->ok()) throw InputError({in.sources.at("mapping")}, r.dense->reason);
  return r;
}

void write_outputs(const TimeloopResult& r) {
  if (!r.options.emit_map.empty())
    io::write_text_file(r.options.emit_map, io::write_timeloop_mapping(r.mapping));
}

nlohmann::json to_json(const TimeloopResult& r) {
  return r.sparse ? r.sparse->to_json() : r.dense->to_json();
}

}  // namespace sparsemap::dse::eval
