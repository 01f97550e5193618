// Timeloop's map space on a storage hierarchy: every way to split each dimension's bound over
// the levels' temporal and spatial loops, order each level's temporal loops and choose which
// levels keep which data spaces, under the mapspace constraints Timeloop reads. A genome in
// [0, 1)^n always decodes to a point of it (search::Genome's contract).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/search/optimizer.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::dse::timeloop {

// The prime factors of n >= 1, ascending, with repeats (12 -> 2, 2, 3; 1 -> none).
std::vector<int64_t> prime_factors(int64_t n);

// One level's constraints, parsed against the problem (Timeloop v0.4's semantics):
//   factors      "D=n" fixes the factor of D (n = 0: the whole bound), "D<=n" / "D>=n" bound
//                it; a dimension not named is free;
//   permutation  dimension letters, innermost first; the ones before '_' are the innermost
//                loops in that order, the ones after it the outermost, the rest free between;
//   split        spatial only: the first `split` dimensions of the spatial permutation run
//                along meshX, the rest along meshY;
//   keep/bypass  data spaces the level must keep or must not; the others are free.
struct FactorBounds {
  int64_t exact = 0;  // 0: not fixed
  int64_t min = 1, max = INT64_MAX;
};
struct LevelRules {
  std::vector<FactorBounds> temporal, spatial;      // [dim]
  std::vector<int> temporal_inner, temporal_outer;  // dims, innermost first
  std::vector<int> spatial_inner, spatial_outer;    // dims, innermost first
  int split = -1;                                   // -1: free
  uint64_t keep = 0, bypass = 0;                    // bit k: data space k
  int64_t fanout_x = 1, fanout_y = 1;               // spatial instances below one instance
};

// The map space of one problem on one architecture. Construction parses every level's
// constraints and throws InputError naming the level and the offending text for an unknown
// dimension or data space, a malformed factor or permutation, a data space both kept and
// bypassed, a fixed factor larger than its bound, fixed factors of a dimension whose product
// does not divide the bound, or a level that bypasses a data space at the outermost level.
//
// Genome layout (all genes in [0, 1)):
//   factor genes  one per prime factor of each dimension's bound left free by the fixed
//                 factors (dimension by dimension, primes ascending): which free slot (a
//                 level's temporal or spatial loop of that dimension) takes the prime; a slot
//                 that would exceed its max factor or its fan-out passes the prime on to the
//                 next slot (the outermost level's temporal slot takes any);
//   axis genes    one per level and dimension where the split is free and both meshes have
//                 room: the dimension's spatial loop runs along X (< 0.5) or Y;
//   order genes   one per level and dimension: the free part of the level's temporal
//                 permutation, by ascending gene;
//   keep genes    one per level and data space left free: kept when < 0.5.
class MapSpace {
 public:
  MapSpace(const workload::Einsum& p, const arch::Hierarchy& h);

  size_t genes() const { return genes_; }
  // The genome's groups (for genetic operators): the dimension of each factor gene, then the
  // (level, dim) of each axis gene, the first order gene (levels x dims follow, level-major)
  // and the (level, data space) of each keep gene.
  struct Layout {
    std::vector<int> factor_dim;
    size_t axis_base = 0, order_base = 0, keep_base = 0;
    std::vector<std::pair<int, int>> axis, keep;
    int levels = 0, dims = 0;
  };
  Layout layout() const;
  const std::vector<LevelRules>& rules() const { return rules_; }

  // The point a genome decodes to (factors multiply to the bounds, orders are permutations,
  // spatial factors within each fan-out; a min factor not met, or a prime no slot can take,
  // leaves `feasible` false).
  struct Decoded {
    cost::LoopNestPoint point;
    std::vector<int> split;  // [level]: spatial dims along X (Timeloop's split), for writing
    bool feasible = true;
    std::vector<int> scratch;  // decode's working space (reused with the point)
  };
  Decoded decode(const search::Genome& g) const;
  // The same into `out`, reusing its storage (no allocation once `out` has held a point of
  // this space): the search's hot path.
  void decode(const search::Genome& g, Decoded& out) const;

  // Every distinct point when there are at most `limit` of them (factor splits x orders of
  // the loops whose factor is over 1 x keep choices), each once; false (nothing visited) when
  // there are more. `visit` returns false to stop early.
  bool enumerate(uint64_t limit, const std::function<bool(const Decoded&)>& visit) const;
  // The number of points enumerate() visits, or `cap` when there are at least that many
  // (map_space_count.cpp: without visiting them).
  uint64_t count(uint64_t cap) const;

  // The named mapping of a point (as a map.yaml writes it): per level a temporal directive
  // with every factor and the permutation innermost first, a spatial one where a factor is over
  // 1 (with its split), and the keep / bypass lists.
  mapping::LoopNest to_mapping(const Decoded& d) const;

 private:
  struct Prime {
    int dim;
    int64_t value;
  };
  struct Slot {
    int level;
    bool spatial;
  };
  // Factors being placed: per (level, dim) the temporal and spatial factors so far and the
  // mesh axis of the spatial one (0: X, 1: Y); per level the X and Y fan-out used.
  struct Placement {
    std::vector<int64_t> temporal, spatial;
    std::vector<int> axis;
    std::vector<int64_t> used_x, used_y;
    bool feasible = true;
  };
  void parse_level(int i);
  void add_genes();
  // Mesh axis of level's spatial loop on dim: fixed by the fan-out or the split, else the
  // genome's axis gene (-1 without a genome).
  int axis_of(int level, int dim, const search::Genome* g) const;
  void start_placement(const search::Genome* g, Placement& pl) const;
  void fix_axes_and_orders();
  void set_start();
  bool fits(const Placement& pl, const Slot& slot, int dim, int64_t value) const;
  void put(Placement& pl, const Slot& slot, int dim, int64_t value) const;
  // Undoes put(pl, slot, dim, value) (value: the product of the factors put there).
  void take(Placement& pl, const Slot& slot, int dim, int64_t value) const;
  // The free keep / bypass choices: keep gene j is kept when genes[j] < 0.5 (genes set), else
  // when bit j of mask is set.
  struct KeepChoice {
    const double* genes = nullptr;
    uint64_t mask = 0;
    bool kept(size_t j) const { return genes ? genes[j] < 0.5 : (mask >> j & 1) != 0; }
  };
  void finish(const Placement& pl, const double* order_keys, KeepChoice keep, Decoded& d) const;
  struct Counter;

  const workload::Einsum& p_;
  const arch::Hierarchy& h_;
  int n_ = 0, nd_ = 0, nds_ = 0;
  std::vector<LevelRules> rules_;
  std::vector<int64_t> fixed_temporal_, fixed_spatial_;  // [level * dims + dim], 1 when free
  std::vector<Prime> primes_;                            // the free part of every bound
  std::vector<std::vector<Slot>> slots_;                 // [dim]: its free slots, outermost first
  std::vector<std::pair<int, int>> axis_genes_;          // (level, dim)
  std::vector<int> axis_fixed_;                          // [level * dims + dim]: 0 X, 1 Y, -1
  std::vector<int> axis_gene_of_;                        // [level * dims + dim]: gene index
  Placement start_;                              // start_placement without a genome (set_start)
  std::vector<size_t> free_axis_cells_;          // level * dims + dim whose axis a gene chooses
  std::vector<char> has_min_;                    // [level]: some factor has a min over 1
  std::vector<std::vector<int>> temporal_free_;  // [level]: dims not in its permutation
  std::vector<std::pair<int, int>> keep_genes_;  // (level, data space)
  size_t genes_ = 0, axis_base_ = 0, order_base_ = 0, keep_base_ = 0;
};

}  // namespace sparsemap::dse::timeloop
