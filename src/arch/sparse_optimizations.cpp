#include "sparsemap/arch/sparse_optimizations.h"

namespace sparsemap::arch {

const char* rank_format_name(RankFormat f) {
  switch (f) {
    case RankFormat::kUOP:
      return "UOP";
    case RankFormat::kCP:
      return "CP";
    case RankFormat::kB:
      return "B";
    case RankFormat::kUB:
      return "UB";
    case RankFormat::kRLE:
      return "RLE";
  }
  return "?";
}

bool rank_compressed(RankFormat f) {
  return f == RankFormat::kCP || f == RankFormat::kB || f == RankFormat::kRLE;
}

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

bool DataSpaceFormat::compressed() const {
  for (const auto& r : ranks)
    if (rank_compressed(r.format)) return true;
  return false;
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
