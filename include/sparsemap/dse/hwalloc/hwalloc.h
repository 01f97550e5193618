// Hardware resource assignment (ConfuciuX, Kao et al., MICRO 2020): per layer a number of PEs
// and a buffer level (and optionally a dataflow) under an area or power budget.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/arch/maestro_limits.h"
#include "sparsemap/cost/cost.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/workload/model.h"

namespace sparsemap::dse::hwalloc {

// ConfuciuX's action levels: 12 PE counts and 12 buffer levels (KTileSz = level + 1).
inline constexpr std::array<int64_t, 12> kPeLevels = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
inline constexpr int kLevels = 12;
inline constexpr int64_t kMaxPes = 128;   // the GA's bound on raw PE counts
inline constexpr int64_t kMaxKTile = 12;  // the GA's bound on raw KTileSz
// The most layers a problem takes (ConfuciuX's largest model file has 160; the shape
// de-duplication is quadratic in the layers).
inline constexpr size_t kMaxLayers = 10000;

// The dataflow templates (ConfuciuX's m-files): NVDLA-like (K spatial, C in the cluster),
// ShiDianNao-like (Y' spatial, X' in the cluster), Eyeriss-like (Y' spatial in both levels),
// and the depthwise template (C spatial) that depthwise layers always use.
enum class Dataflow : uint8_t { Dla, Shi, Eye, Dpt };
std::string_view dataflow_name(Dataflow d);  // "dla", "shi", "eye", "dpt"

// The template's directives with its constants substituted: KTileSz = k_tile, CTileSz =
// c_tile, ClusterSz = cluster (ConfuciuX sets ClusterSz to the layer's PE count, CTileSz 1).
// These are ConfuciuX's m-files verbatim; Problem prices them for dla, shi and dpt, and
// layer_mapping()'s row-stationary array for eye.
mapping::Mapping template_mapping(Dataflow d, int64_t k_tile, int64_t c_tile, int64_t cluster);

// The eye (Eyeriss-like, row stationary) array as Problem prices it. Upstream's eye.m spreads
// output rows Y' over the clusters and, inside a cluster, both Y' and X' (two spatial maps at
// one level), which MAESTRO prices above one MAC per PE per cycle (docs/confuciux.md). Eyeriss
// runs a 2-D array instead: a column of R PEs holds the R filter rows of one output row (PE i
// takes filter row i and input row i of the window; partial sums are summed down the column),
// and several columns, i.e. output rows, run side by side. With P PEs and R filter rows:
//   level 0: TemporalMap(CTileSz) C, TemporalMap(KTileSz) K, SpatialMap(1,1) Y',
//            TemporalMap(Sz(S),Sz(S)) X', TemporalMap(Sz(R)) R, TemporalMap(Sz(S)) S
//   P >= R, Cluster(R); level 1: TemporalMap(1,1) C, SpatialMap(1,1) Y, SpatialMap(1,1) R,
//            TemporalMap(1,1) X', TemporalMap(Sz(S)) S
//   P < R: level 0 alone (each PE holds all R filter rows of its output row).
// Output rows in flight = floor(P / R) (P < R: P), PEs used = R x min(rows in flight, Y')
// (P < R: min(P, Y')); the rest of the array idles. Latency falls with P until the array
// covers Y' and never exceeds one MAC per PE per cycle.
mapping::Mapping eye_mapping(int64_t k_tile, int64_t c_tile, int64_t pes, int64_t filter_rows);

// The accelerator ConfuciuX describes to MAESTRO for a layer with `num_pes` PEs: MAGMA's flags
// without --offchip_bw_cstr (NoC 81,920,000 words/cycle, L1 and L2 limits 819,200,000 B,
// MAESTRO's default off-chip 70,000 words/cycle), 1-byte words, our energy table.
arch::Arch confuciux_arch(int64_t num_pes);
inline constexpr int64_t kMaestroNocBw = arch::kMaestroUnboundedWordsPerCycle;

// MAESTRO's area rule (its Accelerator module, unitless "area" as MAESTRO prints it):
//   area = num_pes (283 + 0.104 l1_bytes) + 0.104 l2_bytes
//        + 101.7938 (14.662 num_pes + 28.895) noc_bw                      (bus)
//        + 395.473 max(1, 1.2886 num_pes^2 + 5.5814 num_pes - 23.711)      (arbiter)
// with l1_bytes and l2_bytes the sizes the mapping needs: the one area rule (arch/area.h) with
// arch::maestro_art on the three-level hierarchy of that accelerator. At ConfuciuX's NoC bandwidth
// the bus dominates: 1 PE gives 3.6322e11, 128 PEs 1.5891e13.
double maestro_area(int64_t num_pes, int64_t l1_bytes, int64_t l2_bytes,
                    int64_t noc_bw = kMaestroNocBw);

// How loop edges (a tile that does not divide its extent) are priced.
//   Padded:   every edge iteration costs a full tile, i.e. the layer is evaluated with each
//             level-0 non-overlapping map's extent rounded up to a multiple of its tile. This is
//             what MAESTRO prints on every CONV state of the ConfuciuX reference runs; it never
//             goes below the physical bound (hardware without edge handling pads with zeros).
//   Physical: our cost model's edge-aware pricing (each edge costs what its partial tile needs).
enum class EdgePricing : uint8_t { Padded, Physical };

enum class Objective : uint8_t { Latency, Energy };
enum class ConstraintKind : uint8_t { Area, Power };
// Pipelined: every layer has its own sub-accelerator, resources are summed over layers.
// Sequential: one accelerator runs the layers in turn, resources are the maximum over layers.
enum class Deployment : uint8_t { Pipelined, Sequential };

// A platform's constraint fraction between the minimum and the maximum design.
// "cloud" 0.5, "iot" 0.1, "eiot" 0.05. Throws InputError for another name.
double platform_fraction(const std::string& name);

// One layer's resources: raw values (the RL picks them from the levels; the GA moves them
// anywhere in [1, kMaxPes] x [1, kMaxKTile]).
struct LayerChoice {
  int64_t pes = 1;
  int64_t k_tile = 1;
  Dataflow dataflow = Dataflow::Dla;
  bool operator==(const LayerChoice& o) const {
    return pes == o.pes && k_tile == o.k_tile && dataflow == o.dataflow;
  }
};
using Design = std::vector<LayerChoice>;  // one per layer, in model order

// The mapping Problem prices for `layer` under `c`: template_mapping(c.dataflow, c.k_tile, 1,
// c.pes) for dla, shi and dpt; eye_mapping(c.k_tile, 1, c.pes, R) for eye.
mapping::Mapping layer_mapping(const workload::Layer& layer, const LayerChoice& c);

// What one layer costs under one choice.
struct LayerCost {
  bool ok = false;
  std::string reason;  // why not ok
  int64_t latency_cycles = 0;
  double energy_nj = 0;
  double area = 0;      // MAESTRO's area rule
  double power_mw = 0;  // arch layer: energy / runtime at the arch clock
};

// A whole design's totals (latency and energy are always summed; area and power by deployment).
struct DesignCost {
  bool ok = false;  // every layer evaluated
  int64_t latency_cycles = 0;
  double energy_nj = 0;
  double area = 0;
  double power_mw = 0;
  double objective = 0;   // latency_cycles or energy_nj
  double constraint = 0;  // area or power
  bool feasible = false;  // ok and constraint <= the budget
};

struct ProblemOptions {
  std::string dataflow = "dla";  // dla | shi | eye | mixed (depthwise layers: dpt)
  Objective objective = Objective::Latency;
  ConstraintKind constraint = ConstraintKind::Area;
  double fraction = 0.5;  // budget = min + fraction (max - min)
  Deployment deployment = Deployment::Pipelined;
  EdgePricing edges = EdgePricing::Padded;
};

// The problem with its per-state cache. A state is (layer shape, PEs, KTileSz, dataflow):
// layers with identical shapes share states, like ConfuciuX's exp_table. Two counts of the
// cost model's use: calls() = the distinct states evaluated so far (cache misses), lookups() =
// every layer_cost() asked, cache hits included (the workplace's sample count: a design of L
// layers evaluated whole is L lookups). Not thread-safe (the cache).
class Problem {
 public:
  // Keeps the GEMM-class layers of `model` (CONV, DSCONV, FC as a 1x1 CONV); throws InputError
  // when none is left, more than kMaxLayers are, a layer cannot be priced on the minimum design
  // (1 PE, KTileSz 1: beyond the cost model's exact counts), or for a bad option. Computes the
  // budget from the four corner designs (every layer at the minimum or maximum PE level and buffer
  // level, each dataflow choice); those evaluations count as calls.
  Problem(const workload::Model& model, const ProblemOptions& options);

  size_t num_layers() const { return layers_.size(); }
  const workload::Layer& layer(size_t i) const { return layers_[i]; }
  const std::string& model_name() const { return model_name_; }
  const ProblemOptions& options() const { return options_; }
  // Dataflows a layer may use: one (fixed), three (mixed), or {Dpt} for depthwise layers.
  const std::vector<Dataflow>& dataflows(size_t layer) const { return dataflows_[layer]; }
  // Number of actions per layer: 2, or 3 with a dataflow choice (mixed).
  int actions_per_layer() const { return options_.dataflow == "mixed" ? 3 : 2; }
  // Layer features for a policy: K, C, Y, X, R, S, T (1 CONV, 2 depthwise) over their maxima.
  std::array<float, 7> features(size_t layer) const;

  // The design that action levels (PE level, buffer level[, dataflow index]) per layer give.
  LayerChoice choice_from_levels(size_t layer, int pe_level, int buffer_level,
                                 int dataflow_index = 0) const;

  LayerCost layer_cost(size_t layer, const LayerChoice& c);  // cached; counts a new state
  DesignCost evaluate(const Design& d);                      // every layer, then totals
  // Totals of already computed layer costs (no evaluation).
  DesignCost combine(const std::vector<LayerCost>& costs) const;

  double budget() const { return budget_; }
  double min_constraint() const { return min_; }
  double max_constraint() const { return max_; }
  // The design with every layer at 1 PE and KTileSz 1 (first dataflow): the smallest area.
  Design minimum_design() const;
  // Whether `c` is a choice layer `layer` may take (PEs in [1, kMaxPes], KTileSz in [1,
  // kMaxKTile], one of the layer's dataflows); a design: one valid choice per layer.
  bool valid_choice(size_t layer, const LayerChoice& c) const;
  bool valid_design(const Design& d) const;

  int64_t calls() const { return static_cast<int64_t>(order_.size()); }
  int64_t lookups() const { return lookups_; }
  // The counts the constructor spent (corner designs and the minimum-design check).
  int64_t setup_calls() const { return setup_calls_; }
  int64_t setup_lookups() const { return setup_lookups_; }
  // A checkpoint restores the lookups its run had made (replay() and checks add their own).
  void set_lookups(int64_t n) { lookups_ = n; }
  // The states evaluated, in order (for checkpoints): replay() re-evaluates them so a resumed
  // run counts exactly what an uninterrupted one would.
  std::vector<std::array<int64_t, 4>> state_log() const { return order_; }
  void replay(const std::vector<std::array<int64_t, 4>>& log);

 private:
  LayerCost compute(size_t shape, const LayerChoice& c) const;
  std::string model_name_;
  ProblemOptions options_;
  std::vector<workload::Layer> layers_;
  std::vector<size_t> shape_of_;  // layer -> index of its first layer with the same shape
  std::vector<std::vector<Dataflow>> dataflows_;
  std::array<double, 7> feature_max_{};
  std::unordered_map<uint64_t, LayerCost> cache_;
  std::vector<std::array<int64_t, 4>> order_;  // {shape, pes, k_tile, dataflow}
  double budget_ = 0, min_ = 0, max_ = 0;
  int64_t lookups_ = 0, setup_calls_ = 0, setup_lookups_ = 0;
};

// The layer MAESTRO effectively prices under EdgePricing::Padded: each level-0 map whose offset
// equals its size and does not divide its extent gets the extent rounded up to a multiple of
// the size (Y'/X' in output coordinates).
workload::Layer padded_layer(const workload::Layer& layer, const mapping::Mapping& mapping);

// Parses "latency|energy", "area|power", "pipelined|sequential", "padded|physical"; throws
// InputError at `flag`.
Objective parse_objective(const std::string& s, const std::string& flag = "--objective");
ConstraintKind parse_constraint(const std::string& s, const std::string& flag = "--constraint");
Deployment parse_deployment(const std::string& s, const std::string& flag = "--deployment");
EdgePricing parse_edges(const std::string& s, const std::string& flag = "--edges");

}  // namespace sparsemap::dse::hwalloc
