// The co-design space: hardware genes, per-layer map spaces, design evaluation with a memo.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "sparsemap/cost/evaluate.h"
#include "sparsemap/dse/codesign/codesign.h"
#include "sparsemap/dse/mapper/model_mapper.h"
#include "sparsemap/error.h"
#include "sparsemap/workload/shape_key.h"

namespace sparsemap::dse::codesign {
namespace {

using workload::shape_key;

// Log-uniform size over [lo, hi]: floor(lo (hi / lo)^g), clamped.
int64_t log_size(double g, int64_t lo, int64_t hi) {
  const double v =
      std::floor(static_cast<double>(lo) * std::exp(g * std::log(static_cast<double>(hi) / lo)) *
                 (1 + 1e-12));  // so the top gene reaches hi
  return std::clamp<int64_t>(static_cast<int64_t>(v), lo, hi);
}
double log_gene(int64_t bytes, int64_t lo, int64_t hi) {
  if (bytes <= lo) return 0.0;
  if (bytes >= hi) return search::kGeneMax;
  double g = std::log(static_cast<double>(bytes) / lo) / std::log(static_cast<double>(hi) / lo);
  g = std::clamp(g, 0.0, search::kGeneMax);
  // Step up until the decoded size covers `bytes` (rounding).
  for (int i = 0; i < 64 && log_size(g, lo, hi) < bytes && g < search::kGeneMax; ++i)
    g = std::min(search::kGeneMax, g + 1e-9 + g * 1e-12);
  return g;
}

}  // namespace

uint64_t hash_genome(const search::Genome& g) {
  uint64_t h = 1469598103934665603ull;
  for (double v : g) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    h = (h ^ b) * 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

BufferMode parse_buffer_mode(const std::string& text) {
  if (text == "need") return BufferMode::Need;
  if (text == "genes") return BufferMode::Genes;
  throw InputError({"<flag --buffers>", 0, 0},
                   "unknown buffer mode '" + text + "'; expected need or genes");
}

std::string buffer_mode_name(BufferMode m) { return m == BufferMode::Need ? "need" : "genes"; }

Platform platform(const std::string& name) {
  if (name == "edge") return {"edge", 0.2, 200};
  if (name == "cloud") return {"cloud", 7.0, 16384};
  throw InputError({"<flag --platform>", 0, 0},
                   "unknown platform '" + name + "'; expected edge or cloud");
}

CodesignSpace::CodesignSpace(const std::vector<workload::Layer>& layers, const arch::Arch& base,
                             const CodesignOptions& options)
    : base_(base), options_(options) {
  if (!(options_.area_budget_mm2 > 0) || !std::isfinite(options_.area_budget_mm2))
    throw InputError({"<flag --area-budget-mm2>", 0, 0}, "expected a positive area budget");
  if (options_.pe_step < 1)
    throw InputError({"<flag --pe-step>", 0, 0}, "expected a PE step of at least 1");
  if (options_.pe_limit < options_.pe_step)
    throw InputError({"<flag --pe-limit>", 0, 0}, "expected a PE limit of at least the PE step (" +
                                                      std::to_string(options_.pe_step) + ")");
  if (area(options_.pe_step, 1, 1) > options_.area_budget_mm2)
    throw InputError(
        {"<flag --area-budget-mm2>", 0, 0},
        "the area budget does not hold even " + std::to_string(options_.pe_step) + " PEs");
  base_.name = "codesign";
  base_.source = "";
  base_.array_shape.clear();
  std::unordered_map<std::string, size_t> seen;
  for (const workload::Layer& l : layers) {
    if (!workload::is_gemm_class(l.kind)) continue;
    const std::string key = shape_key(l);
    auto it = seen.find(key);
    if (it == seen.end()) {
      it = seen.emplace(key, unique_.size()).first;
      unique_.push_back(l);
      count_.push_back(0);
    }
    ++count_[it->second];
    index_.push_back(it->second);
    model_.push_back(l);
  }
  if (unique_.empty())
    throw InputError({"<model>", 0, 0}, "the model has no GEMM-class layers to map");
  // Validates the map-space options once.
  map_dims_ = layer_space(0, options_.pe_step).dims();
  std::vector<mapper::MapSpace> spaces;
  for (size_t u = 0; u < unique_.size(); ++u) spaces.push_back(layer_space(u, options_.pe_step));
  near_.resize(unique_.size());
  for (size_t u = 0; u < unique_.size(); ++u) {
    std::vector<std::pair<double, size_t>> d;
    for (size_t v = 0; v < unique_.size(); ++v)
      if (v != u) d.emplace_back(mapper::layer_distance(spaces[u], spaces[v]), v);
    std::sort(d.begin(), d.end());
    for (size_t i = 0; i < d.size() && i < 4; ++i) near_[u].push_back(d[i].second);
  }
  dims_ = kHwGenes + map_dims_ * unique_.size();
}

int64_t CodesignSpace::pes_of(double g) const {
  const int64_t k = options_.pe_limit / options_.pe_step;
  const int64_t i = std::clamp<int64_t>(static_cast<int64_t>(std::floor(g * k)), 0, k - 1);
  return options_.pe_step * (1 + i);
}

double CodesignSpace::gene_of_pes(int64_t pes) const {
  const int64_t k = options_.pe_limit / options_.pe_step;
  const int64_t i = std::clamp<int64_t>(pes / options_.pe_step - 1, 0, k - 1);
  return (static_cast<double>(i) + 0.5) / static_cast<double>(k);
}

int64_t CodesignSpace::l1_of(double g) const { return log_size(g, kMinL1, kMaxL1); }
int64_t CodesignSpace::l2_of(double g) const { return log_size(g, kMinL2, kMaxL2); }
double CodesignSpace::gene_of_l1(int64_t b) const { return log_gene(b, kMinL1, kMaxL1); }
double CodesignSpace::gene_of_l2(int64_t b) const { return log_gene(b, kMinL2, kMaxL2); }

double CodesignSpace::area(int64_t pes, int64_t l1, int64_t l2) const {
  arch::Arch a = base_;
  a.num_pes = pes;
  a.l1_bytes = l1;
  a.l2_bytes = l2;
  return arch::area_mm2(a);
}

arch::Arch CodesignSpace::arch_for(int64_t pes, int64_t l1, int64_t l2) const {
  arch::Arch a = base_;
  a.num_pes = pes;
  a.l1_bytes = l1;
  a.l2_bytes = l2;
  return a;
}

mapper::MapSpace CodesignSpace::layer_space(size_t u, int64_t pes) const {
  return mapper::MapSpace(unique_[u], arch_for(pes, kMaxL1, kMaxL2), options_.space);
}

std::shared_ptr<const DesignEval> CodesignSpace::evaluate(const search::Genome& g,
                                                          bool with_costs) const {
  SPARSEMAP_ASSERT(g.size() == dims_);
  if (with_costs || !options_.memo) return compute(g, with_costs);
  const uint64_t h = hash_genome(g);
  {
    std::lock_guard<std::mutex> lock(memo_mu_);
    for (auto* m : {&memo_new_, &memo_old_}) {
      auto range = m->equal_range(h);
      for (auto it = range.first; it != range.second; ++it)
        if (it->second.g == g) return it->second.e;
    }
  }
  std::shared_ptr<const DesignEval> e = compute(g, false);
  std::lock_guard<std::mutex> lock(memo_mu_);
  if (memo_new_.size() >= kMemo) {
    memo_old_ = std::move(memo_new_);
    memo_new_.clear();
  }
  memo_new_.emplace(h, MemoEntry{g, e});
  return e;
}

// Evaluation of a design:
//   P from gene 0; each distinct layer's mapping decoded on P PEs and evaluated (buffers not
//   enforced: the cost model's numbers do not depend on the buffer sizes, only feasibility);
//   Need mode: L1 = max_u l1_need_u, L2 = max_u l2_need_u; Genes mode: from genes 1 and 2, and
//   a layer needing more is infeasible;
//   runtime = sum_u m_u runtime_u, energy = sum_u m_u energy_u (m_u: repeats of layer u);
//   objective: latency = runtime, energy, edp = runtime x energy; power = energy x MHz / runtime;
//   infeasible (area > budget, or a layer not Ok) -> kPenalty (1 + violation).
std::shared_ptr<const DesignEval> CodesignSpace::compute(const search::Genome& g,
                                                         bool with_costs) const {
  if (!with_costs) ++evaluations_;
  auto e = std::make_shared<DesignEval>();
  e->pes = pes_of(g[0]);
  const arch::Arch hw = arch_for(e->pes, kMaxL1, kMaxL2);
  const size_t U = unique_.size();
  e->layer_objective.assign(U, kPenalty);
  e->layer_l1.assign(U, 0);
  e->layer_l2.assign(U, 0);
  e->layer_runtime.assign(U, 0);
  e->layer_energy.assign(U, 0.0);
  if (with_costs) e->layer_cost.resize(U);
  double violation = 0;
  int64_t need_l1 = 1, need_l2 = 1;
  double energy = 0;
  int64_t runtime = 0;
  std::vector<cost::Cost> costs(U);
  for (size_t u = 0; u < U; ++u) {
    const mapper::MapSpace space(unique_[u], hw, options_.space);
    const search::Genome sub(g.begin() + static_cast<std::ptrdiff_t>(offset(u)),
                             g.begin() + static_cast<std::ptrdiff_t>(offset(u) + map_dims_));
    costs[u] = cost::evaluate(unique_[u], hw, space.decode(sub));
    const cost::Cost& c = costs[u];
    if (!c.ok()) {
      violation += 1;
      continue;
    }
    e->layer_objective[u] = mapper::objective_value(c, options_.objective);
    e->layer_l1[u] = c.l1_bytes;
    e->layer_l2[u] = c.l2_bytes;
    e->layer_runtime[u] = c.runtime_cycles;
    e->layer_energy[u] = c.energy_nj;
    need_l1 = std::max(need_l1, c.l1_bytes);
    need_l2 = std::max(need_l2, c.l2_bytes);
    runtime += count_[u] * c.runtime_cycles;
    energy += static_cast<double>(count_[u]) * c.energy_nj;
  }
  if (options_.buffers == BufferMode::Need) {
    e->l1_bytes = need_l1;
    e->l2_bytes = need_l2;
  } else {
    e->l1_bytes = l1_of(g[1]);
    e->l2_bytes = l2_of(g[2]);
    for (size_t u = 0; u < U; ++u) {
      if (!costs[u].ok()) continue;
      const double s1 = static_cast<double>(costs[u].l1_bytes) / e->l1_bytes - 1;
      const double s2 = static_cast<double>(costs[u].l2_bytes) / e->l2_bytes - 1;
      if (s1 > 0 || s2 > 0) {
        violation += 1 + std::max(0.0, s1) + std::max(0.0, s2);
        e->layer_objective[u] = kPenalty;
        costs[u].status = cost::Status::Infeasible;
        costs[u].reason = "needs more L1 or L2 than the design has";
      }
    }
  }
  e->area_mm2 = area(e->pes, e->l1_bytes, e->l2_bytes);
  if (e->area_mm2 > options_.area_budget_mm2)
    violation += e->area_mm2 / options_.area_budget_mm2 - 1;
  e->runtime_cycles = runtime;
  e->energy_nj = energy;
  e->power_mw = runtime > 0 ? energy * base_.clock_mhz / static_cast<double>(runtime) : 0.0;
  e->feasible = violation == 0;
  if (e->feasible) {
    int64_t macs = 0;
    for (size_t u = 0; u < U; ++u) macs += count_[u] * unique_[u].macs();
    e->fitness = design_objective(options_.objective, runtime, energy, macs);
  } else {
    e->fitness = kPenalty * (1 + std::min(violation, 1e6));
  }
  if (with_costs) e->layer_cost = std::move(costs);
  return e;
}

}  // namespace sparsemap::dse::codesign
