// to_json(codesign::Result): the JSON of `sparsemap codesign --json`, built here and nowhere
// else.
#include "sparsemap/dse/codesign/run.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::codesign {

namespace {

using nlohmann::json;

json baseline_json(const BaselineOutcome& b) {
  json j = {{"feasible", b.feasible},
            {"runtime_cycles", b.runtime_cycles},
            {"energy_nj", b.energy_nj},
            {"fitness", b.feasible ? b.fitness : 0.0},
            {"pes", b.pes},
            {"l1_bytes", b.l1_bytes},
            {"l2_bytes", b.l2_bytes},
            {"area_mm2", b.area_mm2},
            {"power_mw", b.power_mw},
            {"samples", b.samples},
            {"wall_s", b.wall_s}};
  if (!b.note.empty()) j["note"] = b.note;
  return j;
}

}  // namespace

json case_json(const Options& a, const CaseOutcome& c) {
  json j = design_json(*c.space, c.codesign);
  j["model"] = c.model;
  j["platform"] = c.budget.name;
  j["area_budget_mm2"] = c.budget.area;
  j["pe_limit"] = c.budget.pes;
  j["pe_step"] = c.space->options().pe_step;
  j["buffers"] = buffer_mode_name(c.space->options().buffers);
  j["objective"] = a.objective;
  j["budget"] = a.budget;
  j["seed"] = a.seed;
  j["wall_s"] = c.codesign_wall_s;
  j["distinct_layers"] = c.space->unique_layers();
  j["bo_sample_cap"] = search::kBoSampleCap;
  json bj = json::object();
  for (const auto& b : c.baselines) bj[b.name] = baseline_json(b);
  j["baselines"] = bj;
  const BaselineOutcome* best = best_baseline(c, "", false);
  if (best && c.codesign.design.feasible) {
    j["best_baseline"] = best->name;
    j["speedup_over_best_baseline"] =
        static_cast<double>(best->runtime_cycles) / c.codesign.design.runtime_cycles;
  }
  j["compute_bound_cycles"] = compute_bound_cycles(*c.space);
  j["utilisation_bound_cycles"] = utilisation_bound_cycles(*c.space);
  return j;
}

json to_json(const Result& r) {
  const Options& a = r.options;
  if (!a.table) return case_json(a, r.cases.at(0));
  json cases = json::array();
  for (const CaseOutcome& c : r.cases) cases.push_back(case_json(a, c));
  json geo = json::object();
  for (size_t k = 0; k < r.budgets.size(); ++k) {
    const Geomeans g = geomeans(r, k);
    geo[r.budgets[k].name] = {{"speedup_over_best_baseline", g.all},
                              {"speedup_over_fixed_gamma", g.fixed},
                              {"speedup_over_fixed_gamma_seeds", g.seeded},
                              {"speedup_over_best_optimiser", g.optimiser},
                              {"bound_over_best_baseline", g.bound}};
  }
  return {{"budget", a.budget},       {"seed", a.seed},
          {"objective", a.objective}, {"bo_sample_cap", search::kBoSampleCap},
          {"cases", cases},           {"geomean", geo}};
}

}  // namespace sparsemap::dse::codesign
