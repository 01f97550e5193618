// The mapper on Timeloop's map space (include/sparsemap/dse/timeloop/mapper.h).
#include "sparsemap/dse/timeloop/mapper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "sparsemap/error.h"
#include "sparsemap/search/driver.h"
#include "sparsemap/search/mpi.h"

namespace sparsemap::dse::timeloop {
namespace {

// GAMMA's operators on the map space's genome groups (MapSpace::Layout):
// - crossover: the child takes each dimension's factor and axis genes from one parent, each
//   level's order genes from one parent, and each keep gene from either (1/2 each);
// - mutate: each factor gene resampled with probability rate; per level with probability rate
//   two order genes swapped; each axis and keep gene flipped with probability rate / 2; when
//   nothing fired, one factor gene (or, without any, one order swap) changes, so a child never
//   repeats its parent.
class Operators : public search::GeneticOperators {
 public:
  Operators(MapSpace::Layout l, std::vector<search::Genome> seeds)
      : l_(std::move(l)), seeds_(std::move(seeds)), genes_of_dim_(static_cast<size_t>(l_.dims)) {
    for (size_t j = 0; j < l_.factor_dim.size(); ++j)
      genes_of_dim_[static_cast<size_t>(l_.factor_dim[j])].push_back(j);
    for (size_t j = 0; j < l_.axis.size(); ++j)
      genes_of_dim_[static_cast<size_t>(l_.axis[j].second)].push_back(l_.axis_base + j);
  }

  search::Genome crossover(const search::Genome& a, const search::Genome& b,
                           search::Rng& rng) const override {
    std::bernoulli_distribution coin(0.5);
    search::Genome c = a;
    for (int k = 0; k < l_.dims; ++k)
      if (coin(rng))
        for (const size_t j : genes_of_dim_[static_cast<size_t>(k)]) c[j] = b[j];
    for (int i = 0; i < l_.levels; ++i)
      if (coin(rng))
        for (int k = 0; k < l_.dims; ++k) {
          const size_t at = l_.order_base + static_cast<size_t>(i) * l_.dims + k;
          c[at] = b[at];
        }
    for (size_t j = 0; j < l_.keep.size(); ++j)
      if (coin(rng)) c[l_.keep_base + j] = b[l_.keep_base + j];
    return c;
  }

  void mutate(search::Genome& g, double rate, search::Rng& rng) const override {
    std::uniform_real_distribution<double> u(0.0, search::kGeneMax);
    std::bernoulli_distribution fire(rate), half(rate / 2);
    bool fired = false;
    for (size_t j = 0; j < l_.factor_dim.size(); ++j)
      if (fire(rng)) {
        g[j] = u(rng);
        fired = true;
      }
    std::uniform_int_distribution<int> dim(0, std::max(0, l_.dims - 1));
    auto swap_order = [&](int i) {
      const size_t base = l_.order_base + static_cast<size_t>(i) * l_.dims;
      std::swap(g[base + dim(rng)], g[base + dim(rng)]);
    };
    for (int i = 0; i < l_.levels; ++i)
      if (fire(rng)) {
        swap_order(i);
        fired = true;
      }
    auto flip = [&](size_t at) { g[at] = g[at] < 0.5 ? g[at] + 0.5 : g[at] - 0.5; };
    for (size_t j = 0; j < l_.axis.size(); ++j)
      if (half(rng)) flip(l_.axis_base + j), fired = true;
    for (size_t j = 0; j < l_.keep.size(); ++j)
      if (half(rng)) flip(l_.keep_base + j), fired = true;
    if (fired) return;
    if (!l_.factor_dim.empty()) {
      g[std::uniform_int_distribution<size_t>(0, l_.factor_dim.size() - 1)(rng)] = u(rng);
    } else if (l_.levels > 0) {
      swap_order(std::uniform_int_distribution<int>(0, l_.levels - 1)(rng));
    }
  }

  std::vector<search::Genome> seeds() const override { return seeds_; }

 private:
  MapSpace::Layout l_;
  std::vector<search::Genome> seeds_;
  std::vector<std::vector<size_t>> genes_of_dim_;  // [dim]: its factor and axis genes
};

double metric_value(const cost::LoopNestSummary& s, Metric m) {
  switch (m) {
    case Metric::kDelay:
      return static_cast<double>(s.cycles);
    case Metric::kEnergy:
      return s.energy_pj;
    case Metric::kEdp:
      return static_cast<double>(s.cycles) * s.energy_pj;
  }
  return 0;
}

// Footprint of a whole data space in words (its projection over the full bounds).
int64_t tensor_words(const workload::Einsum& p, const workload::DataSpace& ds) {
  int64_t size = 1;
  for (const auto& axis : ds.projection) {
    int64_t len = 1;
    for (const auto& t : axis) len += p.coefficient(t) * (p.bound(t.dim) - 1);
    size *= len;
  }
  return size;
}

}  // namespace

Metric parse_metric(const std::string& name, const std::string& where) {
  if (name == "delay" || name == "cycles") return Metric::kDelay;
  if (name == "energy") return Metric::kEnergy;
  if (name == "edp") return Metric::kEdp;
  throw InputError(
      {where}, "expected an optimization metric delay, energy or edp, found " + quote_input(name));
}

std::string metric_name(Metric m) {
  return m == Metric::kDelay ? "delay" : m == Metric::kEnergy ? "energy" : "edp";
}

double fitness(const cost::LoopNestSummary& s, const std::vector<Metric>& metrics,
               const LowerBound& scale) {
  if (!s.ok() || metrics.empty()) return search::kInfeasible;
  const double v0 = metric_value(s, metrics[0]);
  if (metrics.size() == 1) return v0;
  // The second metric mapped into [0, 1) around its bound: t = v1 / (v1 + bound).
  const double v1 = metric_value(s, metrics[1]);
  cost::LoopNestSummary b;
  b.cycles = std::max<int64_t>(1, scale.cycles);
  b.energy_pj = scale.energy_pj > 0 ? scale.energy_pj : 1.0;
  const double t = v1 / (v1 + metric_value(b, metrics[1]));
  // Cycles are whole: a tie-break below 1/2 never reorders two delays. Otherwise a relative
  // 1e-12 (far below any difference a search can act on).
  return metrics[0] == Metric::kDelay ? v0 + 0.5 * t : v0 * (1.0 + 1e-12 * t);
}

LowerBound lower_bound(const workload::Einsum& p, const arch::Hierarchy& h,
                       const arch::EnergyTable* ert) {
  LowerBound b;
  const int64_t macs = p.operations();
  const int64_t units = std::max<int64_t>(1, h.compute.instances);
  b.cycles = (macs + units - 1) / units;
  auto action = [&](const std::string& component, const char* name, const char* fallback) {
    const arch::ComponentEnergy* c = ert ? ert->find(component) : nullptr;
    if (!c) return 0.0;
    if (auto e = c->energy_pj(name)) return *e;
    if (fallback)
      if (auto e = c->energy_pj(fallback)) return *e;
    return 0.0;
  };
  b.energy_pj = static_cast<double>(macs) * action(h.compute.name, "compute", nullptr);
  if (h.storage.empty()) return b;
  // The outermost level reads every input word once and takes every output word once.
  const arch::StorageLevel& top = h.storage[0];
  int64_t reads = 0, writes = 0;
  const int64_t block = std::max<int64_t>(1, top.block_size);
  for (const auto& ds : p.data_spaces) {
    const int64_t words = tensor_words(p, ds);
    (ds.read_write ? writes : reads) += words;
    b.energy_pj +=
        static_cast<double>((words + block - 1) / block) *
        (ds.read_write ? action(top.name, "update", "write") : action(top.name, "read", nullptr));
  }
  double t = 0;
  if (top.read_bandwidth > 0) t = std::max(t, reads / top.read_bandwidth);
  if (top.write_bandwidth > 0) t = std::max(t, writes / top.write_bandwidth);
  if (top.shared_bandwidth > 0) t = std::max(t, (reads + writes) / top.shared_bandwidth);
  b.cycles = std::max(b.cycles, static_cast<int64_t>(std::ceil(t - 1e-9)));
  return b;
}

namespace {

// The best point so far of one problem's map space: the lowest fitness, the first visited on a
// tie (so the result does not depend on how evaluations are split).
struct Best {
  double fitness = search::kInfeasible;
  MapSpace::Decoded point;
};

// Points enumerated are evaluated in batches of this many when threads or ranks share them.
constexpr size_t kScanBatch = 4096;

// Every point of `space` when it has at most o.exhaustive_limit of them: true (r.evaluations and
// r.space_points set, `best` updated); false, nothing evaluated, when it has more.
bool scan(const MapSpace& space, const cost::LoopNestEvaluator& model, const MapperOptions& o,
          MapperResult& r, Best& best) {
  const search::Evaluator eval(o.threads, o.use_mpi);
  const auto value = [&](const MapSpace::Decoded& d, cost::LoopNestWorkspace& ws) {
    return d.feasible ? fitness(model.evaluate_well_formed(d.point, ws), o.metrics, r.bound)
                      : search::kInfeasible;
  };
  std::vector<MapSpace::Decoded> batch;
  auto flush = [&] {
    const std::vector<double> f = eval.evaluate_indexed(batch.size(), [&](size_t i) {
      thread_local cost::LoopNestWorkspace ws;
      return value(batch[i], ws);
    });
    for (size_t i = 0; i < batch.size(); ++i)
      if (f[i] < best.fitness) best = {f[i], std::move(batch[i])};
    r.evaluations += static_cast<int64_t>(batch.size());
    batch.clear();
    if (o.progress) o.progress(r.evaluations, 0, best.fitness);
  };
  const bool shared = eval.threads() > 1 || (o.use_mpi && search::mpi_size() > 1);
  cost::LoopNestWorkspace ws;
  const bool small = space.enumerate(o.exhaustive_limit, [&](const MapSpace::Decoded& d) {
    if (shared) {
      batch.push_back(d);
      if (batch.size() == kScanBatch) flush();
      return true;
    }
    ++r.evaluations;
    const double f = value(d, ws);
    if (f < best.fitness) best = {f, d};
    if (o.progress && r.evaluations % kScanBatch == 0) o.progress(r.evaluations, 0, best.fitness);
    return true;
  });
  if (!batch.empty())
    flush();
  else if (o.progress && small)
    o.progress(r.evaluations, 0, best.fitness);
  if (small) r.space_points = static_cast<uint64_t>(r.evaluations);
  return small;
}

// The optimiser `algo` names on the space's genome ("gamma": the GA with the map space's
// operators); `batch` set to the step it asks for.
std::unique_ptr<search::Optimizer> make_optimizer(const std::string& algo, const MapSpace& space,
                                                  const MapperOptions& o, size_t& batch) {
  search::OptimizerOptions oo;
  oo.seed = o.seed;
  oo.budget = o.budget;
  oo.seeds = o.warm;
  oo.population = o.population;
  batch = 64;
  if (algo != "gamma") return search::make_optimizer(algo, space.genes(), oo);
  oo.ga.population = o.population
                         ? o.population
                         : static_cast<size_t>(std::clamp<int64_t>(o.budget / 25, 20, 100));
  oo.ga.mutation_rate = o.mutation_rate;
  oo.ga.ops = std::make_shared<Operators>(space.layout(), std::vector<search::Genome>{});
  const size_t elites = static_cast<size_t>(
      std::llround(oo.ga.elite_fraction * static_cast<double>(oo.ga.population)));
  batch = std::max<size_t>(1, oo.ga.population - elites);
  return search::make_optimizer("ga", space.genes(), oo);
}

// A budgeted search of the space (checkpointed and resumed as the options say).
void search_space(const MapSpace& space, const cost::LoopNestEvaluator& model,
                  const MapperOptions& o, MapperResult& r, Best& best) {
  size_t batch = 64;
  const std::unique_ptr<search::Optimizer> opt = make_optimizer(r.algo, space, o, batch);
  search::SearchOptions so;
  so.budget = o.budget;
  so.batch = batch;
  so.checkpoint_file = o.checkpoint_file;
  so.checkpoint_every = o.checkpoint_every;
  so.resume_file = o.checkpoint_file;
  if (o.progress) so.progress = [&o](int64_t n, double best) { o.progress(n, o.budget, best); };
  nlohmann::json state;
  const bool resume =
      o.resume && !o.checkpoint_file.empty() && std::filesystem::exists(o.checkpoint_file);
  if (resume) state = search::read_checkpoint(o.checkpoint_file);
  const search::Evaluator eval(o.threads, o.use_mpi);
  const auto res = search::run_search(
      *opt, eval,
      [&](const search::Genome& g) {
        thread_local cost::LoopNestWorkspace ws;
        thread_local MapSpace::Decoded d;
        space.decode(g, d);
        return d.feasible ? fitness(model.evaluate_well_formed(d.point, ws), o.metrics, r.bound)
                          : search::kInfeasible;
      },
      so, resume ? &state : nullptr);
  r.evaluations = res.samples;
  if (res.best_fitness < search::kInfeasible) {
    best = {res.best_fitness, space.decode(res.best)};
    r.genome = res.best;
  }
}

}  // namespace

MapperResult map_problem(const workload::Einsum& p, const arch::Hierarchy& h,
                         const arch::EnergyTable* ert, const MapperOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const MapSpace space(p, h);
  const cost::LoopNestEvaluator model(p, h, ert);
  if (const std::string why = model.problem_error(); !why.empty())
    throw InputError({"<problem>"}, why);
  MapperResult r;
  r.bound = lower_bound(p, h, ert);
  Best best;
  if (o.algo == "exhaustive" || o.algo == "auto") {
    if (scan(space, model, o, r, best))
      r.algo = "exhaustive";
    else if (o.algo == "exhaustive")
      throw InputError({"<flag --algo>"}, "the map space has over " +
                                              std::to_string(o.exhaustive_limit) +
                                              " points: expected a search (gamma, ga, ...)");
  }
  if (r.algo.empty()) {
    r.algo = o.algo == "auto" ? "gamma" : o.algo;
    search_space(space, model, o, r, best);
  }
  if (best.fitness < search::kInfeasible) {
    r.found = true;
    r.result = model.evaluate_full(best.point.point);
    r.mapping = space.to_mapping(best.point);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

MapperResult evaluate_genome(const workload::Einsum& p, const arch::Hierarchy& h,
                             const arch::EnergyTable* ert, const search::Genome& g) {
  const MapSpace space(p, h);
  const cost::LoopNestEvaluator model(p, h, ert);
  MapperResult r;
  r.bound = lower_bound(p, h, ert);
  if (g.empty()) return r;
  const MapSpace::Decoded d = space.decode(g);
  if (!d.feasible || !model.usable()) return r;
  r.result = model.evaluate_full(d.point);
  r.found = r.result.ok();
  r.mapping = space.to_mapping(d);
  r.genome = g;
  return r;
}

}  // namespace sparsemap::dse::timeloop
