// The analytical cost model: evaluate(layer, arch, mapping) -> Cost, with MAESTRO's
// data-centric semantics (Kwon et al., MICRO 2019) and edge-aware, physically sound pricing.
#pragma once

#include <string>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/cost/sparsity.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::cost {

struct EvalOptions {
  // Like MAESTRO, evaluate() reports the L1/L2 a mapping needs without judging it. With this
  // set, a mapping that needs more L1 (per PE) or L2 than the accelerator has is Infeasible.
  bool enforce_buffers = false;
  SparsityOptions sparsity;  // dense by default
};

// Evaluates one GEMM-class layer (CONV, DSCONV, NGCONV, TRCONV, FC, GEMM, batched GEMM) under a
// mapping (SpatialMap/TemporalMap/Cluster directives, outermost first) on an accelerator.
//
// Contract:
// - Pure and thread-safe; allocates nothing unless the result is not Ok (the reason string).
// - Never throws on any layer, arch or mapping: problems come back as Status and reason.
// - Conservation and bounds: Cost::macs == layer.macs(); for Ok results
//   runtime_cycles >= ceil(effectual MACs / pes_used) and energy_nj >= effectual MACs x MAC
//   energy; more NoC or off-chip bandwidth never makes a layer slower.
// - On mappings whose tiles divide what they tile ("even"), the numbers are MAESTRO's
//   (runtime, L1/L2 needs, per-tensor access counts, NoC and off-chip bandwidth). Where a tile
//   does not divide its extent, the edge iteration is priced for its partial tile.
// - A tile larger than what it tiles is clamped to it (readers warn about it).
// - A dimension mapped twice in one cluster level keeps its first directive; the others are
//   ignored and named in Cost::reason.
Cost evaluate(const workload::Layer& layer, const arch::Arch& arch, const mapping::Mapping& mapping,
              const EvalOptions& options = {});

// True when some directive does not step through its parent extent in whole steps
// ((extent - size) is not a multiple of the offset, in the coordinates the directive names:
// Y'/X' output, Y/X input) or has a tile larger than its extent. Level 0's extents are the
// layer's dimensions (Y'/X': Layer::out_y/out_x); an inner level's are its parent's tiles.
bool has_loop_edges(const workload::Layer& layer, const mapping::Mapping& mapping);

}  // namespace sparsemap::cost
