// The loop-nest model: Timeloop's semantics for a dense tensor problem on a storage hierarchy
// under a factors/permutation/bypass mapping (reads, fills, updates, cycles, energy).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/mapping/loop_nest.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::cost {

// Access counts of one data space at one storage level, per utilized instance (words).
struct LoopNestDataspace {
  std::string name;
  int64_t tile_words = 0;  // utilized capacity: the footprint of every loop at or below the level
  int64_t reads = 0;       // words read to serve the next inner keeper (or the compute units)
  int64_t fills = 0;       // words written from the next outer keeper
  int64_t updates = 0;     // partial sums written back by the next inner keeper (read_write only)
  double energy_pj = 0;    // all utilized instances
  bool operator==(const LoopNestDataspace& o) const {
    return name == o.name && tile_words == o.tile_words && reads == o.reads && fills == o.fills &&
           updates == o.updates && energy_pj == o.energy_pj;
  }
};

struct LoopNestLevel {
  std::string name;
  int64_t instances = 1;                      // in the architecture
  int64_t utilized_instances = 1;             // product of the spatial factors above the level
  bool dummy = false;                         // a fan-out placeholder (keeps nothing)
  std::vector<LoopNestDataspace> dataspaces;  // the kept ones, in the problem's order
  int64_t cycles = 0;         // bandwidth-limited time of one instance; 0 if unlimited
  double leak_energy_pj = 0;  // all instances
  double energy_pj = 0;       // accesses and leakage, all instances
  bool operator==(const LoopNestLevel& o) const {
    return name == o.name && instances == o.instances &&
           utilized_instances == o.utilized_instances && dummy == o.dummy &&
           dataspaces == o.dataspaces && cycles == o.cycles && leak_energy_pj == o.leak_energy_pj &&
           energy_pj == o.energy_pj;
  }
};

enum class LoopNestStatus { kOk, kInvalidMapping, kOverCapacity, kOverFanout };

struct LoopNestResult {
  LoopNestStatus status = LoopNestStatus::kOk;
  std::string reason;  // why it is not kOk
  int64_t macs = 0;    // the problem's operations
  int64_t compute_cycles = 0;
  int64_t cycles = 0;
  double utilization = 0;  // macs / (cycles x compute instances), 0..1
  std::string compute_name;
  int64_t compute_instances = 1, utilized_compute_instances = 1;
  double compute_energy_pj = 0;
  double energy_pj = 0;               // compute and every level
  std::vector<LoopNestLevel> levels;  // outermost first, as the architecture lists them

  bool ok() const { return status == LoopNestStatus::kOk; }
  // A component's energy per operation in fJ (Timeloop's "fJ/Compute" table): the compute
  // unit's or a level's energy_pj x 1000 / macs; "Total" for everything; 0 when unknown.
  double fj_per_compute(const std::string& component) const;
  const LoopNestLevel* level(const std::string& name) const;
  // The result as `sparsemap timeloop --json` writes it (cost/loopnest_json.cpp): macs, cycles,
  // utilization (0..1), energy_pj, compute {name, instances, utilized_instances, energy_pj},
  // fj_per_compute {component: fJ per operation, "Total"}, and levels (outermost first, the
  // fan-out placeholders left out as Timeloop leaves them out), each with name, instances,
  // utilized_instances, energy_pj, leak_energy_pj and dataspaces {name: {reads, fills,
  // updates, tile_words, energy_pj}} (counts in words per utilized instance).
  nlohmann::json to_json() const;
};

// Evaluates `m` for problem `p` on `h`, pricing actions with `ert` (nullptr: energy 0).
// Never throws on bad combinations: an invalid mapping (unknown target or dimension, factors
// whose product is not the bound, the outermost level bypassing), a tile over a level's
// capacity or spatial factors over a fan-out come back as the status and its reason.
//
// Notation (all counts in words, per utilized instance unless said otherwise). Levels are
// indexed outermost first, 0..N-1; the compute units are level N. The loop nest, outermost
// first, is: level 0's temporal loops (its permutation read innermost first), level 0's spatial
// loops, level 1's temporal loops, ..., level N-1's spatial loops; loops of bound 1 are dropped.
// A loop is relevant to a data space when its dimension appears in the data space's projection.
//
//   ext_i[d]       = product of the bounds of dimension d over the loops of levels >= i
//                    (temporal and spatial); ext_N = 1.
//   F(ext, ds)     = prod over the axes of ds of (sum over the axis' terms of
//                    coef * (ext[dim] - 1) + 1): the footprint of a tile, as an axis-aligned box
//                    (as Timeloop's AAHR point sets; strided sums count the holes).
//   tile_i(ds)     = F(ext_i, ds) words (utilized capacity; the sum over kept data spaces must
//                    be <= depth x block_size).
//   stride_g[d]    = product of the bounds of the loops inside loop g on the same dimension.
//   R(c, ext)      = the words a child at level c with extents ext takes in over the run:
//                    for c = N (compute): prod of all temporal bounds x F(ext) (no reuse: each
//                    operation reads its operands); otherwise, with j the innermost temporal loop
//                    above c relevant to ds (none: R = F(ext)), S the product of the temporal
//                    bounds above c outside j, and delta_j = F(ext) - prod over axes of
//                    max(0, len_axis - shift_axis), len_axis = sum coef * (ext[dim] - 1) + 1,
//                    shift_axis = sum over terms on j's dimension of coef * stride_j:
//                      R = S x (F(ext) + (bound_j - 1) x delta_j)
//                    but delta_j = F(ext) when a temporal loop above c iterates inside j
//                    (a tile stays while only irrelevant loops iterate inside it; a sliding
//                    window reuses its overlap only between back-to-back steps of j, within one
//                    sweep; each sweep of j starts with a full tile, as in Timeloop's reference
//                    outputs).
//   D(c, ext)      = F(ext x the temporal bounds above c, ds): the distinct words a child sees.
//   copies(p,c)    = product of the bounds of the spatial loops of levels p..c-1 whose
//                    dimension ds indexes (a fan-out loop ds does not index multicasts, or for
//                    an output reduces spatially; windows of neighbouring children that merely
//                    overlap are served separately, as Timeloop does).
//   For each data space, each keeper p and its next inner keeper c (or the compute units):
//     read-only:   fills_c += R(c, ext_c);          reads_p += R(c, ext_c) x copies(p,c)
//     read_write:  fills_c += R(c, ext_c) - D(c, ext_c)   (a first touch reads nothing);
//                  reads_p += (R(c, ext_c) - D(c, ext_c)) x copies(p,c);
//                  updates_p += R(c, ext_c) x copies(p,c)
//   utilized_i     = product of the spatial bounds of levels < i.
//   compute_cycles = prod of all temporal bounds (operations per compute unit).
//   cycles_i       = ceil(max(reads / read_bandwidth, (fills + updates) / write_bandwidth,
//                    (reads + fills + updates) / shared_bandwidth)) over the given bandwidths
//                    (words/cycle per instance); cycles = max(compute_cycles, cycles_i).
//   utilization    = macs / (cycles x compute instances).
//   clusters_i     = min(utilized_i, instances_i / cluster_size_i) (Timeloop's assumption: the
//                    utilized instances are spread over every cluster; one access serves one).
//   energy_i [pJ]  = clusters_i x sum over kept ds of (ceil(reads / block) x E_read +
//                    ceil(fills / block) x E_write + ceil(updates / block) x E_update)
//                    + E_leak x cycles x utilized_i (unused instances are power-gated), with
//                    E_action from the ERT (pJ per vector access of block_size words);
//   compute energy = macs x E_compute.
LoopNestResult evaluate_loopnest(const workload::Einsum& p, const arch::Hierarchy& h,
                                 const mapping::LoopNest& m, const arch::EnergyTable* ert);

}  // namespace sparsemap::cost
