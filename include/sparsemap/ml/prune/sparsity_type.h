// Sparsity types (unstructured, h x w blocks, N:M along either axis, channels, V x 1 column
// vectors) and the masks they make from a matrix of scores. Torch-free.
//
// Every mask rule is the array-level pruning of sparsemap/sparse/prune/prune.h: units are
// ranked by score, exactly round(s * units) are dropped and ties go to the lower position.
// Blocks and channels pooled by average or maximum are ranked by the same rule
// (sparse::magnitude_mask) on the grid of pooled scores.
//
// A parameter is seen as a matrix: rows = shape[0] (output features or channels), cols = the
// product of the other dimensions (PyTorch's [out, in, kh, kw] -> out x in*kh*kw, row-major,
// which is the parameter's own memory order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/sparse/format/dense.h"
#include "sparsemap/sparse/format/formats.h"

namespace sparsemap::ml::prune {

enum class SparsityKind { Unstructured, Block, Nm, Channel, ColumnVector };
// How a block's (or channel's) scores become one score.
enum class Pooling { Avg, Max, L2 };

struct SparsityType {
  SparsityKind kind = SparsityKind::Unstructured;
  int bh = 1;                                 // block height (rows)
  int bw = 1;                                 // block width (cols)
  Pooling pooling = Pooling::Avg;             // block, channel
  int n = 2;                                  // N:M
  int m = 4;                                  // N:M
  sparse::NmAxis axis = sparse::NmAxis::Row;  // N:M: groups along rows (over cols) or cols
  bool input_channels = false;                // channel: false = output channels, true = input
  int v = 8;                                  // column vector length (CVSE's V)

  // Text form (parse_sparsity_type reads it back).
  std::string str() const;
  // 1 - N/M for N:M (which fixes its own sparsity), -1 for the others.
  double intrinsic_sparsity() const;
  bool operator==(const SparsityType& o) const;
  bool operator!=(const SparsityType& o) const { return !(*this == o); }
};

// "unstructured" | "block:HxW[:avg|max|l2]" | "nm:N:M[:row|col]" |
// "channel[:out|in][:avg|max|l2]" | "cvse:V" (V in 1, 2, 4, 8, 16, 32).
// Defaults: block pooling avg (JaxPruner's), channel pooling l2. Throws InputError
// (file "<flag --type>") naming the accepted forms.
SparsityType parse_sparsity_type(const std::string& text);

// rows x cols of a parameter's matrix view (a 1-D parameter is 1 x n; a scalar 1 x 1).
struct MatrixShape {
  int64_t rows = 1;
  int64_t cols = 1;
};
MatrixShape matrix_shape(const std::vector<int64_t>& shape);

// The keep-mask of `scores` (non-negative; higher is kept) for `type` at `sparsity` in [0, 1].
// `shape` is the parameter's shape (channel pruning of input channels needs it).
//   unstructured: sparse::magnitude_mask; cvse: sparse::column_vector_mask;
//   N:M: sparse::nm_mask (sparsity <= 0 keeps everything, any other value gives N:M);
//   block, channel: sparse::block_mask (l2) or magnitude_mask on the pooled grid (avg, max);
//   a channel is a 1 x cols block (output) or a rows x (cols / shape[1]) block (input).
// Throws InputError for a sparsity outside [0, 1] or parameters the type cannot take.
sparse::Mask compute_mask(sparse::ConstMatrixView scores, const SparsityType& type, double sparsity,
                          const std::vector<int64_t>& shape);

// Keeps exactly the `keep` largest scores (ties: lower index) with sparse::magnitude_mask.
sparse::Mask top_k_mask(sparse::ConstMatrixView scores, int64_t keep);

// The units a type prunes in a matrix: entries, blocks, channels or vectors (N:M: groups).
int64_t unit_count(const SparsityType& type, const std::vector<int64_t>& shape);

}  // namespace sparsemap::ml::prune
