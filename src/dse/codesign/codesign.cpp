// Co-design searches: DiGamma and the baselines on the joint genome, the fixed-grid + GAMMA
// baseline, and the JSON of a design.
#include "sparsemap/dse/codesign/codesign.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/dse/mapper/spatial.h"
#include "sparsemap/error.h"

namespace sparsemap::dse::codesign {
namespace {

using nlohmann::json;

// Non-dominated (area, latency) points: smaller is better in both.
class ParetoFront {
 public:
  void add(double area, int64_t latency) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& p : pts_)
      if (p.first <= area && p.second <= latency) return;  // dominated or equal
    pts_.erase(std::remove_if(pts_.begin(), pts_.end(),
                              [&](const std::pair<double, int64_t>& p) {
                                return area <= p.first && latency <= p.second;
                              }),
               pts_.end());
    pts_.emplace_back(area, latency);
  }
  std::vector<std::pair<double, int64_t>> sorted() const {
    std::lock_guard<std::mutex> lock(mu_);
    auto v = pts_;
    std::sort(v.begin(), v.end());
    return v;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<double, int64_t>> pts_;
};

// The most PEs (a multiple of pe_step, <= pe_limit) whose area without SRAM is within
// `area_mm2` (pe_step at least).
int64_t most_pes(const CodesignSpace& sp, double area_mm2) {
  const CodesignOptions& o = sp.options();
  int64_t pes = (o.pe_limit / o.pe_step) * o.pe_step;
  while (pes > o.pe_step && sp.area(pes, 0, 0) > area_mm2) pes -= o.pe_step;
  return pes;
}

}  // namespace

const std::vector<std::string>& codesign_algos() {
  static const std::vector<std::string> a = {"digamma", "ga",    "random",     "sa", "de",
                                             "pso",     "cmaes", "oneplusone", "bo"};
  return a;
}

std::unique_ptr<search::Optimizer> make_codesign_optimizer(
    const std::shared_ptr<const CodesignSpace>& space, const std::string& algo, int64_t budget,
    uint64_t seed, size_t population, size_t* batch, std::shared_ptr<EvalRecords>* records) {
  const auto& names = codesign_algos();
  if (std::find(names.begin(), names.end(), algo) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError({"<flag --algo>", 0, 0},
                     "unknown co-design algorithm '" + algo + "'; expected one of: " + list);
  }
  records->reset();
  if (algo == "digamma")
    return make_digamma_search(space, budget, seed, population, batch, records);
  search::OptimizerOptions oo;
  oo.seed = seed;
  oo.budget = budget;
  oo.ga.population =
      population ? population : static_cast<size_t>(std::clamp<int64_t>(budget / 20, 20, 100));
  const size_t elites = static_cast<size_t>(
      std::llround(oo.ga.elite_fraction * static_cast<double>(oo.ga.population)));
  *batch = 64;
  if (algo == "ga") *batch = std::max<size_t>(1, oo.ga.population - elites);
  return search::make_optimizer(algo, space->dims(), oo);
}

double design_objective(mapper::Objective o, int64_t runtime_cycles, double energy_nj,
                        int64_t macs) {
  const double rt = static_cast<double>(runtime_cycles);
  switch (o) {
    case mapper::Objective::Latency:
      return rt;
    case mapper::Objective::Energy:
      return energy_nj;
    case mapper::Objective::Edp:
      return rt * energy_nj;
    case mapper::Objective::Throughput:
      return rt / static_cast<double>(std::max<int64_t>(1, macs));
  }
  return kPenalty;
}

CodesignResult run_codesign(const std::shared_ptr<const CodesignSpace>& space,
                            const RunOptions& o) {
  if (o.budget < 1 || o.budget > search::kMaxBudget)
    throw InputError({"<flag --budget>", 0, 0}, "expected a budget in [1, " +
                                                    std::to_string(search::kMaxBudget) +
                                                    "] samples, found " + std::to_string(o.budget));
  if (o.threads < 1 || o.threads > search::kMaxThreads)
    throw InputError({"<flag --threads>", 0, 0},
                     "expected 1 to " + std::to_string(search::kMaxThreads) + " threads, found " +
                         std::to_string(o.threads));
  const int64_t budget = o.algo == "bo" ? std::min(o.budget, search::kBoSampleCap) : o.budget;
  size_t batch = 64;
  std::shared_ptr<EvalRecords> records;
  auto opt = make_codesign_optimizer(space, o.algo, budget, o.seed, o.population, &batch, &records);
  ParetoFront front;
  const CodesignSpace& sp = *space;
  // One call, one counted sample (the driver counts them); digamma's operators read the
  // per-layer costs of this very evaluation from `records`, never evaluating anything else.
  std::mutex observer_mutex;
  auto fitness = [&](const search::Genome& g) {
    const auto e = sp.evaluate(g);
    if (records) records->put(g, e);
    if (e->feasible) front.add(e->area_mm2, e->runtime_cycles);
    if (o.on_evaluated) {
      std::lock_guard<std::mutex> lock(observer_mutex);
      o.on_evaluated(*e);
    }
    return e->fitness;
  };
  search::SearchOptions so;
  so.budget = budget;
  so.batch = batch;
  so.checkpoint_file = o.checkpoint_file;
  so.checkpoint_every = o.checkpoint_every;
  so.resume_file = o.checkpoint_file;
  so.checkpoint_context = {
      {"kind", "sparsemap-codesign"}, {"algo", o.algo}, {"seed", o.seed}, {"dims", sp.dims()}};
  // digamma's rounds and populations follow from its budget: a resume must keep it.
  if (o.algo == "digamma") {
    so.checkpoint_context["budget"] = budget;
    so.checkpoint_context["population"] = o.population;
  }
  so.progress = o.progress;
  json state;
  const json* resume = nullptr;
  if (o.resume) {
    if (o.checkpoint_file.empty())
      throw InputError({"<flag --resume>", 0, 0}, "expected a checkpoint file");
    if (std::filesystem::exists(o.checkpoint_file)) {
      state = search::read_checkpoint(o.checkpoint_file);
      if (state.contains("context") && state["context"] != so.checkpoint_context)
        throw InputError({o.checkpoint_file, 0, 0},
                         "the checkpoint belongs to another co-design run; resume with the same "
                         "flags");
      resume = &state;
    }
  }
  // digamma's optimiser needs every result of its batch, so under MPI each rank evaluates the
  // whole batch (same results, no speed-up from ranks); the others split it over ranks.
  const search::Evaluator eval(o.threads, records == nullptr);
  const search::SearchResult sr = search::run_search(*opt, eval, fitness, so, resume);
  CodesignResult r;
  r.algo = o.algo;
  r.samples = sr.samples;
  r.best = sr.best;
  r.history = sr.history;
  r.pareto = front.sorted();
  if (!r.best.empty()) {
    // The report of the returned design (its per-layer costs): one more cost-model call that
    // chooses nothing, so it is not a sample.
    r.design = *sp.evaluate(r.best, true);
    for (size_t u = 0; u < sp.unique_layers(); ++u) {
      const search::Genome sub(
          r.best.begin() + static_cast<std::ptrdiff_t>(sp.offset(u)),
          r.best.begin() + static_cast<std::ptrdiff_t>(sp.offset(u) + sp.map_dims()));
      r.mappings.push_back(sp.layer_space(u, r.design.pes).decode(sub));
    }
  }
  return r;
}

std::vector<arch::Arch> fixed_grid(const CodesignSpace& sp) {
  const CodesignOptions& o = sp.options();
  const double budget = o.area_budget_mm2;
  const arch::Arch& base = sp.base();
  // The most PEs leaving 1/8 of the budget for SRAM.
  const int64_t top = most_pes(sp, 0.875 * budget);
  std::vector<arch::Arch> grid;
  for (int64_t div : {4, 2, 1}) {
    const int64_t pes = std::max(o.pe_step, (top / div / o.pe_step) * o.pe_step);
    const double sram_um2 = (budget - sp.area(pes, 0, 0)) * 1e6;
    const double bytes = sram_um2 / base.area.sram_um2_per_bit / 8.0;
    for (double f : {0.25, 0.5, 0.75}) {
      const int64_t l1 = std::max<int64_t>(1, static_cast<int64_t>(f * bytes / pes));
      const int64_t l2 = std::max<int64_t>(1, static_cast<int64_t>((1 - f) * bytes) - 1);
      arch::Arch a = sp.arch_for(pes, l1, l2);
      a.name = "grid-" + std::to_string(pes) + "pe-l1-" + std::to_string(l1) + "-l2-" +
               std::to_string(l2);
      if (sp.area(pes, l1, l2) <= budget) grid.push_back(a);
    }
  }
  return grid;
}

FixedResult run_fixed_gamma(const CodesignSpace& sp, int64_t budget, uint64_t seed, int threads,
                            size_t spatial_seeds) {
  FixedResult best;
  const std::vector<arch::Arch> grid = fixed_grid(sp);
  best.grid_points = static_cast<int64_t>(grid.size());
  if (grid.empty()) return best;
  best.samples_per_layer = std::max<int64_t>(1, budget / best.grid_points);
  best.samples = best.samples_per_layer * best.grid_points;
  for (const arch::Arch& a : grid) {
    mapper::MapperOptions mo;
    mo.algo = "gamma";
    mo.budget = best.samples_per_layer;
    mo.seed = seed;
    mo.threads = threads;
    mo.objective = sp.options().objective;
    mo.space = sp.options().space;
    mo.spatial_seeds = spatial_seeds;  // counted samples inside mo.budget
    const mapper::ModelOutcome out = mapper::map_layers(sp.model_layers(), a, mo);
    int64_t rt = 0, macs = 0;
    double en = 0;
    bool ok = true;
    for (const auto& lo : out.layers) {
      ok = ok && lo.cost.ok();
      rt += lo.cost.runtime_cycles;
      en += lo.cost.energy_nj;
      macs += lo.layer.macs();
    }
    if (!ok) continue;
    const double f = design_objective(sp.options().objective, rt, en, macs);
    if (f < best.fitness) {
      best.fitness = f;
      best.best_arch = a;
      best.runtime_cycles = rt;
      best.energy_nj = en;
      best.area_mm2 = arch::area_mm2(a);
    }
  }
  return best;
}

namespace {
// Sum over layers of max(compute, compulsory off-chip cycles), compute given P (bounds below).
template <typename Compute>
int64_t bound_with(const CodesignSpace& sp, Compute compute) {
  const int64_t pes = most_pes(sp, sp.options().area_budget_mm2);
  const double bw = sp.base().offchip_words_per_cycle;  // arch::validate: > 0
  int64_t cycles = 0;
  for (const workload::Layer& l : sp.model_layers()) {
    const double words = static_cast<double>(l.input_elems() + l.weight_elems() + l.output_elems());
    const auto offchip = static_cast<int64_t>(std::ceil(words / bw));
    cycles += std::max(compute(l, pes), offchip);
  }
  return cycles;
}
}  // namespace

int64_t compute_bound_cycles(const CodesignSpace& sp) {
  return bound_with(
      sp, [](const workload::Layer& l, int64_t pes) { return (l.macs() + pes - 1) / pes; });
}

int64_t utilisation_bound_cycles(const CodesignSpace& sp) {
  return bound_with(sp, mapper::utilisation_bound_cycles);
}

json design_json(const CodesignSpace& sp, const CodesignResult& r) {
  const DesignEval& d = r.design;
  json layers = json::array();
  const auto& model = sp.model_layers();
  for (size_t i = 0; i < model.size(); ++i) {
    const size_t u = sp.layer_index()[i];
    json j = {{"name", model[i].name}, {"distinct_index", u}};
    if (u < d.layer_cost.size()) {
      const cost::Cost& c = d.layer_cost[u];
      j["status"] = std::string(cost::status_name(c.status));
      j["runtime_cycles"] = c.runtime_cycles;
      j["energy_nj"] = c.energy_nj;
      j["macs"] = c.macs;
      j["pes_used"] = c.pes_used;
      j["l1_bytes"] = c.l1_bytes;
      j["l2_bytes"] = c.l2_bytes;
      j["mapping"] = mapper::mapping_text(r.mappings[u]);
    }
    layers.push_back(j);
  }
  json front = json::array();
  for (const auto& p : r.pareto)
    front.push_back({{"area_mm2", p.first}, {"runtime_cycles", p.second}});
  return {{"algo", r.algo},
          {"samples", r.samples},
          {"feasible", d.feasible},
          {"fitness", d.fitness},
          {"accelerator",
           {{"pes", d.pes},
            {"l1_bytes", d.l1_bytes},
            {"l2_bytes", d.l2_bytes},
            {"area_mm2", d.area_mm2},
            {"power_mw", d.power_mw}}},
          {"layers", layers},
          {"total", {{"runtime_cycles", d.runtime_cycles}, {"energy_nj", d.energy_nj}}},
          {"pareto", front}};
}

}  // namespace sparsemap::dse::codesign
