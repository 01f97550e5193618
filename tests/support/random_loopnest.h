// Random loop-nest points for tests and benchmarks: every factor a product of the bound's prime
// factors, so each dimension's factors multiply to its bound.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "sparsemap/cost/loopnest.h"
#include "sparsemap/dse/timeloop/map_space.h"  // prime_factors

namespace sparsemap::testing {

// A random point: each prime factor of each bound goes to a random level, spatially when that
// level's fan-out still has room for it, else temporally.
inline cost::LoopNestPoint random_point(const cost::LoopNestEvaluator& ev,
                                        const workload::Einsum& p, const arch::Hierarchy& h,
                                        std::mt19937_64& rng) {
  cost::LoopNestPoint x;
  x.resize(ev.levels(), ev.dims(), ev.data_spaces());
  std::vector<int64_t> room(ev.levels());
  for (int i = 0; i < ev.levels(); ++i) {
    const int64_t below = i + 1 < ev.levels() ? h.storage[i + 1].instances : h.compute.instances;
    room[i] = std::max<int64_t>(1, below / std::max<int64_t>(1, h.storage[i].instances));
    if (h.storage[i].dummy) x.keep[i] = 0;
  }
  std::uniform_int_distribution<int> level(0, ev.levels() - 1), coin(0, 1);
  for (int k = 0; k < ev.dims(); ++k)
    for (const int64_t f : dse::timeloop::prime_factors(p.bound(p.dims[k]))) {
      const int i = level(rng);
      if (coin(rng) && room[i] % f == 0) {
        room[i] /= f;
        x.spatial_factor(i, k) *= f;
      } else {
        x.temporal_factor(i, k) *= f;
      }
    }
  for (int i = 0; i < ev.levels(); ++i) {
    std::shuffle(x.temporal_order.begin() + i * ev.dims(),
                 x.temporal_order.begin() + (i + 1) * ev.dims(), rng);
    std::shuffle(x.spatial_order.begin() + i * ev.dims(),
                 x.spatial_order.begin() + (i + 1) * ev.dims(), rng);
  }
  return x;
}

}  // namespace sparsemap::testing
