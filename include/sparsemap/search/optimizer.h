// Black-box optimisers behind one ask/tell interface (DESIGN.md, "search"). An optimiser sees
// only genomes and fitnesses, never a layer or an accelerator.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sparsemap::search {

// A candidate: `dims` genes, each in [0, 1). The formulation (dse/*) decodes genes into a
// mapping, a design or a schedule; every gene vector in the unit cube must decode to
// something (repair is the decoder's job), so optimisers never need to know constraints.
using Genome = std::vector<double>;

// Fitness: lower is better. Infeasible candidates get kInfeasible (never NaN).
inline constexpr double kInfeasible = 1e300;

// The one random engine every optimiser uses. Its state is saved in checkpoints
// (operator<< / operator>> of std::mt19937_64), so a resumed search draws the same numbers.
using Rng = std::mt19937_64;

// The ask/tell contract:
// - ask(n) returns exactly n >= 1 candidates to evaluate (an optimiser with generations hands
//   out its generation in pieces and breeds the next one when all of it has been told);
// - tell(xs, fitness) gives back the candidates of the last ask, in order, with their fitness;
//   ask and tell alternate strictly;
// - everything is a function of the seed and of the fitness values told: no clocks, no thread
//   ids, no global state, so results are identical whatever evaluates the candidates;
// - save() captures the complete state (including the Rng) as JSON between a tell and the next
//   ask; load(save()) on a fresh optimiser of the same kind, dims and options continues exactly.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string name() const = 0;  // "ga", "random", "sa", "de", "pso", "cmaes", ...
  virtual std::vector<Genome> ask(size_t n) = 0;
  virtual void tell(const std::vector<Genome>& xs, const std::vector<double>& fitness) = 0;
  virtual nlohmann::json save() const = 0;
  virtual void load(const nlohmann::json& state) = 0;
};

// Domain-aware variation for the genetic algorithm (GAMMA's operators live in dse/mapper and
// plug in here). The defaults are generic: uniform crossover and per-gene resampling.
class GeneticOperators {
 public:
  virtual ~GeneticOperators() = default;
  // A child of two parents (both of the optimiser's dims).
  virtual Genome crossover(const Genome& a, const Genome& b, Rng& rng) const;
  // Mutates `g` in place; `rate` is the per-gene (or per-operator) probability.
  virtual void mutate(Genome& g, double rate, Rng& rng) const;
  // Extra candidates to seed the first generation with (warm-start); empty by default.
  virtual std::vector<Genome> seeds() const { return {}; }
};

struct GaOptions {
  size_t population = 100;
  double elite_fraction = 0.1;   // best fraction copied unchanged to the next generation
  double parent_fraction = 0.5;  // parents drawn from this best fraction
  double crossover_rate = 0.9;
  double mutation_rate = 0.1;
  std::shared_ptr<const GeneticOperators> ops;  // null: the generic operators
};

// Options common to the factory below; each optimiser reads what applies to it.
struct OptimizerOptions {
  uint64_t seed = 1;
  GaOptions ga;
  std::vector<Genome> seeds;  // warm-start candidates every optimiser evaluates first
  int64_t budget = 0;         // total samples planned (SA's cooling, BO's cap, ...); 0: unknown
};

// Names accepted by make_optimizer, in the order tables list them:
// "ga", "random", "sa", "de", "pso", "cmaes", "oneplusone", "bo", "exhaustive".
const std::vector<std::string>& optimizer_names();
// Bayesian optimisation evaluates at most this many samples (GP cost grows as samples^3).
inline constexpr int64_t kBoSampleCap = 1000;

// Creates an optimiser over `dims` genes. Throws InputError for an unknown name.
// "exhaustive" needs `levels` (the number of distinct values of each gene; genes are then
// k / levels[i] + 1 / (2 levels[i])) and enumerates the product in mixed-radix order.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, size_t dims,
                                          const OptimizerOptions& options,
                                          const std::vector<int64_t>& levels = {});

}  // namespace sparsemap::search
