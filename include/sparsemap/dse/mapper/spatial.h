// Spatial fan-out of a layer over P PEs: the utilisation bound no mapping can beat, and the
// map-space genomes that reach it on the cost model's compute term.
//
// A mapping spreads loop dimension d (extent e_d) over s_d PEs (the product of its spatial
// factors over all cluster levels), with prod_d s_d <= P. Each PE then walks at least
// ceil(e_d / s_d) indices of d one after another, also on loop edges: with tile t and n sweeps,
// the per-PE time along d is (n - 1) t + min(t, r) >= ceil(e_d / s_d) for the last sweep's
// remainder r. The cost model's runtime is at least the sum over steps of the busiest PE's
// MACs, which factorises over the dimensions, so
//
//   runtime >= U(layer, P) = min over {s_d : prod s_d <= P} of prod_d ceil(e_d / s_d)
//
// over every loop dimension of the layer (batch and groups included). U >= ceil(MACs / P),
// and U equals it when the extents factor onto P PEs exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "sparsemap/dse/mapper/map_space.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::mapper {

// The loop extents of a GEMM-class layer whose product is layer.macs() (Y' and X' as output
// sizes; extents of 1 are left out). Empty for a layer without MACs.
std::vector<int64_t> loop_extents(const workload::Layer& layer);

// U(layer, pes) above, in cycles (0 for a layer without MACs). pes >= 1.
int64_t utilisation_bound_cycles(const workload::Layer& layer, int64_t pes);

// Up to `count` genomes of `space` that spread the layer well over its PEs, best first: for
// each choice of one or two parallel slots (level 0 over P / c clusters, level 1 over clusters
// of c PEs) the best c, ordered by predicted steps prod_d ceil(e_d / s_d) (ties: fewer levels,
// then slot order), each with two level-0 tilings (the inner level gets the reduction slot
// whole, or every slot not on the PEs whole) and, with `minimal`, a third that hands it one
// index of each (the least L2, for fixed small buffers). R and S stay whole in every PE and
// off the PEs, as do Y' and X' of a strided layer (MAESTRO's sliding window). With
// unconstrained bandwidths the cost model's runtime is the predicted steps plus one cycle of
// ingress per inner run. Genomes whose decoding differs from the intended mapping (a
// constraint class or divisors_only repairs it) are left out. No cost-model call is made.
std::vector<search::Genome> spatial_seeds(const MapSpace& space, size_t count,
                                          bool minimal = false);

}  // namespace sparsemap::dse::mapper
