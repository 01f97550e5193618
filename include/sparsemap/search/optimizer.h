// Black-box optimisers behind one ask/tell interface (docs/design.md, "search"). An optimiser sees
// only genomes and fitnesses, never a layer or an accelerator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

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
  virtual size_t dims() const = 0;       // genes per candidate
  virtual std::vector<Genome> ask(size_t n) = 0;
  // ask(n) into `out` (emptied, then n candidates), calling made(i) as soon as out[i] is final:
  // a driver evaluates the first candidates while the rest are being made. `out` is reserved
  // for n before the first, so a candidate never moves once made. The same candidates as
  // ask(n). Default: ask, then made for each.
  virtual void ask_each(size_t n, std::vector<Genome>& out,
                        const std::function<void(size_t)>& made);
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

// Bayesian optimisation: a Gaussian process (zero mean, unit signal variance on standardised
// fitness) with expected improvement.
struct BoOptions {
  std::string kernel = "matern52";  // "matern52" or "rbf"
  double length_scale = 0;          // > 0: fixed; 0: fitted (marginal likelihood over a grid)
  size_t candidates = 2048;         // EI is maximised over this many random + perturbed-best points
  size_t initial =
      0;  // random (or seeded) samples before the GP; 0: max(10, 2 dims), at most max(10, budget/4)
};

// Options common to the factory below; each optimiser reads what applies to it.
struct OptimizerOptions {
  uint64_t seed = 1;
  GaOptions ga;
  std::vector<Genome> seeds;  // warm-start candidates every optimiser evaluates first
  int64_t budget = 0;         // total samples planned (SA's cooling, BO's cap, ...); 0: unknown
  // Population of DE, PSO (swarm size) and CMA-ES (lambda); 0: each one's default
  // (DE: clamp(5 dims, 10, 50); PSO: clamp(2 dims + 10, 10, 40); CMA-ES: 4 + floor(3 ln dims)).
  size_t population = 0;
  BoOptions bo;
};

// Names accepted by make_optimizer, in the order tables list them:
// "ga", "random", "sa", "de", "pso", "cmaes", "oneplusone", "bo", "exhaustive".
const std::vector<std::string>& optimizer_names();
// Bayesian optimisation's Gaussian process holds at most this many samples (the best ones; its
// cost grows as samples^3): callers cap BO's budget at kBoSampleCap and say so in their tables.
// Measured: 1,000 samples in batches of 64 take about 2.5 s of CPU (6 or 20 genes).
inline constexpr int64_t kBoSampleCap = 1000;

// The optimisers (each source file states its formulas):
// - "ga" (ga.cpp): population, elitism, truncation + binary-tournament parents, crossover and
//   mutation through GaOptions::ops; the first generation is the seeds (options', then ops'),
//   then uniform points. The textbook step is ask(population - elites); any batch works.
// - "random": uniform points. "sa", "oneplusone", "exhaustive" (local.cpp): simulated
//   annealing with geometric cooling over `budget`, the (1+1)-ES with the 1/5 success rule.
// - "de" (DE/rand/1/bin) and "pso" (swarm.cpp): steady state, so any batch size works.
// - "cmaes" (cmaes.cpp): textbook with ask(population); larger batches form larger generations.
// - "bo" (bayes.cpp): GP + expected improvement, batches by the kriging believer.
// Every optimiser hands out OptimizerOptions::seeds first, accepts any n in ask(n), keeps genes
// in [0, kGeneMax], and draws its random numbers only from its saved Rng.
//
// Creates an optimiser over `dims` genes. Throws InputError for an unknown name, for seeds
// that do not have `dims` genes, or for bad `levels`. Seed genes are clipped into [0, 1).
// "exhaustive" needs `levels` (the number of distinct values of each gene; genes are then
// k / levels[i] + 1 / (2 levels[i])) and enumerates the product in mixed-radix order, gene 0
// changing fastest (after the seeds, if any). Once the whole space has been handed out, ask()
// returns copies of the best candidate told so far (so a driver with a larger budget still
// ends; those repeats count as samples): cap the budget at space_size(levels).
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, size_t dims,
                                          const OptimizerOptions& options,
                                          const std::vector<int64_t>& levels = {});

// Number of points of the exhaustive space: the product of `levels` (each >= 1), or -1 when it
// exceeds INT64_MAX. Throws InputError for a level < 1.
int64_t space_size(const std::vector<int64_t>& levels);

// The largest gene value: genes lie in [0, kGeneMax] = [0, 1).
inline constexpr double kGeneMax = 0x1.fffffffffffffp-1;  // std::nextafter(1.0, 0.0)

}  // namespace sparsemap::search
