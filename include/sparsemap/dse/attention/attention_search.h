// FLAT's design-space search: the best fused-attention configuration (granularity, row tile,
// per-tensor placement, stationarity) under the buffer, the best unfused baseline, and the
// end-to-end transformer layer around them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/attention.h"

namespace sparsemap::dse::attention {

enum class Objective : uint8_t { Latency, Energy };
Objective parse_objective(const std::string& s);  // "latency" | "energy"; throws InputError

// The configuration space: granularity (batch, head, row) x row tile (row only) x the 64
// placements of Q, K, QK, A, V, AV x 3 QK x 3 AV stationarities.
struct FlatSpace {
  std::vector<int64_t> row_tiles;  // powers of two 1 .. N/2 (R = N is head granularity)
  int64_t size() const;            // 3 x |row_tiles| x 64 x 9 genome points (some duplicate)
};
FlatSpace flat_space(const cost::AttentionShape& s);

// Decodes a genome of 5 genes in [0, 1): granularity, row-tile index, placement (6 bits),
// QK stationarity, AV stationarity.
cost::FlatConfig decode(const FlatSpace& space, const std::vector<double>& genome);
std::vector<int64_t> genome_levels(const FlatSpace& space);  // {3, |R|, 64, 3, 3}

struct SearchOptions {
  Objective objective = Objective::Latency;
  // "exhaustive" (every point of flat_space; the default, small enough up to 1M tokens) or
  // any of search::optimizer_names() with `budget` samples (BO: at most search::kBoSampleCap).
  std::string algo = "exhaustive";
  int64_t budget = 2000;
  uint64_t seed = 1;
  cost::FlatOptions flat;  // softmax counted (ours) or not (FLAT's own rules)
};

struct FlatChoice {
  cost::FlatConfig config;
  cost::AttentionCost cost;
  int64_t evaluations = 0;  // cost-model evaluations spent (the search's samples)
};

// Lexicographic order used by the search: the objective, then DRAM traffic, then on-chip
// footprint (so ties go to the configuration that moves and holds less). Infeasible last.
bool better(const cost::AttentionCost& a, const cost::AttentionCost& b, Objective o);

// The best FLAT configuration. Validates the shape (throws InputError).
FlatChoice search_flat(const cost::AttentionShape& s, const cost::AttentionHw& hw,
                       const SearchOptions& options = {});

// The block's two GEMMs (Q K^T and A V as batched GEMMs of B H matrices) and the rest of one
// transformer layer (Q, K, V and output projections and the two FFN GEMMs, M = B N tokens),
// each mapped by the single-operator model (cost::evaluate) with the GAMMA mapper
// (dse/mapper, `budget` samples per distinct GEMM). The attention GEMMs are mapped with
// unlimited off-chip bandwidth (DRAM time is the attention model's); the rest with the
// accelerator's. FLAT and the baseline both use these GEMM times (equal footing).
struct LayerRest {
  double latency_s = 0;   // sum of the GEMMs' runtimes
  double energy_pj = 0;   // the single-operator model's energy
  double dram_bytes = 0;  // compulsory off-chip words x word size
};
struct MappedBlock {
  double qk_s = 0, av_s = 0;  // array time of the whole block's QK and AV
  std::string qk_mapping, av_mapping;
  LayerRest rest;  // zero when d_model or ffn is 0
  int64_t evaluations = 0;
};
MappedBlock map_block(const cost::AttentionShape& s, const arch::Arch& arch, int64_t budget = 1000,
                      uint64_t seed = 1);

// The unfused baseline with the mapped GEMM times (cost::evaluate_unfused).
cost::AttentionCost best_unfused(const cost::AttentionShape& s, const cost::AttentionHw& hw,
                                 const MappedBlock& gemms);

}  // namespace sparsemap::dse::attention
