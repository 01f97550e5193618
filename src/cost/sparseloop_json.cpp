// The Sparseloop result's accessors, and SparseLoopResult::to_json: the JSON of
// `sparsemap timeloop --json` for sparse inputs.
#include <nlohmann/json.hpp>

#include "sparsemap/cost/sparseloop.h"

namespace sparsemap::cost {

bool SparseDataspace::operator==(const SparseDataspace& o) const {
  return name == o.name && tile_words == o.tile_words &&
         expected_occupancy == o.expected_occupancy && format == o.format &&
         format_occupancy == o.format_occupancy && reads == o.reads && fills == o.fills &&
         updates == o.updates && format_reads == o.format_reads &&
         gated_format_reads == o.gated_format_reads &&
         skipped_format_reads == o.skipped_format_reads && format_fills == o.format_fills &&
         gated_format_fills == o.gated_format_fills &&
         skipped_format_fills == o.skipped_format_fills && format_updates == o.format_updates &&
         gated_format_updates == o.gated_format_updates &&
         skipped_format_updates == o.skipped_format_updates && decompressions == o.decompressions &&
         compressions == o.compressions && energy_pj == o.energy_pj;
}

const SparseDataspace* SparseLevel::dataspace(const std::string& n) const {
  for (const auto& d : dataspaces)
    if (d.name == n) return &d;
  return nullptr;
}

const SparseLevel* SparseLoopResult::level(const std::string& n) const {
  for (const auto& l : levels)
    if (l.name == n) return &l;
  return nullptr;
}

namespace {

double per(double pj, int64_t count) {
  return count > 0 ? pj * 1000.0 / static_cast<double>(count) : 0;
}

double component_pj(const SparseLoopResult& r, const std::string& component) {
  if (component == "Total") return r.energy_pj;
  if (component == r.compute_name) return r.compute_energy_pj;
  if (const auto* l = r.level(component)) return l->energy_pj;
  return 0;
}

}  // namespace

double SparseLoopResult::fj_per_algorithmic_compute(const std::string& component) const {
  return per(component_pj(*this, component), algorithmic_computes);
}

double SparseLoopResult::fj_per_compute(const std::string& component) const {
  return per(component_pj(*this, component), actual_computes);
}

namespace {

nlohmann::json counts(const SparseCounts& c) {
  return {{"algorithmic", c.algorithmic},
          {"actual", c.actual},
          {"gated", c.gated},
          {"skipped", c.skipped}};
}

// Per rank, innermost first: [[metadata, payload], ...].
nlohmann::json ranks(const std::vector<RankUnits>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& u : v) out.push_back({u.metadata, u.payload});
  return out;
}

}  // namespace

nlohmann::json SparseLoopResult::to_json() const {
  nlohmann::json out_levels = nlohmann::json::array();
  nlohmann::json fj = {{compute_name, fj_per_compute(compute_name)}};
  nlohmann::json fj_alg = {{compute_name, fj_per_algorithmic_compute(compute_name)}};
  for (const auto& l : levels) {
    if (l.dummy) continue;
    nlohmann::json ds = nlohmann::json::object();
    for (const auto& d : l.dataspaces) {
      nlohmann::json j = {{"reads", d.reads.actual},           {"fills", d.fills.actual},
                          {"updates", d.updates.actual},       {"tile_words", d.tile_words},
                          {"energy_pj", d.energy_pj},          {"format", d.format},
                          {"read_counts", counts(d.reads)},    {"fill_counts", counts(d.fills)},
                          {"update_counts", counts(d.updates)}};
      if (d.format != "none") {
        j["format_occupancy"] = ranks(d.format_occupancy);
        j["metadata_reads"] = ranks(d.format_reads);
        j["metadata_fills"] = ranks(d.format_fills);
        j["metadata_updates"] = ranks(d.format_updates);
        j["skipped_metadata_reads"] = ranks(d.skipped_format_reads);
        j["gated_metadata_reads"] = ranks(d.gated_format_reads);
      }
      ds[d.name] = std::move(j);
    }
    out_levels.push_back({{"name", l.name},
                          {"instances", l.instances},
                          {"utilized_instances", l.utilized_instances},
                          {"cycles", l.cycles},
                          {"energy_pj", l.energy_pj},
                          {"leak_energy_pj", l.leak_energy_pj},
                          {"dataspaces", ds}});
    fj[l.name] = fj_per_compute(l.name);
    fj_alg[l.name] = fj_per_algorithmic_compute(l.name);
  }
  fj["Total"] = fj_per_compute("Total");
  fj_alg["Total"] = fj_per_algorithmic_compute("Total");
  return {{"macs", algorithmic_computes},
          {"algorithmic_computes", algorithmic_computes},
          {"actual_computes", actual_computes},
          {"gated_computes", gated_computes},
          {"skipped_computes", skipped_computes},
          {"cycles", cycles},
          {"compute_cycles", compute_cycles},
          {"utilization", utilization},
          {"energy_pj", energy_pj},
          {"compute",
           {{"name", compute_name},
            {"instances", dense.compute_instances},
            {"utilized_instances", dense.utilized_compute_instances},
            {"energy_pj", compute_energy_pj}}},
          {"fj_per_compute", fj},
          {"fj_per_algorithmic_compute", fj_alg},
          {"levels", out_levels}};
}

}  // namespace sparsemap::cost
