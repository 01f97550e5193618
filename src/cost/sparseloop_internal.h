// Internal to the Sparseloop model (sparseloop*.cpp): the problem and mapping in the form the
// sparse analysis needs (every loop, trivial ones too, innermost first), tile occupancies of
// the density models, format metadata and the leader-tile probabilities of gating / skipping.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/arch/sparse_optimizations.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::cost::sparseloop_detail {

struct Loop {
  int dim = 0;
  int64_t bound = 1;
  int level = 0;  // storage level (outermost 0) the loop belongs to
  bool spatial = false;
};

// The problem, the mapping's loops and the density models, looked up once.
struct Nest {
  const workload::Einsum* p = nullptr;
  const arch::Hierarchy* h = nullptr;
  int levels = 0, dims = 0, nds = 0;
  std::vector<Loop> loops;         // innermost first: level N-1's spatial, temporal, ...
  std::vector<int> level_begin;    // [level]: first index in `loops` of the level's loops
  std::vector<int> level_end;      // [level]: one past its last
  std::vector<uint64_t> keep;      // [level]: bit ds
  std::vector<uint64_t> relevant;  // [ds]: bit dim
  std::vector<workload::DensityModel> density;  // [ds]; dense: fixed_structured 1
  std::vector<bool> has_density;                // [ds]
  std::vector<int64_t> tensor_points;           // [ds]: the whole tensor
  std::vector<int64_t> bounds;                  // [dim]

  bool kept(int level, int ds) const { return keep[level] >> ds & 1; }
  bool is_relevant(int ds, int dim) const { return relevant[ds] >> dim & 1; }
  // Points of data space ds in an operation-space box of the given extents (per dimension).
  int64_t points(int ds, const std::vector<int64_t>& ext) const;
  // Extent per axis of data space ds in that box.
  std::vector<int64_t> axis_extents(int ds, const std::vector<int64_t>& ext) const;
  // The extents of level i's tile: every loop of levels >= i.
  std::vector<int64_t> level_extents(int level) const;
  // The occupancies a tile of `tile_points` points of ds can have with a probability that
  // matters (all others are 0, or below 1e-30 for the hypergeometric model).
  std::pair<int64_t, int64_t> support(int ds, int64_t tile_points) const;
  // Probability that `tile_points` points of ds hold `occupancy` nonzeros.
  double prob(int ds, int64_t tile_points, int64_t occupancy) const;
  // The same for a tile of ds of these extents per projection axis (axis_extents): an actual
  // density model counts the tensor's tiles of that shape; the others use the points.
  std::pair<int64_t, int64_t> support(int ds, const std::vector<int64_t>& axes) const;
  double prob(int ds, const std::vector<int64_t>& axes, int64_t occupancy) const;
  bool actual(int ds) const {
    return has_density[ds] && density[ds].distribution == workload::DensityDistribution::kActual &&
           density[ds].tensor;
  }
  // The next level inside `level` keeping ds, or `levels` (the compute units).
  int child(int level, int ds) const;
};

// Builds the nest from a resolved mapping point.
Nest build_nest(const workload::Einsum& p, const arch::Hierarchy& h, const LoopNestPoint& x,
                const std::map<std::string, workload::DensityModel>& densities);

// Expected format units of one tile, per rank (rank 0 innermost), and the tile's expected
// nonzeros. `parent_compressed`: the next outer keeper has metadata (the tile is then known
// nonempty).
// `formats[l]`: the data space's format at level l, or nullptr. `error`: why the tile cannot be
// represented (more ranks needed than the format has, formats that do not align for a
// compressed tile over a compressed child), else "".
struct FormatOccupancy {
  std::vector<double> metadata, payload;         // [rank]
  std::vector<int> metadata_bits, payload_bits;  // [rank]
  double expected_nonzeros = 0;
  std::string error;
};
FormatOccupancy format_occupancy(const Nest& n, int level, int ds,
                                 const std::vector<const arch::DataSpaceFormat*>& formats,
                                 bool parent_compressed);

// The probability that an access of `target` at `level` is ineffectual given its leaders
// (gating / skipping), and the level the optimisation lands on (the target's keeper at or
// above `level`; -1 when none keeps it). Leader names are data space indices.
struct Ineffectual {
  double p = 0;
  int level = -1;
};
Ineffectual ineffectual_probability(const Nest& n, int level, int target,
                                    const std::vector<int>& leaders);

// The bits a metadata word of this level takes by default (`metadata_datawidth` or
// `metadata_word_bits`, else 0) and its metadata storage width (`metadata_storage_width` or
// `metadata_width`, else 0).
int default_metadata_bits(const arch::StorageLevel& s);
int metadata_storage_width(const arch::StorageLevel& s);

}  // namespace sparsemap::cost::sparseloop_detail
