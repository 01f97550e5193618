// A kernel format of a weight matrix as Sparseloop's representation format of a data space of a
// Timeloop problem, so that a pruned layer of ours (N:M, column-vector, block, CSR) can be priced
// on a Sparseloop architecture with cost::evaluate_sparseloop. docs/formats.md.
#pragma once

#include <string>
#include <vector>

#include "sparsemap/arch/sparse_optimizations.h"
#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {

// Which problem dimensions a weight matrix's rows and columns are: a CONV's weights as the
// kernels store them, K x (C R S), are rows {K}, cols {C, R, S}; a GEMM's A[m][k] is rows {M},
// cols {K}. N:M runs along the columns (the reduction), column vectors down the rows.
struct MatrixDims {
  std::vector<std::string> rows;
  std::vector<std::string> cols;
};

// spec.levels() with each rank flattening the problem dimensions of its matrix axis
// (flattened_rank_ids: "rows" -> dims.rows, "cols" -> dims.cols) and the widths our kernels
// store (a dense rank: UOP with a 0-bit payload, Sparseloop's idiom). Sparseloop gives each rank
// the tile's consecutive loops of its dimensions, innermost rank first: adjacent loops of one
// axis go to its innermost rank and leave the axis's outer rank empty, which changes no CP
// count (CP counts the nonzero coordinates). Throws InputError (file "<format>") for vnm (its
// 4-column selection is shared by V rows: no fibre tree) and for an empty dimension list.
arch::DataSpaceFormat sparseloop_format(const FormatSpec& spec, const std::string& data_space,
                                        const MatrixDims& dims);

// Sets `f` as the format of its data space at storage level `level` of `so` (replacing one
// there; adding the level when `so` has none of that name).
void set_format(arch::SparseOptimizations& so, const std::string& level,
                const arch::DataSpaceFormat& f);

}  // namespace sparsemap::sparse
