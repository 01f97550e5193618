// Kernel formats as Sparseloop representation formats (include/sparsemap/sparse/format/
// sparseloop_format.h).
#include "sparsemap/sparse/format/sparseloop_format.h"

#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace {

[[noreturn]] void bad(const FormatSpec& spec, const std::string& why) {
  throw InputError({"<format>", 0, 0}, "'" + spec.str() + "': " + why);
}

}  // namespace

arch::DataSpaceFormat sparseloop_format(const FormatSpec& spec, const std::string& data_space,
                                        const MatrixDims& dims) {
  if (spec.kind == FormatKind::Vnm)
    bad(spec,
        "expected dense, csr, bsr, cvse or nm: V:N:M's 4-column selection is shared by V rows, "
        "which no Sparseloop fibre tree describes");
  if (dims.rows.empty() || dims.cols.empty())
    bad(spec, "expected the problem dimensions of both the rows and the columns of " + data_space);
  arch::DataSpaceFormat f;
  f.data_space = data_space;
  f.ranks = spec.levels().ranks;
  for (arch::RankSpec& r : f.ranks) {
    const bool rows = r.flattened_rank_ids == std::vector<std::vector<std::string>>{{"rows"}};
    r.flattened_rank_ids = {rows ? dims.rows : dims.cols};
  }
  return f;
}

void set_format(arch::SparseOptimizations& so, const std::string& level,
                const arch::DataSpaceFormat& f) {
  arch::LevelSparseOptimizations* l = nullptr;
  for (auto& x : so.levels)
    if (x.level == level) l = &x;
  if (!l) {
    so.levels.emplace_back();
    l = &so.levels.back();
    l->level = level;
  }
  for (auto& x : l->formats)
    if (x.data_space == f.data_space) {
      x = f;
      return;
    }
  l->formats.push_back(f);
}

}  // namespace sparsemap::sparse
