// GAMMA's domain-aware genetic operators on the map-space genome (map_space.h), plugged into
// the search engine's GA (search::GeneticOperators).
#pragma once

#include <vector>

#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/search/optimizer.h"

namespace sparsemap::dse::mapper {

// The operators, on the gene groups of MapSpace's layout (L levels of MapSpace::kBlock genes):
// - crossover (GAMMA's dimension crossover, on every dimension at once): the child starts as
//   `a`; each dimension's tiles at every level come as one unit from `a` or `b` (1/2 each), and
//   so do each level's loop order, parallel dimension and cluster size, and the level count;
// - mutate (`rate`: GaOptions::mutation_rate, 0.6 in map):
//     tile mutation       each tile gene with probability rate/2: resampled, or a small
//                         log-scale step (1/2 each);
//     reorder             per level with probability rate: two loop-order keys swapped;
//     parallel mutation   per level with probability rate: the parallel-slot gene resampled;
//     cluster mutation    per inner level with probability rate: a small step or resampled;
//     growth / aging      with probability rate: one cluster level more or less;
//   when nothing fired, one tile mutation is applied, so a child never repeats its parent.
// Elitism is the GA's (GaOptions::elite_fraction). The operators were chosen on ResNet-50 at
// 2,000 samples against the generic GA and DE (see the mapper tests and `sparsemap mse`).
// seeds() returns the warm-start genomes given at construction.
class GammaOperators : public search::GeneticOperators {
 public:
  explicit GammaOperators(int max_levels, std::vector<search::Genome> seeds = {})
      : levels_(max_levels), seeds_(std::move(seeds)) {}
  search::Genome crossover(const search::Genome& a, const search::Genome& b,
                           search::Rng& rng) const override;
  void mutate(search::Genome& g, double rate, search::Rng& rng) const override;
  std::vector<search::Genome> seeds() const override { return seeds_; }

 private:
  int levels_;
  std::vector<search::Genome> seeds_;
};

}  // namespace sparsemap::dse::mapper
