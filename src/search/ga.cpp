// The genetic algorithm: a population, elitism, truncation + tournament parents, crossover and
// mutation through GeneticOperators (generic by default; GAMMA's from dse/mapper).
#include <algorithm>
#include <cmath>

#include "optimizer_internal.h"
#include "sparsemap/error.h"

namespace sparsemap::search::detail {
namespace {

using nlohmann::json;

// Generations without a fixed batch:
// - the first generation is the first P candidates told (the seeds, then uniform points);
// - after it, every asked candidate is a child of the current population: two parents, each
//   the better of two drawn uniformly from the best `parent_fraction` of the population
//   (truncation, then a binary tournament); with probability crossover_rate the child is
//   ops.crossover(a, b), else a copy of a; then ops.mutate(child, mutation_rate); genes are
//   clipped into [0, 1);
// - told children gather in a pool; once it holds P - E of them (E = round(elite_fraction P)
//   elites), the next population is the best P of the E elites and the pool (ties keep order).
// So ask(P - E) per step gives the textbook generational GA with elitism, and any other batch
// size gives a deterministic steady variant.
class GeneticAlgorithm final : public OptimizerBase {
 public:
  GeneticAlgorithm(size_t dims, const OptimizerOptions& o,
                   std::shared_ptr<const GeneticOperators> ops)
      : OptimizerBase("ga", dims, o, ops ? ops->seeds() : std::vector<Genome>{}),
        options_(o.ga),
        ops_(ops ? std::move(ops) : std::make_shared<GeneticOperators>()) {
    size_ = std::max<size_t>(2, options_.population);
    elites_ = std::min(
        size_ - 1,
        static_cast<size_t>(std::llround(std::max(0.0, options_.elite_fraction) * double(size_))));
    parents_ = std::min(
        size_, std::max<size_t>(2, static_cast<size_t>(std::llround(
                                       std::max(0.0, options_.parent_fraction) * double(size_)))));
  }

 protected:
  void propose(size_t k, std::vector<Genome>& out) override {
    propose_each(k, out, [](size_t) {});
  }
  void propose_each(size_t k, std::vector<Genome>& out,
                    const std::function<void(size_t)>& made) override {
    for (size_t i = 0; i < k; ++i) {
      if (population_.empty()) {
        out.push_back(random_genome(dims_, rng_));
        made(out.size() - 1);
        continue;
      }
      const Genome& a = pick_parent();
      const Genome& b = pick_parent();
      Genome child = uniform01(rng_) < options_.crossover_rate ? ops_->crossover(a, b, rng_) : a;
      ops_->mutate(child, options_.mutation_rate, rng_);
      SPARSEMAP_ASSERT(child.size() == dims_);
      for (double& v : child) v = clip_gene(v);
      out.push_back(std::move(child));
      made(out.size() - 1);
    }
  }

  void observe(const std::vector<Genome>& xs, const std::vector<double>& f, size_t) override {
    for (size_t i = 0; i < xs.size(); ++i) pool_.push_back({xs[i], f[i]});
    if (population_.empty()) {
      if (pool_.size() < size_) return;
      next_generation({});
    } else if (pool_.size() >= size_ - elites_) {
      next_generation(std::vector<Scored>(population_.begin(), population_.begin() + elites_));
    }
  }

  json save_state() const override {
    return json{{"population", scored_to_json(population_)},
                {"pool", scored_to_json(pool_)},
                {"generation", generation_}};
  }
  void load_state(const json& j) override {
    std::vector<Scored> population = scored_from_json(j, "population", dims_);
    std::vector<Scored> pool = scored_from_json(j, "pool", dims_);
    require_state(population.empty() || population.size() == size_,
                  "the population size differs from the options");
    require_state(j.contains("generation") && j["generation"].is_number_integer(),
                  "no 'generation'");
    population_ = std::move(population);
    pool_ = std::move(pool);
    generation_ = j["generation"].get<int64_t>();
  }

 private:
  const Genome& pick_parent() {
    const size_t i = uniform_index(rng_, parents_);
    const size_t j = uniform_index(rng_, parents_);
    return population_[std::min(i, j)].x;  // sorted: the lower index is the fitter
  }

  void next_generation(std::vector<Scored> next) {
    next.insert(next.end(), pool_.begin(), pool_.end());
    pool_.clear();
    sort_scored(next);
    if (next.size() > size_) next.resize(size_);
    population_ = std::move(next);
    ++generation_;
  }

  GaOptions options_;
  std::shared_ptr<const GeneticOperators> ops_;
  size_t size_, elites_, parents_;
  std::vector<Scored> population_;  // sorted by fitness; empty before the first generation
  std::vector<Scored> pool_;        // told children of the generation being built
  int64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Optimizer> make_ga(size_t dims, const OptimizerOptions& o) {
  return std::make_unique<GeneticAlgorithm>(dims, o, o.ga.ops);
}

}  // namespace sparsemap::search::detail
