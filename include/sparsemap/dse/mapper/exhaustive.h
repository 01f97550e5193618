// Exhaustive enumeration of small map spaces (every distinct decoding once), the reference that
// GAMMA's search quality is measured against.
#pragma once

#include <cstdint>
#include <functional>

#include "sparsemap/dse/mapper/map_space.h"

namespace sparsemap::dse::mapper {

// Visits every distinct decoding of `space`, which must have divisors_only, fixed_order and a
// constraint class (two levels, fixed parallel slots): per slot every divisor chain
// t1 | t0 | extent, and every cluster size that divides the PEs and is at most the level-1
// parallel slot's chunks (t0 / t1). Returns the number visited; `visit` may be empty (count).
// Throws InputError when the space does not have those options.
int64_t enumerate_space(const MapSpace& space,
                        const std::function<void(const MapSpace::Decoded&)>& visit);

struct ExhaustiveResult {
  int64_t points = 0;
  double best = 0;  // the best objective value (search::kInfeasible if none is feasible)
  MapSpace::Decoded best_decoded;
};
// The optimum of `spec` over the enumerated space, evaluated on `threads` threads.
ExhaustiveResult exhaustive_best(const MapSpace& space, const FitnessSpec& spec, int threads = 1);

}  // namespace sparsemap::dse::mapper
