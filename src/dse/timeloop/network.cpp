// Whole networks on a Timeloop-described accelerator (include/sparsemap/dse/timeloop/network.h).
#include "sparsemap/dse/timeloop/network.h"

#include <chrono>

namespace sparsemap::dse::timeloop {
namespace {

// A warm genome for `space`: the order and keep genes of an earlier best genome (same layout
// on one accelerator), the factor and axis genes at the middle of their range.
search::Genome carry_over(const MapSpace& space, const MapSpace::Layout& from,
                          const search::Genome& g) {
  const MapSpace::Layout to = space.layout();
  search::Genome out(space.genes(), 0.5);
  if (to.levels != from.levels || to.dims != from.dims || to.keep != from.keep) return out;
  const size_t orders = static_cast<size_t>(to.levels) * to.dims;
  for (size_t j = 0; j < orders; ++j) out[to.order_base + j] = g[from.order_base + j];
  for (size_t j = 0; j < to.keep.size(); ++j) out[to.keep_base + j] = g[from.keep_base + j];
  return out;
}

nlohmann::json bound_json(const LowerBound& b) {
  return {{"cycles", b.cycles}, {"energy_pj", b.energy_pj}, {"edp", b.edp()}};
}

}  // namespace

NetworkResult map_network(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                          const arch::EnergyTable* ert, const NetworkOptions& o,
                          const std::function<void(size_t, size_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  NetworkResult out;
  struct Earlier {
    MapSpace::Layout layout;
    search::Genome genome;
  };
  std::vector<Earlier> earlier;  // best genomes of searched layers, most recent last
  size_t distinct = 0, done = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j) seen = layers[j].problem == layers[i].problem;
    distinct += !seen;
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    NetworkRow row;
    row.name = layers[i].name;
    for (size_t j = 0; j < out.rows.size(); ++j)
      if (layers[j].problem == layers[i].problem) {
        row.same_as = out.rows[j].name;
        row.r = out.rows[j].r;
        row.r.evaluations = 0;
        row.r.seconds = 0;
        break;
      }
    if (row.same_as.empty()) {
      MapperOptions mo = o.mapper;
      const MapSpace space(layers[i].problem, h);
      if (o.warm_start)
        for (size_t k = 0; k < earlier.size() && k < o.warm_seeds; ++k) {
          const Earlier& e = earlier[earlier.size() - 1 - k];
          mo.warm.push_back(carry_over(space, e.layout, e.genome));
        }
      row.r = map_problem(layers[i].problem, h, ert, mo);
      if (!row.r.genome.empty()) earlier.push_back({space.layout(), row.r.genome});
      if (progress) progress(++done, distinct);
    }
    out.all_found = out.all_found && row.r.found;
    out.cycles += row.r.result.cycles;
    out.energy_pj += row.r.result.energy_pj;
    out.bound.cycles += row.r.bound.cycles;
    out.bound.energy_pj += row.r.bound.energy_pj;
    out.evaluations += row.r.evaluations;
    out.rows.push_back(std::move(row));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

nlohmann::json to_json(const NetworkResult& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const NetworkRow& row : r.rows) {
    const MapperResult& m = row.r;
    nlohmann::json j = {{"name", row.name},
                        {"found", m.found},
                        {"algo", m.algo},
                        {"cycles", m.result.cycles},
                        {"energy_pj", m.result.energy_pj},
                        {"edp", static_cast<double>(m.result.cycles) * m.result.energy_pj},
                        {"utilization", m.result.utilization},
                        {"evaluations", m.evaluations},
                        {"seconds", m.seconds},
                        {"bound", bound_json(m.bound)}};
    if (!row.same_as.empty()) j["same_as"] = row.same_as;
    if (m.space_points) j["space_points"] = m.space_points;
    const double b = m.bound.edp();
    j["edp_over_bound"] = b > 0 ? j["edp"].get<double>() / b : 0.0;
    layers.push_back(j);
  }
  const double b = r.bound.edp();
  return {{"layers", layers},
          {"total",
           {{"cycles", r.cycles},
            {"energy_pj", r.energy_pj},
            {"edp", r.edp()},
            {"evaluations", r.evaluations},
            {"seconds", r.seconds},
            {"bound", bound_json(r.bound)},
            {"edp_over_bound", b > 0 ? r.edp() / b : 0.0}}}};
}

}  // namespace sparsemap::dse::timeloop
