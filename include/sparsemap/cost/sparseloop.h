// Sparseloop's sparse modelling (Timeloop 3) on top of the dense loop-nest model: density
// models, per-rank representation formats (metadata), gating and skipping at the storage
// levels and at the compute units, and the statistics Sparseloop prints.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "sparsemap/arch/hierarchy.h"
#include "sparsemap/arch/sparse_optimizations.h"
#include "sparsemap/cost/loopnest.h"
#include "sparsemap/mapping/loop_nest.h"
#include "sparsemap/workload/density.h"
#include "sparsemap/workload/einsum.h"

namespace sparsemap::cost {

// Accesses of one kind (reads, fills or updates) split as Sparseloop splits them, in words per
// utilized instance: actual (performed), gated (the cycle is spent, the energy is not) and
// skipped (neither). actual + gated + skipped <= algorithmic: accesses to zeros that a
// compressed format does not store are none of the three.
struct SparseCounts {
  int64_t algorithmic = 0, actual = 0, gated = 0, skipped = 0;
  bool operator==(const SparseCounts& o) const {
    return algorithmic == o.algorithmic && actual == o.actual && gated == o.gated &&
           skipped == o.skipped;
  }
};

// Metadata and payload units of one rank (rank 0 is the innermost, as Timeloop prints them).
struct RankUnits {
  int64_t metadata = 0, payload = 0;
  bool operator==(const RankUnits& o) const {
    return metadata == o.metadata && payload == o.payload;
  }
};

struct SparseDataspace {
  std::string name;
  int64_t tile_words = 0;                   // the dense tile (points)
  double expected_occupancy = 0;            // expected nonzeros of the tile
  std::string format = "none";              // "none", or the ranks outermost first: "uop cp"
  std::vector<RankUnits> format_occupancy;  // expected metadata units of the tile, per rank
  SparseCounts reads, fills, updates;
  // Metadata accesses per rank (units of each rank's metadata / payload words).
  std::vector<RankUnits> format_reads, gated_format_reads, skipped_format_reads;
  std::vector<RankUnits> format_fills, gated_format_fills, skipped_format_fills;
  std::vector<RankUnits> format_updates, gated_format_updates, skipped_format_updates;
  // Words decompressed on the way in from a compressed parent (the actual fills of an
  // uncompressed tile) and compressed on the way back (read_write: the parent's actual
  // updates); priced at the ERT's decompression_count / compression_count.
  int64_t decompressions = 0, compressions = 0;
  double energy_pj = 0;  // accesses of all utilized instances (data and metadata)
  bool operator==(const SparseDataspace& o) const;
};

struct SparseLevel {
  std::string name;
  int64_t instances = 1, utilized_instances = 1;
  bool dummy = false;
  std::vector<SparseDataspace> dataspaces;  // the kept ones, in the problem's order
  int64_t cycles = 0;                       // bandwidth-limited time; 0 if unlimited
  double leak_energy_pj = 0, energy_pj = 0;
  const SparseDataspace* dataspace(const std::string& name) const;
};

struct SparseLoopResult {
  LoopNestStatus status = LoopNestStatus::kOk;
  std::string reason;
  LoopNestResult dense;  // the dense run the sparse one refines
  int64_t algorithmic_computes = 0, actual_computes = 0, gated_computes = 0, skipped_computes = 0;
  int64_t compute_cycles = 0;  // ceil((actual + gated) / utilized compute instances)
  int64_t cycles = 0;
  double utilization = 0;  // actual computes / (cycles x compute instances)
  std::string compute_name;
  double compute_energy_pj = 0;
  double energy_pj = 0;
  std::vector<SparseLevel> levels;  // outermost first

  bool ok() const { return status == LoopNestStatus::kOk; }
  const SparseLevel* level(const std::string& name) const;
  // A component's energy per algorithmic compute / per actual compute in fJ (Timeloop's
  // "fJ/Algorithmic-Compute" and "fJ/Compute" tables); "Total" for everything.
  double fj_per_algorithmic_compute(const std::string& component) const;
  double fj_per_compute(const std::string& component) const;
  // The dense JSON (LoopNestResult::to_json's keys, with the sparse cycles, energy and level
  // figures) plus algorithmic_computes, actual_computes, gated_computes, skipped_computes, and
  // per level and data space the actual / gated / skipped reads, fills and updates and the
  // metadata reads and fills per rank.
  nlohmann::json to_json() const;
};

// Evaluates `m` as Sparseloop does. Notation as in evaluate_loopnest (counts per utilized
// instance), p_ds the density model of data space ds (dense when `densities` has none):
//
//   Tile occupancy: a tile of n points of a tensor of N points holds k nonzeros with
//   probability P_ds(n, k) (workload/density.h); P_ds(n, 0) is the chance it is empty.
//
//   Formats (a data space with a representation format at level i): the tile's ranks are its
//   projection axes, the innermost rank the last axis, the outermost rank taking what is left;
//   with f_r the fibre shape of rank r, F_r = product of the shapes above r (fibres of rank r),
//   e_r = 1 - P(points of ranks <= r, 0) (a fibre is nonempty) and z_r = 1 - P(points of ranks
//   < r, 0) (a coordinate is nonempty):
//     UOP: metadata 0, payload F_r e_r (f_r + 1);     CP: metadata F_r e_r ceil(f_r z_r);
//     B:   metadata F_r e_r f_r, payload F_r e_r ceil(f_r z_r);  UB: f_r per fibre each;
//     RLE: metadata = payload = F_r e_r f_r z_r;  CP's payload, and the innermost rank's, 0.
//   averaged over the tile's occupancy k (each term evaluated at density k / n). A fibre of
//   shape 1 that is not the innermost rank has no metadata. Metadata accesses of an action
//   = ceil(units x algorithmic data accesses / tile points); data accesses of a compressed
//   data space: actual = algorithmic - floor(algorithmic x (1 - density)).
//
//   Gating / skipping of `target` at level i on leaders L: the probability that an access is
//   ineffectual, p = 1 - prod over leaders of (1 - P_leader(leader tile, 0)); the leader tile
//   is the leader's points of the operation space of the innermost loop (above the target's
//   child) relevant to the target, widened by the spatial loops above it, co-iterated
//   dimensions (indexed by target and leader) cut to one point; a scalar when the target
//   feeds the compute units from a temporal loop. Then, with a = the target's actual counts:
//     gated/skipped reads = ceil(a_reads p) (read_write) or floor(a_reads p), updates
//     floor(a_updates p), metadata per rank floor(units p); every inner level keeping the
//     target loses floor(x p) of its fills, reads and updates; when no inner level keeps it,
//     the computes lose floor(computes p).
//
//   Computes (two operands A, B, each with its innermost level's metadata flag): an operand
//   exists nonzero with probability d, exists as a zero with 1 - d (no metadata) or does not
//   exist with 1 - d (metadata); an operand skipped or gated on the other at its innermost
//   level is conditioned on the other's being nonempty (d / (1 - p)). Of the computes left:
//   both nonzero: actual; a zero operand: gated with compute gating, else actual; a missing
//   one: skipped with compute skipping, gated with gating, else actual; both missing: none.
//   gated and skipped are floored, actual takes the rest.
//
//   Cycles: the dense model's throttling formula on actual + gated accesses and metadata bits
//   / the level's word bits, over compute cycles = actual + gated computes per utilized
//   compute instance. Energy: ceil(actual / block) x E_read|write|update + the metadata
//   accesses' bits / the metadata storage width (rounded up) x E_metadata_read|write|update
//   + gated and skipped accesses x their ERT entries (0 when absent) + leakage x cycles;
//   compute: actual x E_compute + gated x E_gated_compute + skipped x E_skipped_compute;
//   (de)compressions x E_(de)compression_count. A compressed tile read in blocks of several
//   words costs E[ceil(nonzeros / block)] blocks per tile when the tile is small for its
//   density (Timeloop's threshold table; sparseloop.cpp, block_ratio). A data space whose
//   next outer keeper has metadata is priced over the instances holding a nonempty tile
//   (x (1 - P(tile, 0)), Timeloop's average utilized instances: empty tiles are not sent).
//
// What it does not model yet: spatial skipping, compression rates, banded densities (read as
// fixed_structured), the outer_to_inner rank order (read as inner_to_outer).
// Invalid names (a level, data space or leader the problem or architecture lacks), a tile its
// format cannot represent, and a level that must decompress (compress) a data space from (to)
// a compressed parent without its decompression_supported (compression_supported) attribute
// come back as kInvalidMapping with the reason.
//
// `pricing` picks whose conventions price the actions and report utilisation (counts and
// cycles are the same):
//   kTimeloop4 (the exercises' references): an action missing from the ERT falls back to
//     Timeloop 4's names (skipped_read -> gated_read, ...), gated / skipped / metadata actions
//     without an entry cost 0, and leakage x cycles is added;
//   kTimeloop303 (timeloop-model v3.0.3): v3.0.3's fallback lists (topology.hpp,
//     storageOperationMappings): random_update -> random_fill -> write (no `update`),
//     gated_read -> idle -> read, skipped_read -> gated_read -> idle -> read, gated / skipped
//     fills and updates -> ... -> write, metadata actions -> metadata_idle -> metadata_read /
//     metadata_write, gated / skipped computes -> ... -> compute; no leakage; utilisation
//     (actual + gated computes) / (cycles x compute instances).
enum class SparseloopPricing { kTimeloop4, kTimeloop303 };

SparseLoopResult evaluate_sparseloop(const workload::Einsum& p, const arch::Hierarchy& h,
                                     const mapping::LoopNest& m, const arch::EnergyTable* ert,
                                     const arch::SparseOptimizations& sparse,
                                     const std::map<std::string, workload::DensityModel>& densities,
                                     SparseloopPricing pricing = SparseloopPricing::kTimeloop4);

}  // namespace sparsemap::cost
