// LoopNestResult::to_json: the JSON of `sparsemap timeloop --json` (and of the Python
// TimeloopResult.to_dict()), in one place.
#include <nlohmann/json.hpp>

#include "sparsemap/cost/loopnest.h"

namespace sparsemap::cost {

nlohmann::json LoopNestResult::to_json() const {
  nlohmann::json out_levels = nlohmann::json::array();
  nlohmann::json fj = {{compute_name, fj_per_compute(compute_name)}};
  for (const auto& l : levels) {
    if (l.dummy) continue;
    nlohmann::json ds = nlohmann::json::object();
    for (const auto& d : l.dataspaces)
      ds[d.name] = {{"reads", d.reads},
                    {"fills", d.fills},
                    {"updates", d.updates},
                    {"tile_words", d.tile_words},
                    {"energy_pj", d.energy_pj}};
    out_levels.push_back({{"name", l.name},
                          {"instances", l.instances},
                          {"utilized_instances", l.utilized_instances},
                          {"energy_pj", l.energy_pj},
                          {"leak_energy_pj", l.leak_energy_pj},
                          {"dataspaces", ds}});
    fj[l.name] = fj_per_compute(l.name);
  }
  fj["Total"] = fj_per_compute("Total");
  return {{"macs", macs},
          {"cycles", cycles},
          {"utilization", utilization},
          {"energy_pj", energy_pj},
          {"compute",
           {{"name", compute_name},
            {"instances", compute_instances},
            {"utilized_instances", utilized_compute_instances},
            {"energy_pj", compute_energy_pj}}},
          {"fj_per_compute", fj},
          {"levels", out_levels}};
}

}  // namespace sparsemap::cost
