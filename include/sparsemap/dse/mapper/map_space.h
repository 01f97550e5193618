// GAMMA's map space (Kao and Krishna, ICCAD 2020) as a flat genome in [0, 1): cluster levels,
// per level a parallel dimension, a cluster size, a loop order and tile sizes; decode() turns
// any genome into a legal, physically sound MAESTRO mapping of one layer on one accelerator.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/arch/arch.h"
#include "sparsemap/cost/evaluate.h"
#include "sparsemap/mapping/mapping.h"
#include "sparsemap/search/optimizer.h"
#include "sparsemap/workload/layer.h"

namespace sparsemap::dse::mapper {

// The six loop dimensions GAMMA searches, as slots. Their meaning follows the layer kind:
//   slot   Conv/TrConv/NgConv  DsConv  Fc     Gemm   BatchedGemm
//   0 "K"  K                   -       K      N      N            (output channels / columns)
//   1 "C"  C                   C       C      K      K            (reduction)
//   2 "Y'" Y' (output rows)    Y'      N      M      M            (output rows)
//   3 "X'" X' (output columns) X'      -      -      G
//   4 "R"  R                   R       -      -      -
//   5 "S"  S                   S       -      -      -
// "-" is an absent slot (extent 1, never emitted). Batch-like dimensions that no slot holds
// (N of a convolution, G of a grouped one) are walked outermost with tile 1.
inline constexpr int kSlots = 6;
const char* slot_name(int slot);  // "K", "C", "Y'", "X'", "R", "S"

// Constraint classes fix parts of the mapping so that fixed-dataflow accelerators are searched:
//   none        everything is searched;
//   nvdla       two levels, level 0 parallel over slot K, level 1 over slot C (NVDLA-like);
//   eyeriss     two levels, level 0 parallel over Y' (output rows), level 1 over R (filter
//               rows): Eyeriss-like row stationary;
//   shidiannao  two levels, level 0 parallel over Y', level 1 over X' (output stationary).
enum class Constraint : uint8_t { None, Nvdla, Eyeriss, ShiDianNao };
Constraint parse_constraint(const std::string& text);  // throws InputError at --constraint
std::string constraint_name(Constraint c);
const std::vector<std::string>& constraint_names();

enum class Objective : uint8_t { Latency, Energy, Edp, Throughput };
Objective parse_objective(const std::string& text);  // throws InputError at --objective
std::string objective_name(Objective o);

struct MapSpaceOptions {
  int max_levels = 2;          // L: 1..4 cluster levels (a level-count gene picks 1..L)
  bool divisors_only = false;  // tiles only divide their parent's extent (even mappings)
  Constraint constraint = Constraint::None;
  bool fixed_order = false;  // every level keeps the slot order K, C, Y', X', R, S (keys ignored)
  // Only mappings MAESTRO's parser accepts as written (what --emit-m writes): R and S are
  // untiled at every level (tile = the full filter, whatever the tile genes say) and never the
  // parallel slot unless a constraint class fixes it; a batched GEMM's G leaves slot 3 and is
  // walked outermost one batch at a time, like N (it is written as one GEMM per batch).
  bool maestro_compatible = false;
};

// The genome of one layer's map space (dims() genes, each in [0, 1)):
//   gene 0                    level count: 1 + floor(g * L) active levels (growth/aging)
//   then per level l < L, a block of kBlock genes:
//     +0          parallel (spatial) slot: the floor(g * A)-th of the layer's A
//                 parallel_choices() (its present slots)
//     +1 .. +6    loop-order keys of the six slots (random keys: ascending key = outer loop)
//     +7 .. +12   tile of each slot, relative to its parent extent E (level 0: the dimension,
//                 Y'/X' the output size; level l: level l-1's tile):
//                 tile = clamp(floor((E + 1)^g), 1, E)  (log-uniform over 1..E), or with
//                 divisors_only the floor(g * n)-th of E's n divisors
//     +13         cluster size of level l >= 1 (unused at level 0): log-uniform over
//                 1..P / (product of the cluster sizes of levels 1..l-1)
// Inactive levels keep their genes (aging keeps them for a later growth).
class MapSpace {
 public:
  static constexpr int kBlock = 14;
  static constexpr int kParGene = 0, kKeyGene = 1, kTileGene = 7, kClusterGene = 13;

  MapSpace(const workload::Layer& layer, const arch::Arch& arch, const MapSpaceOptions& options);

  size_t dims() const { return 1 + static_cast<size_t>(kBlock * options_.max_levels); }
  const workload::Layer& layer() const { return layer_; }
  const arch::Arch& arch() const { return arch_; }
  const MapSpaceOptions& options() const { return options_; }
  // Extent of a slot at level 0 (1 for an absent slot).
  int64_t extent(int slot) const { return extent_[slot]; }
  // Slots with extent > 1 (at least one slot is listed, slot 0 for a 1x1 problem).
  const std::vector<int>& present() const { return present_; }
  // The slots the parallel gene chooses among: present(), less R and S when
  // maestro_compatible (a slot with a dimension is kept if nothing else is left).
  const std::vector<int>& parallel_choices() const { return parallel_; }

  // A decoded genome, before it is written as directives.
  struct Decoded {
    int levels = 1;
    std::array<int, 4> parallel{};                      // slot per level
    std::array<std::array<int, kSlots>, 4> order{};     // slots outermost first, per level
    std::array<std::array<int64_t, kSlots>, 4> tile{};  // per level and slot
    std::array<int64_t, 4> cluster{};                   // cluster size per level (0: none)
  };
  // Repairs and decodes. Guarantees: 1 <= tile[l][s] <= tile[l-1][s] (level 0: <= extent(s)),
  // product of the cluster sizes <= arch PEs, a cluster size never exceeds the chunks its
  // level's parallel slot has (ceil(parent extent / tile)); with divisors_only every tile divides
  // its parent extent. The constraint class is applied.
  Decoded decode_raw(const search::Genome& g) const;
  mapping::Mapping to_mapping(const Decoded& d) const;
  mapping::Mapping decode(const search::Genome& g) const { return to_mapping(decode_raw(g)); }

  // A genome that decodes to `d` (or to its repaired form): used to adapt a mapping of another
  // layer (warm-start) by re-encoding its tiles relative to this layer's extents.
  search::Genome encode(const Decoded& d) const;

  // Per-gene level counts for search::make_optimizer("exhaustive"): enough distinct values of
  // every gene to reach every decoding (genes whose values collapse after repair enumerate
  // duplicates; enumerate_space() in exhaustive.h visits each decoding once).
  std::vector<int64_t> exhaustive_levels() const;

 private:
  int64_t tile_from_gene(double g, int64_t parent) const;
  double gene_from_tile(int64_t tile, int64_t parent) const;

  workload::Layer layer_;
  arch::Arch arch_;
  MapSpaceOptions options_;
  std::array<mapping::Directive, kSlots> proto_{};  // dimension and primed flag per slot
  std::array<int64_t, kSlots> extent_{};
  std::vector<int> present_;
  std::vector<int> parallel_;
  std::vector<workload::Dim> outer_;  // batch-like dimensions walked outermost
};

// The objective value of a Cost (lower is better): latency runtime_cycles, energy energy_nj,
// edp runtime_cycles x energy_nj, throughput runtime_cycles / macs (cycles per MAC: the inverse
// of MACs per cycle). search::kInfeasible when the cost is not Ok.
double objective_value(const cost::Cost& c, Objective o);

// Fitness of one genome: decode, evaluate with enforce_buffers and every density of `sparsity`
// (one entry is the dense or given point; several are a density range), then the mean (or the
// worst, `worst_case`) objective. Thread-safe.
struct FitnessSpec {
  Objective objective = Objective::Latency;
  std::vector<cost::SparsityOptions> sparsity = {cost::SparsityOptions{}};
  bool worst_case = false;
};
double fitness(const MapSpace& space, const search::Genome& g, const FitnessSpec& spec);

}  // namespace sparsemap::dse::mapper
