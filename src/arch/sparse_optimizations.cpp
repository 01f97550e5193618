#include "sparsemap/arch/sparse_optimizations.h"

namespace sparsemap::arch {

const char* action_kind_name(ActionKind k) {
  switch (k) {
    case ActionKind::kGating:
      return "gating";
    case ActionKind::kSkipping:
      return "skipping";
    case ActionKind::kSpatialSkipping:
      return "skipping_spatial";
  }
  return "?";
}

const DataSpaceFormat* LevelSparseOptimizations::format(const std::string& data_space) const {
  for (const auto& f : formats)
    if (f.data_space == data_space) return &f;
  return nullptr;
}

const LevelSparseOptimizations* SparseOptimizations::find(const std::string& level) const {
  for (const auto& l : levels)
    if (l.level == level) return &l;
  return nullptr;
}

}  // namespace sparsemap::arch
