// Co-design on a Timeloop template (include/sparsemap/dse/timeloop/codesign.h).
#include "sparsemap/dse/timeloop/codesign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>

#include "sparsemap/arch/area.h"
#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"

namespace sparsemap::dse::timeloop {
namespace {

// The instances and mesh of the level below storage level i (the compute units below the last).
const arch::ComputeLevel* compute_below(const arch::Hierarchy& h, int i) {
  return i + 1 < static_cast<int>(h.storage.size()) ? nullptr : &h.compute;
}
int64_t below_mesh(const arch::Hierarchy& h, int i, bool x) {
  const arch::ComputeLevel* c = compute_below(h, i);
  if (c) return x ? c->mesh_x : c->mesh_y;
  return x ? h.storage[i + 1].mesh_x : h.storage[i + 1].mesh_y;
}

// Gene -> index into a list of n choices.
size_t pick(double gene, size_t n) {
  return std::min(n - 1, static_cast<size_t>(gene * static_cast<double>(n)));
}

double objective_of(const NetworkResult& r, Metric m) {
  return m == Metric::kDelay    ? static_cast<double>(r.cycles)
         : m == Metric::kEnergy ? r.energy_pj
                                : r.edp();
}

}  // namespace

TemplateSpace::TemplateSpace(const arch::Hierarchy& h, const arch::AreaTable& art)
    : h_(h), art_(art) {
  const int n = static_cast<int>(h.storage.size());
  // Mesh knobs only where the template's meshes nest exactly (instances = meshX x meshY, each
  // level's mesh a multiple of the one above), so a new fan-out can be applied top-down.
  bool nested = true;
  for (int i = 0; i < n; ++i) {
    const auto& s = h.storage[i];
    nested = nested && s.instances == s.mesh_x * s.mesh_y &&
             below_mesh(h, i, true) % s.mesh_x == 0 && below_mesh(h, i, false) % s.mesh_y == 0;
  }
  nested = nested && h.compute.instances == h.compute.mesh_x * h.compute.mesh_y;
  for (int i = 0; i < n && nested; ++i) {
    const auto& s = h.storage[i];
    if (below_mesh(h, i, true) / s.mesh_x > 1) knobs_.push_back({Knob::kMeshX, i});
    if (below_mesh(h, i, false) / s.mesh_y > 1) knobs_.push_back({Knob::kMeshY, i});
  }
  for (int i = 1; i < n; ++i)
    if (!h.storage[i].dummy && h.storage[i].depth > 0) knobs_.push_back({Knob::kDepth, i});
}

Candidate TemplateSpace::build(const std::vector<int64_t>& fan_x, const std::vector<int64_t>& fan_y,
                               const std::vector<double>& depth_scale) const {
  Candidate c{h_, art_, 0};
  arch::Hierarchy& h = c.hierarchy;
  const int n = static_cast<int>(h.storage.size());
  for (int i = 0; i < n; ++i) {
    // The level below takes this level's mesh times its fan-out.
    const int64_t mx = h.storage[i].mesh_x * fan_x[i], my = h.storage[i].mesh_y * fan_y[i];
    if (i + 1 < n) {
      h.storage[i + 1].mesh_x = mx;
      h.storage[i + 1].mesh_y = my;
      h.storage[i + 1].instances = mx * my;
    } else {
      h.compute.mesh_x = mx;
      h.compute.mesh_y = my;
      h.compute.instances = mx * my;
    }
    if (depth_scale[i] != 1.0) {
      const int64_t old_depth = h.storage[i].depth;
      h.storage[i].depth =
          std::max<int64_t>(1, std::llround(static_cast<double>(old_depth) * depth_scale[i]));
      for (auto& comp : c.art.components)
        if (arch::component_base_name(comp.name) == h.storage[i].name)
          comp.area_um2 *= static_cast<double>(h.storage[i].depth) / static_cast<double>(old_depth);
    }
  }
  c.area_um2 = arch::area_um2(h, c.art);
  return c;
}

Candidate TemplateSpace::base() const {
  const int n = static_cast<int>(h_.storage.size());
  std::vector<int64_t> fx(n), fy(n);
  for (int i = 0; i < n; ++i) {
    fx[i] = std::max<int64_t>(1, below_mesh(h_, i, true) / h_.storage[i].mesh_x);
    fy[i] = std::max<int64_t>(1, below_mesh(h_, i, false) / h_.storage[i].mesh_y);
  }
  Candidate c =
      knobs_.empty() ? Candidate{h_, art_, 0} : build(fx, fy, std::vector<double>(n, 1.0));
  c.area_um2 = arch::area_um2(c.hierarchy, c.art);
  return c;
}

std::vector<double> TemplateSpace::base_genome() const {
  std::vector<double> g(std::max<size_t>(1, knobs_.size()), 0.5);
  const auto gene = [](size_t index, size_t n) { return (static_cast<double>(index) + 0.5) / n; };
  for (size_t k = 0; k < knobs_.size(); ++k) {
    const Knob& kb = knobs_[k];
    if (kb.kind == Knob::kDepth) {
      g[k] = gene(std::size(kDepthScales) - 1, std::size(kDepthScales));  // scale 1
      continue;
    }
    const bool x = kb.kind == Knob::kMeshX;
    const int64_t fan = below_mesh(h_, kb.level, x) /
                        (x ? h_.storage[kb.level].mesh_x : h_.storage[kb.level].mesh_y);
    const auto* it = std::min_element(
        std::begin(kMeshChoices), std::end(kMeshChoices),
        [&](int64_t a, int64_t b) { return std::llabs(a - fan) < std::llabs(b - fan); });
    g[k] = gene(static_cast<size_t>(it - std::begin(kMeshChoices)), std::size(kMeshChoices));
  }
  return g;
}

Candidate TemplateSpace::decode(const std::vector<double>& g) const {
  const int n = static_cast<int>(h_.storage.size());
  std::vector<int64_t> fx(n), fy(n);
  for (int i = 0; i < n; ++i) {
    fx[i] = std::max<int64_t>(1, below_mesh(h_, i, true) / h_.storage[i].mesh_x);
    fy[i] = std::max<int64_t>(1, below_mesh(h_, i, false) / h_.storage[i].mesh_y);
  }
  std::vector<double> scale(n, 1.0);
  for (size_t k = 0; k < knobs_.size(); ++k) {
    const Knob& kb = knobs_[k];
    if (kb.kind == Knob::kDepth)
      scale[kb.level] = kDepthScales[pick(g[k], std::size(kDepthScales))];
    else
      (kb.kind == Knob::kMeshX ? fx : fy)[kb.level] =
          kMeshChoices[pick(g[k], std::size(kMeshChoices))];
  }
  return build(fx, fy, scale);
}

CodesignResult codesign(const std::vector<NetworkLayer>& layers, const arch::Hierarchy& h,
                        const arch::EnergyTable* ert, const arch::AreaTable& art,
                        const CodesignOptions& o,
                        const std::function<void(int64_t, int64_t)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (!(o.area_budget_um2 > 0))
    throw InputError({"<flag --area-budget-um2>"}, "expected a positive area budget");
  if (o.designs < 1) throw InputError({"<flag --budget>"}, "expected at least one design");
  const TemplateSpace space(h, art);
  CodesignResult r;
  r.base = space.base();
  std::atomic<int64_t> evaluations{0}, feasible{0};
  const search::Evaluator::Fitness fitness = [&](const search::Genome& g) {
    if (o.stop && o.stop()) return search::kInfeasible;  // the run is being cancelled
    const Candidate c = space.decode(g);
    if (c.area_um2 > o.area_budget_um2) return search::kInfeasible;
    try {
      const NetworkResult net = map_network(layers, c.hierarchy, ert, o.network);
      evaluations += net.evaluations;
      if (!net.all_found) return search::kInfeasible;
      ++feasible;
      return objective_of(net, o.objective);
    } catch (const InputError&) {
      return search::kInfeasible;  // a constraint the candidate's fan-outs cannot meet
    }
  };
  search::OptimizerOptions oo;
  oo.seed = o.seed;
  oo.budget = o.designs;
  oo.ga.population = static_cast<size_t>(std::clamp<int64_t>(o.designs / 10, 8, 40));
  oo.seeds = {space.base_genome()};  // the template first (counted)
  auto opt = search::make_optimizer(o.algo, std::max<size_t>(1, space.genes()), oo);
  search::SearchOptions so;
  so.budget = o.designs;
  so.batch = oo.ga.population;
  so.progress = [&](int64_t done, double) {
    if (progress) progress(done, o.designs);
  };
  const auto res = search::run_search(*opt, search::Evaluator(o.threads, false), fitness, so);
  r.designs = res.samples;
  if (res.best_fitness >= search::kInfeasible)
    throw InputError({"<flag --area-budget-um2>"},
                     "no candidate within the area budget maps every layer: expected a larger "
                     "budget or more designs");
  r.best = space.decode(res.best);
  NetworkOptions final_options = o.network;
  if (o.final_budget > 0) final_options.mapper.budget = o.final_budget;
  // The final mappings report the finished search again after each batch: the caller's
  // progress reports are where a cancellation is seen.
  const NetworkProgress again = [&](size_t, size_t, int64_t, int64_t, double) {
    if (progress) progress(r.designs, o.designs);
  };
  r.base_network = map_network(layers, r.base.hierarchy, ert, final_options, again);
  r.best_network = map_network(layers, r.best.hierarchy, ert, final_options, again);
  r.feasible = feasible;
  r.evaluations = evaluations + r.base_network.evaluations + r.best_network.evaluations;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace sparsemap::dse::timeloop
