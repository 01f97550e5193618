// Sparse optimisations of a storage hierarchy as Sparseloop (Timeloop 3) describes them:
// representation formats per rank per data space per level, gating and skipping of a data
// space's accesses conditioned on other data spaces, and the compute units' gating / skipping.
#pragma once

#include <string>
#include <vector>

#include "sparsemap/workload/tensor_format.h"

namespace sparsemap::arch {

// A rank's representation format and a data space's per-rank formats are the one vocabulary of
// formats (workload/tensor_format.h), shared with the kernels' formats and the MAESTRO-class
// path.
using workload::rank_compressed;
using workload::rank_format_name;
using workload::RankFormat;
using workload::RankSpec;

// A data space's representation format at a level: its ranks (outermost first, as the YAML
// lists them) and Sparseloop's per-data-space options.
struct DataSpaceFormat : workload::TensorFormat {
  std::string data_space;
  bool inner_to_outer = true;    // `rank_application_order` (Timeloop's default: inner_to_outer)
  double compression_rate = -1;  // `compression_rate` when given, else -1
  bool operator==(const DataSpaceFormat& o) const {
    return data_space == o.data_space && ranks == o.ranks && inner_to_outer == o.inner_to_outer &&
           compression_rate == o.compression_rate;
  }
};

// Gating keeps the access's cycle but not its energy; skipping saves both.
enum class ActionKind { kGating, kSkipping, kSpatialSkipping };

const char* action_kind_name(ActionKind k);  // "gating", "skipping", "skipping_spatial"

// One action optimisation: the accesses of `target` at the level are gated / skipped when the
// tile of every data space of `condition_on` they go with is empty.
struct ActionOptimization {
  ActionKind kind = ActionKind::kGating;
  std::string target;
  std::vector<std::string> condition_on;
  // The action_optimization entry it came from (0, 1, ...): the options of one entry are
  // alternatives, of which Sparseloop applies the one that saves the most.
  int group = 0;
  bool operator==(const ActionOptimization& o) const {
    return kind == o.kind && target == o.target && condition_on == o.condition_on &&
           group == o.group;
  }
};

// The sparse optimisations of one component (a storage level or the compute units), by name.
struct LevelSparseOptimizations {
  std::string level;
  std::vector<DataSpaceFormat> formats;
  std::vector<ActionOptimization> actions;
  // Compute units only (`compute_optimization`): gate when an operand is zero; skip when the
  // operands' coordinates do not align.
  bool gate_on_zero_operand = false;
  bool skip_on_not_aligned_operands = false;
  const DataSpaceFormat* format(const std::string& data_space) const;
  bool operator==(const LevelSparseOptimizations& o) const {
    return level == o.level && formats == o.formats && actions == o.actions &&
           gate_on_zero_operand == o.gate_on_zero_operand &&
           skip_on_not_aligned_operands == o.skip_on_not_aligned_operands;
  }
};

struct SparseOptimizations {
  std::vector<LevelSparseOptimizations> levels;  // in the order the input lists them
  const LevelSparseOptimizations* find(const std::string& level) const;
  bool empty() const { return levels.empty(); }
  bool operator==(const SparseOptimizations& o) const { return levels == o.levels; }
};

}  // namespace sparsemap::arch
