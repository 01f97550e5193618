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
//                    When cycles_i > compute_cycles (C) it is evaluated as Timeloop does, in
//                    doubles: ceil(C / slowdown), slowdown = min over the given bandwidths of
//                    bw / demand, demand = sum over data spaces of words / C (reads for
//                    read_bandwidth, fills + updates for write, both for shared); its rounding
//                    can exceed the exact ceil by one cycle, as Timeloop's does.
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

// A mapping in numbers, as a search builds it: for each storage level (outermost first, the
// architecture's order) the temporal and the spatial factor of every dimension (the problem's
// order), the order of the level's temporal and of its spatial loops (dimension indices,
// outermost loop first, each dimension once; a factor-1 loop may sit anywhere) and the data
// spaces the level keeps (bit k for data space k). `LoopNestEvaluator::resolve` builds one from
// a named mapping; `resize` makes an all-ones point (every loop 1, everything kept).
struct LoopNestPoint {
  int levels = 0, dims = 0;
  std::vector<int64_t> temporal, spatial;          // [level * dims + dim]
  std::vector<int> temporal_order, spatial_order;  // [level * dims + position]
  std::vector<uint64_t> keep;                      // [level], bit k: data space k

  void resize(int num_levels, int num_dims, int num_data_spaces);
  int64_t& temporal_factor(int level, int dim) { return temporal[level * dims + dim]; }
  int64_t& spatial_factor(int level, int dim) { return spatial[level * dims + dim]; }
};

// The figures a search ranks mappings by.
struct LoopNestSummary {
  LoopNestStatus status = LoopNestStatus::kOk;
  int64_t cycles = 0;
  double energy_pj = 0;
  double utilization = 0;
  bool ok() const { return status == LoopNestStatus::kOk; }
};

// Scratch space of LoopNestEvaluator::evaluate: sized on first use, then reused, so evaluation
// allocates nothing. One per thread; its contents are the evaluator's business.
struct LoopNestWorkspace {
  struct Loop {
    int dim = 0;
    int64_t bound = 1;
    int level = 0;
    bool spatial = false;
  };
  std::vector<Loop> loops;      // outermost first, bound-1 loops dropped
  std::vector<int> first_loop;  // [level]: index of its first loop; [levels] = loops.size()
  std::vector<int64_t> ext;     // [level * dims + dim]: ext_i, levels + 1 rows
  std::vector<int64_t> above;   // [level * dims + dim]: temporal bounds of levels < i
  std::vector<int64_t> reads, fills, updates;  // [level * data spaces + ds]
  std::vector<int64_t> level_cycles;           // [level]
  // Where evaluation stopped or what it flagged, for the reason text: the level, dimension or
  // data space concerned and the figures compared.
  int fault_level = -1, fault_dim = -1, fault_ds = -1;
  int64_t fault_value = 0, fault_limit = 0;
};

// The loop-nest model prepared for one problem on one architecture, for evaluating many
// mappings: names resolved to indices and every component's action energies looked up once.
// `p`, `h` and `ert` must outlive it. evaluate_loopnest(p, h, m, ert) equals
// evaluate_full(resolve(m)) whenever resolve succeeds.
class LoopNestEvaluator {
 public:
  LoopNestEvaluator(const workload::Einsum& p, const arch::Hierarchy& h,
                    const arch::EnergyTable* ert);

  int levels() const { return n_; }
  int dims() const { return nd_; }
  int data_spaces() const { return nds_; }
  // The problem's operations (0 when over 2^50).
  int64_t macs() const { return too_many_operations_ ? 0 : macs_; }
  // Why no mapping of this problem can be evaluated (over 2^50 operations, no storage level,
  // a projection naming an unknown dimension), or "".
  std::string problem_error() const;
  // problem_error() is empty (checked on every evaluation, so without building a string).
  bool usable() const { return !too_many_operations_ && n_ > 0 && bad_projection_.empty(); }

  // Turns a named mapping into `out` (levels without a directive: factors 1, permutation as
  // the problem lists the dimensions, everything kept; dummy levels keep nothing). Returns ""
  // or why the names do not fit the problem and architecture.
  std::string resolve(const mapping::LoopNest& m, LoopNestPoint* out) const;

  // Cycles, energy and status of `x` (any point of the right size: factors whose products are
  // not the bounds, an outermost bypass, a fan-out or capacity overrun come back as the
  // status). Allocation-free once `ws` has served one evaluation of this shape; thread-safe
  // with a workspace per thread.
  LoopNestSummary evaluate(const LoopNestPoint& x, LoopNestWorkspace& ws) const;
  // evaluate() of a point whose factors multiply to the bounds, whose orders are permutations
  // and whose outermost level keeps every data space (a map space's decoded point, by
  // construction: dse/timeloop/map_space.h), without checking those again; the fan-out and the
  // capacities are checked. The same result as evaluate() on such a point, except that a point
  // over a capacity comes back with its status only (no cycles or energy: a search drops it).
  LoopNestSummary evaluate_well_formed(const LoopNestPoint& x, LoopNestWorkspace& ws) const;

  // Everything evaluate_loopnest reports, with the reason text of a failed status.
  LoopNestResult evaluate_full(const LoopNestPoint& x) const;

 private:
  struct Term {
    int dim;
    int64_t coef;
  };
  struct LevelEnergy {
    double read = 0, write = 0, update = 0, leak = 0;  // pJ per action (block access)
  };
  int64_t footprint(int ds, const int64_t* ext) const;
  int64_t received(int ds, int child, const LoopNestWorkspace& ws) const;
  void build_loops(const LoopNestPoint& x, LoopNestWorkspace& ws) const;
  // Factors, orders and the outermost keep (what evaluate_well_formed trusts).
  LoopNestStatus check_form(const LoopNestPoint& x, LoopNestWorkspace& ws) const;
  LoopNestStatus check_fanout(const LoopNestPoint& x, LoopNestWorkspace& ws) const;
  // evaluate() after the form checks; over a capacity, the cycles and energy are computed only
  // when figures_when_over_capacity.
  LoopNestSummary evaluate_formed(const LoopNestPoint& x, LoopNestWorkspace& ws,
                                  bool figures_when_over_capacity) const;
  void count_accesses(const LoopNestPoint& x, LoopNestWorkspace& ws) const;
  int64_t throttled_cycles(const arch::StorageLevel& s, int i, int64_t compute,
                           const LoopNestWorkspace& ws) const;
  double energy(const LoopNestPoint& x, const LoopNestWorkspace& ws, int64_t cycles,
                LoopNestResult* out) const;
  std::string fault_reason(LoopNestStatus status, const LoopNestPoint& x,
                           const LoopNestWorkspace& ws) const;

  const workload::Einsum& p_;
  const arch::Hierarchy& h_;
  int n_ = 0, nd_ = 0, nds_ = 0;
  int64_t macs_ = 0;
  bool too_many_operations_ = false;
  std::string bad_projection_;
  std::vector<int64_t> bounds_;            // [dim]
  std::vector<int> axis_begin_;            // [ds]: first axis in axis_terms_; [nds] = end
  std::vector<int> term_begin_;            // [axis]: first term in terms_; [axes] = end
  std::vector<Term> terms_;                // every data space's axes' terms
  std::vector<uint64_t> relevant_;         // [ds]: bit d when the projection uses dim d
  std::vector<LevelEnergy> level_energy_;  // [level]
  std::vector<int64_t> fanout_;            // [level]: instances below / instances
  std::vector<int64_t> clusters_max_;      // [level]: instances / cluster_size, >= 1
  double compute_pj_ = 0;                  // per operation
};

}  // namespace sparsemap::cost
