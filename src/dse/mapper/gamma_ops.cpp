// GAMMA's genetic operators (our implementation of the operators the GAMMA paper describes).
#include "sparsemap/dse/mapper/gamma_ops.h"

#include <algorithm>
#include <cmath>

#include "sparsemap/search/random.h"

namespace sparsemap::dse::mapper {
namespace {

using search::normal01;
using search::uniform01;
size_t below(search::Rng& rng, size_t n) { return static_cast<size_t>(uniform01(rng) * n) % n; }
double clamp01(double v) { return std::clamp(v, 0.0, std::nextafter(1.0, 0.0)); }

constexpr int B = MapSpace::kBlock;
size_t gene(int level, int offset) { return 1 + static_cast<size_t>(B * level + offset); }

}  // namespace

search::Genome GammaOperators::crossover(const search::Genome& a, const search::Genome& b,
                                         search::Rng& rng) const {
  search::Genome child = a;
  if (uniform01(rng) < 0.5) child[0] = b[0];
  for (int s = 0; s < kSlots; ++s)  // a dimension's tiles at every level, as a unit
    if (uniform01(rng) < 0.5)
      for (int l = 0; l < levels_; ++l)
        child[gene(l, MapSpace::kTileGene + s)] = b[gene(l, MapSpace::kTileGene + s)];
  for (int l = 0; l < levels_; ++l) {
    if (uniform01(rng) < 0.5)  // the level's loop order
      for (int s = 0; s < kSlots; ++s)
        child[gene(l, MapSpace::kKeyGene + s)] = b[gene(l, MapSpace::kKeyGene + s)];
    if (uniform01(rng) < 0.5) child[gene(l, MapSpace::kParGene)] = b[gene(l, MapSpace::kParGene)];
    if (uniform01(rng) < 0.5)
      child[gene(l, MapSpace::kClusterGene)] = b[gene(l, MapSpace::kClusterGene)];
  }
  return child;
}

void GammaOperators::mutate(search::Genome& g, double rate, search::Rng& rng) const {
  bool fired = false;
  auto step = [&](double& x, double sigma) {
    x = uniform01(rng) < 0.5 ? uniform01(rng) : clamp01(x + sigma * normal01(rng));
  };
  for (int l = 0; l < levels_; ++l) {
    for (int s = 0; s < kSlots; ++s)  // tile mutation
      if (uniform01(rng) < rate / 2) {
        step(g[gene(l, MapSpace::kTileGene + s)], 0.15);
        fired = true;
      }
    if (uniform01(rng) < rate) {  // reorder: two loop-order keys swapped
      const size_t x = below(rng, kSlots), y = below(rng, kSlots);
      std::swap(g[gene(l, MapSpace::kKeyGene) + x], g[gene(l, MapSpace::kKeyGene) + y]);
      fired = true;
    }
    if (uniform01(rng) < rate) {  // parallel-dimension mutation
      g[gene(l, MapSpace::kParGene)] = uniform01(rng);
      fired = true;
    }
    if (l > 0 && uniform01(rng) < rate) {  // cluster size
      step(g[gene(l, MapSpace::kClusterGene)], 0.1);
      fired = true;
    }
  }
  if (levels_ > 1 && uniform01(rng) < rate) {  // growth or aging: one level more or less
    const int n = 1 + std::min(levels_ - 1, static_cast<int>(g[0] * levels_));
    const bool grow = n == 1 || (n < levels_ && uniform01(rng) < 0.5);
    g[0] = (n - 1 + (grow ? 1 : -1) + 0.5) / levels_;
    fired = true;
  }
  if (!fired) {  // never a plain copy of the parent
    const int l = static_cast<int>(below(rng, static_cast<size_t>(levels_)));
    step(g[gene(l, MapSpace::kTileGene + static_cast<int>(below(rng, kSlots)))], 0.15);
  }
}

}  // namespace sparsemap::dse::mapper
