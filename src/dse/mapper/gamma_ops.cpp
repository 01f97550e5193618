// GAMMA's genetic operators (our implementation of the operators the GAMMA paper describes).
#include "sparsemap/dse/mapper/gamma_ops.h"

#include <algorithm>
#include <cmath>

namespace sparsemap::dse::mapper {
namespace {

// Uniform in [0, 1) from 53 random bits (portable, unlike std::uniform_real_distribution).
double u01(search::Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
size_t below(search::Rng& rng, size_t n) { return static_cast<size_t>(u01(rng) * n) % n; }
// A standard normal draw (Box-Muller on our own uniforms).
double normal(search::Rng& rng) {
  const double u = std::max(u01(rng), 1e-300), v = u01(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}
double clamp01(double v) { return std::clamp(v, 0.0, std::nextafter(1.0, 0.0)); }

constexpr int B = MapSpace::kBlock;
size_t gene(int level, int offset) { return 1 + static_cast<size_t>(B * level + offset); }

}  // namespace

search::Genome GammaOperators::crossover(const search::Genome& a, const search::Genome& b,
                                         search::Rng& rng) const {
  search::Genome child = a;
  if (u01(rng) < 0.5) child[0] = b[0];
  for (int s = 0; s < kSlots; ++s)  // a dimension's tiles at every level, as a unit
    if (u01(rng) < 0.5)
      for (int l = 0; l < levels_; ++l)
        child[gene(l, MapSpace::kTileGene + s)] = b[gene(l, MapSpace::kTileGene + s)];
  for (int l = 0; l < levels_; ++l) {
    if (u01(rng) < 0.5)  // the level's loop order
      for (int s = 0; s < kSlots; ++s)
        child[gene(l, MapSpace::kKeyGene + s)] = b[gene(l, MapSpace::kKeyGene + s)];
    if (u01(rng) < 0.5) child[gene(l, MapSpace::kParGene)] = b[gene(l, MapSpace::kParGene)];
    if (u01(rng) < 0.5) child[gene(l, MapSpace::kClusterGene)] = b[gene(l, MapSpace::kClusterGene)];
  }
  return child;
}

void GammaOperators::mutate(search::Genome& g, double rate, search::Rng& rng) const {
  bool fired = false;
  auto step = [&](double& x, double sigma) {
    x = u01(rng) < 0.5 ? u01(rng) : clamp01(x + sigma * normal(rng));
  };
  for (int l = 0; l < levels_; ++l) {
    for (int s = 0; s < kSlots; ++s)  // tile mutation
      if (u01(rng) < rate / 2) {
        step(g[gene(l, MapSpace::kTileGene + s)], 0.15);
        fired = true;
      }
    if (u01(rng) < rate) {  // reorder: two loop-order keys swapped
      const size_t x = below(rng, kSlots), y = below(rng, kSlots);
      std::swap(g[gene(l, MapSpace::kKeyGene) + x], g[gene(l, MapSpace::kKeyGene) + y]);
      fired = true;
    }
    if (u01(rng) < rate) {  // parallel-dimension mutation
      g[gene(l, MapSpace::kParGene)] = u01(rng);
      fired = true;
    }
    if (l > 0 && u01(rng) < rate) {  // cluster size
      step(g[gene(l, MapSpace::kClusterGene)], 0.1);
      fired = true;
    }
  }
  if (levels_ > 1 && u01(rng) < rate) {  // growth or aging: one level more or less
    const int n = 1 + std::min(levels_ - 1, static_cast<int>(g[0] * levels_));
    const bool grow = n == 1 || (n < levels_ && u01(rng) < 0.5);
    g[0] = (n - 1 + (grow ? 1 : -1) + 0.5) / levels_;
    fired = true;
  }
  if (!fired) {  // never a plain copy of the parent
    const int l = static_cast<int>(below(rng, static_cast<size_t>(levels_)));
    step(g[gene(l, MapSpace::kTileGene + static_cast<int>(below(rng, kSlots)))], 0.15);
  }
}

}  // namespace sparsemap::dse::mapper
