// Export of a trained sparse model's Linear/Conv weights into the sparse formats of
// sparse/format, with the measured SpMM speedup of those real pruned layers over dense
// OpenBLAS. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sparsemap/ml/prune/train.h"
#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::ml::prune {

struct ExportOptions {
  std::vector<sparse::FormatSpec> formats;  // e.g. csr, cvse:4, bsr:4x4, nm:2:4
  int64_t n = 256;          // columns of B (a batch of 256 activations for a Linear layer)
  int threads = 0;          // kernel and OpenBLAS threads; 0: all
  double min_ms = 100;      // timing: at least this long ...
  int min_reps = 5;         // ... and this many repetitions per kernel
  uint64_t seed = 1;        // B's values
  bool pruned_only = true;  // only weights the updater pruned (mask sparsity > 0)
};

// One layer in one format. A layer whose mask the format cannot hold exactly (an N:M format
// for a mask that is not N:M) gets `error` and no timing.
struct ExportRow {
  std::string layer;
  int64_t rows = 0, cols = 0, n = 0;  // C (rows x n) = W (rows x cols) B (cols x n)
  std::string format;
  double sparsity = 0;          // of the mask
  int64_t stored_values = 0;    // value slots the format stores (explicit zeros, padding)
  int64_t footprint_bytes = 0;  // values + metadata
  int64_t dense_bytes = 0;
  double dense_ms = 0;     // OpenBLAS sgemm on the dense weight (median)
  double sparse_ms = 0;    // the format's fast SpMM kernel (median)
  double speedup = 0;      // dense_ms / sparse_ms
  double max_rel_err = 0;  // against OpenBLAS on the pruned matrix
  std::string error;
};

// Converts every (pruned) weight to each format with its mask (sparse::convert keeps exactly
// the mask's structure) and times the kernels. Throws InputError on bad options.
std::vector<ExportRow> export_weights(const std::vector<TrainedWeight>& weights,
                                      const ExportOptions& o);

}  // namespace sparsemap::ml::prune
