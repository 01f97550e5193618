// Shared machinery of the optimisers: portable random draws, gene clipping, JSON state helpers
// and the base class that hands out warm-start seeds first.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sparsemap/search/optimizer.h"
#include "sparsemap/search/random.h"

namespace sparsemap::search::detail {

using search::uniform01;  // search/random.h
// Uniform integer in [0, n), n >= 1 (multiply-shift on 53 bits; the bias is below 2^-40 for
// the n used here).
inline size_t uniform_index(Rng& rng, size_t n) {
  const size_t k = static_cast<size_t>(uniform01(rng) * static_cast<double>(n));
  return k < n ? k : n - 1;
}
// Standard normal by Box-Muller on two uniform draws; no cached second value, so nothing
// outside the Rng needs saving.
double gaussian(Rng& rng);

// Into [0, kGeneMax]; NaN goes to 0.5. Inline: called on every gene of every child.
inline double clip_gene(double x) {
  if (std::isnan(x)) return 0.5;
  return std::min(std::max(x, 0.0), kGeneMax);
}
// Mirrors x at 0 and 1 (period 2) into [0, 1], then clips into [0, kGeneMax].
double reflect_gene(double x);
Genome random_genome(size_t dims, Rng& rng);

// Fitness as the optimisers use it: NaN, +-inf and values above kInfeasible become
// kInfeasible (so every stored number is finite and JSON-safe).
double sanitize_fitness(double f);

std::string rng_to_string(const Rng& rng);
// Throws InputError ("<checkpoint>") when `text` is not a saved mt19937_64.
void rng_from_string(Rng& rng, const std::string& text);

// Throws InputError ("<checkpoint>: ...") unless `cond`.
void require_state(bool cond, const std::string& what);
// j[key] as a vector<double> / vector<vector<double>> of the given sizes (0: any), with
// InputError on anything else.
std::vector<double> json_vector(const nlohmann::json& j, const char* key, size_t size = 0);
std::vector<Genome> json_genomes(const nlohmann::json& j, const char* key, size_t dims);

// Base of every optimiser: checks the ask/tell alternation and sizes, hands out the warm-start
// seeds first (OptimizerOptions::seeds, then `extra_seeds`, clipped into [0, 1)), sanitises
// fitness and saves/loads what is common (name, dims, Rng, seed cursor, samples told).
class OptimizerBase : public Optimizer {
 public:
  OptimizerBase(std::string name, size_t dims, const OptimizerOptions& options,
                const std::vector<Genome>& extra_seeds = {});
  std::string name() const final { return name_; }
  size_t dims() const final { return dims_; }
  std::vector<Genome> ask(size_t n) final;
  void ask_each(size_t n, std::vector<Genome>& out, const std::function<void(size_t)>& made) final;
  void tell(const std::vector<Genome>& xs, const std::vector<double>& fitness) final;
  nlohmann::json save() const final;
  void load(const nlohmann::json& state) final;

 protected:
  // Appends k >= 0 new candidates (after the seeds of this ask, if any) to `out`.
  virtual void propose(size_t k, std::vector<Genome>& out) = 0;
  // propose, calling made(i) after appending out[i]. Default: propose, then made for each.
  virtual void propose_each(size_t k, std::vector<Genome>& out,
                            const std::function<void(size_t)>& made);
  // The last ask's candidates and their (sanitised) fitness; the first n_seeds are seeds.
  virtual void observe(const std::vector<Genome>& xs, const std::vector<double>& fitness,
                       size_t n_seeds) = 0;
  virtual nlohmann::json save_state() const = 0;
  virtual void load_state(const nlohmann::json& state) = 0;

  size_t dims_;
  Rng rng_;
  int64_t budget_;    // planned samples (0: unknown)
  int64_t told_ = 0;  // samples told so far (seeds included)

 private:
  std::string name_;
  std::vector<Genome> seeds_;
  size_t next_seed_ = 0;
  size_t asked_ = 0;        // candidates of the ask awaiting their tell (0: none)
  size_t asked_seeds_ = 0;  // how many of them are seeds
};

// One (genome, fitness) pair, and sorting by fitness with ties kept in order.
struct Scored {
  Genome x;
  double f = kInfeasible;
};
void sort_scored(std::vector<Scored>& v);
nlohmann::json scored_to_json(const std::vector<Scored>& v);
std::vector<Scored> scored_from_json(const nlohmann::json& j, const char* key, size_t dims);

// The factories behind make_optimizer (one source file per family).
std::unique_ptr<Optimizer> make_random(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_ga(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_sa(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_oneplusone(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_de(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_pso(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_cmaes(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_bo(size_t dims, const OptimizerOptions& o);
std::unique_ptr<Optimizer> make_exhaustive(size_t dims, const OptimizerOptions& o,
                                           const std::vector<int64_t>& levels);

}  // namespace sparsemap::search::detail
