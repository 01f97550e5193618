// to_json(mapper::Result): the JSON of `sparsemap map --json`, built here and nowhere else.
#include "sparsemap/cost/utilisation.h"
#include "sparsemap/dse/mapper/run.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::mapper {

namespace {

// One layer's JSON object.
nlohmann::json layer_json(const Result& r, size_t i) {
  const auto& lo = r.outcome.layers[i];
  const cost::Cost& c = lo.cost;
  nlohmann::json j = {{"name", lo.layer.name},
                      {"status", std::string(cost::status_name(c.status))},
                      {"runtime_cycles", c.runtime_cycles},
                      {"energy_nj", c.energy_nj},
                      {"macs", c.macs},
                      {"samples", lo.samples},
                      {"mapping", mapping_text(lo.mapping)},
                      {"pes_used", c.pes_used},
                      {"pe_utilization_pct", cost::pe_utilisation_pct(c, r.hw.num_pes)},
                      {"l1_bytes", c.l1_bytes},
                      {"l2_bytes", c.l2_bytes},
                      {"fitness", lo.fitness},
                      {"levels", decoded_to_json(lo.decoded).size()},
                      {"reused", lo.reused},
                      {"distinct_index", lo.unique},
                      {"samples_to_5pct", lo.samples_to_5pct}};
  if (!c.ok()) j["reason"] = c.reason;
  if (!r.references.empty()) {
    nlohmann::json d = nlohmann::json::object();
    for (const Reference& ref : r.references)
      d[ref.name] = {{"status", std::string(cost::status_name(ref.costs[i].status))},
                     {"runtime_cycles", ref.costs[i].runtime_cycles},
                     {"energy_nj", ref.costs[i].energy_nj}};
    j["dataflows"] = d;
  }
  if (r.mapper.warm_start && !lo.reused)
    j["warm_start"] = {{"cold_fitness", lo.cold_fitness},
                       {"cold_samples_to_target", lo.cold_samples_to_target},
                       {"warm_samples_to_target", lo.warm_samples_to_target}};
  if (!lo.regrets.empty()) {
    nlohmann::json rg = nlohmann::json::array();
    for (const auto& g : lo.regrets)
      rg.push_back({{"density", g.density},
                    {"robust", g.robust},
                    {"alone", g.alone},
                    {"regret_pct", 100.0 * g.regret}});
    j["density_regret"] = rg;
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const Result& r) {
  const Options& a = r.options;
  const Totals& tot = r.totals;
  nlohmann::json jl = nlohmann::json::array();
  for (size_t i = 0; i < r.outcome.layers.size(); ++i) jl.push_back(layer_json(r, i));
  nlohmann::json j = {{"model", r.model_name},
                      {"algo", a.algo},
                      {"hw", r.hw.name},
                      {"objective", a.objective},
                      {"budget", r.mapper.budget},
                      {"seed", r.mapper.seed},
                      {"levels", a.levels},
                      {"constraint", constraint_name(r.mapper.space.constraint)},
                      {"divisors_only", a.divisors_only},
                      {"maestro_compatible", a.maestro_compatible},
                      {"layers", jl},
                      {"total",
                       {{"runtime_cycles", tot.runtime},
                        {"energy_nj", tot.energy},
                        {"macs", tot.macs},
                        {"layers", r.outcome.layers.size()},
                        {"layers_ok", tot.ok},
                        {"distinct_layers", r.outcome.unique_layers},
                        {"pe_utilization_geomean_pct", tot.geo_util}}}};
  if (a.algo == "bo") j["bo_sample_cap"] = search::kBoSampleCap;
  if (!r.outcome.skipped.empty()) j["skipped"] = r.outcome.skipped;
  if (!r.references.empty()) {
    nlohmann::json d = nlohmann::json::object();
    for (size_t k = 0; k < r.references.size(); ++k)
      d[r.references[k].name] = {{"runtime_cycles", tot.ref_rt[k]},
                                 {"energy_nj", tot.ref_en[k]},
                                 {"layers_ok", tot.ref_ok[k]},
                                 {"searched_runtime_cycles_same_layers", tot.ours_rt[k]}};
    j["dataflows_total"] = d;
  }
  if (r.mapper.warm_start) {
    const WarmStartSums w = warm_start_sums(r.outcome, r.mapper.budget);
    j["warm_start"] = {{"layers", w.layers},
                       {"cold_samples_to_target", w.cold},
                       {"warm_samples_to_target", w.warm},
                       {"mapping_db_entries", r.mapper.mapping_db.size()}};
  }
  return j;
}

}  // namespace sparsemap::dse::mapper
