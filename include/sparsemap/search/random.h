// Portable random draws shared by the optimisers and the genetic operators of dse/: the same
// numbers on every platform and standard library (std::uniform_real_distribution and
// std::normal_distribution are not), with no state outside the engine.
#pragma once

#include <algorithm>
#include <cmath>

#include "sparsemap/search/optimizer.h"

namespace sparsemap::search {

// Uniform in [0, 1): the top 53 bits of one draw, times 2^-53.
inline double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// A standard normal draw by Box-Muller on two uniform01 draws (u clamped away from 0; the
// cosine branch only, so nothing is cached between calls).
inline double normal01(Rng& rng) {
  const double u = std::max(uniform01(rng), 1e-300), v = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

}  // namespace sparsemap::search
