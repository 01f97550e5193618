// Internal representation of one evaluation: the layer in MAESTRO's input-centric coordinates,
// the cluster levels with their completed directives, and the per-level analysis.
#pragma once

#include <cstdint>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::cost::detail {

// Loop variables: the nine layer dimensions, then output rows and columns (Y', X'), which only
// appear as derived tile sizes (every Y'/X' directive is rewritten in input rows/columns).
enum Var : uint8_t { vN, vG, vK, vC, vY, vX, vR, vS, vM, vYo, vXo };
constexpr int kNumVars = 11;
constexpr int kMaxLevels = 4;  // cluster levels (MAESTRO's NoC table allows four)
constexpr int kMaxDirs = 9;    // one directive per layer dimension after deduplication
constexpr int kMaxTensorVars = 6;

struct Dir {
  int64_t size = 1;  // tile, in the directive's (input-centric) coordinates
  int64_t ofs = 1;   // step between tiles
  uint8_t var = vK;
  bool spatial = false;
};

struct Level {
  int n = 0;  // directives, outermost first
  Dir dirs[kMaxDirs];
  int64_t cluster_size = 1;  // sub-clusters (PEs at the innermost level) per cluster
  int first_spatial = -1;    // MAESTRO's "upper" spatial map: it decides spatial edges
  // Directive indices, derived once by build_problem: the directive of each variable (-1:
  // none); those coupled to each tensor (directive order) and the spatial ones among them (in
  // the tensor's variable order); all spatial ones; those not coupled to the output (the
  // reduction); the directive of each output variable (the output tensor's order).
  int8_t dir_of[kNumVars];
  uint8_t coupled[3][kMaxDirs];
  int ncoupled[3];
  uint8_t coupled_sp[3][kMaxDirs];
  int ncoupled_sp[3];
  uint8_t spatial[kMaxDirs];
  int nspatial = 0;
  uint8_t reduction[kMaxDirs];
  int nreduction = 0;
  uint8_t out_dir[kMaxTensorVars];
  double l1_words[3];  // a PE's tiles of each tensor, double-buffered (2 x product of sizes)
};

struct TensorVars {
  int n = 0;
  uint8_t vars[kMaxTensorVars] = {};  // MAESTRO's coupled variables, in its order
  uint16_t mask = 0;
};

// Everything the analysis needs, built once per evaluation (no allocation).
struct Problem {
  bool sliding = false;  // Y/R and X/S are sliding windows (conv-like kinds)
  int nlevels = 0;
  Level levels[kMaxLevels];
  TensorVars tensors[kNumTensors];  // input, weight, output (output lists Y/X for Y'/X')
  int64_t top_dims[kNumVars] = {};  // level-0 extents (input-centric; Y/X padded input)
  int64_t macs = 0;                 // Layer::macs()
  int64_t pes_allocated = 0;        // cluster_size product over levels
  double noc_bw = 1;                // words per cycle at every level
  double offchip_bw = 1;            // words per cycle
  // Sparsity: words moved/stored per element of each tensor, and the fraction of MAC cycles
  // that remain (effectual fraction when skipping, 1 when gating or dense).
  double words_per_elem[kNumTensors] = {1, 1, 1};
  double compute_scale = 1;
  // Enumerate every class of cases even where a level's sum factorizes (tests compare both).
  bool exhaustive = false;
};

// Builds the problem: checks what can be checked cheaply (construct + precheck), clamps tiles,
// completes every cluster level (Y'/X' rewritten in input coordinates, missing directives
// inherited from the parent level or unrolled, strides applied). On failure sets
// cost.status/reason and returns false. `notes` receives ignored duplicate directives.
bool build_problem(const workload::Layer& layer, const arch::Arch& arch,
                   const mapping::Mapping& mapping, const EvalOptions& options, Problem& p,
                   Cost& cost);

// Result of analysing the outermost cluster level (and, recursively, all inner ones).
struct TopResult {
  double runtime = 0;
  double compute_cycles = 0;
  double mapped_macs = 0;
  double avg_active = 0;               // average active PEs (MAESTRO's utilized PEs)
  double max_active = 0;               // most PEs active at once
  double counts[kNumTensors][4] = {};  // l1_reads, l1_writes, l2_reads, l2_writes (dense words)
  double l1_words[kNumTensors] = {};   // L1 need per PE (double-buffered), dense words
  double l2_words[kNumTensors] = {};   // L2 need (double-buffered), dense words
  double noc_peak = 0, noc_avg = 0, offchip_req = 0;
  DelayStats ingress, egress, compute;
  bool valid = true;  // false when some step of the mapping produces no output
};

// Fills energy, area and power from the access counts, and scales the counts for sparsity
// (compressed storage moves fewer words; skipped MACs read no operands).
void finish_energy(const Problem& p, const arch::Arch& arch, const EvalOptions& options,
                   Cost& cost);

// Analyses the problem (MAESTRO's case-based cost analysis, grouped into classes of cases with
// equal costs, with edge-aware tile sizes). Pure; uses only the stack.
void analyze(const Problem& p, TopResult& out);

}  // namespace sparsemap::cost::detail
