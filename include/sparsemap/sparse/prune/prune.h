// Array-level pruning to a format's pattern: unstructured magnitude, column vectors, blocks,
// N:M and V:N:M. No libtorch: inputs are dense fp32 views, outputs are keep-masks or formats.
//
// Exactness: a pruning that takes a target sparsity s drops exactly round(s * units) of its
// units (entries, V x 1 vectors or blocks) and keeps the rest, so the sparsity is exact to one
// unit. Units are ranked by score (|w| for entries, the L2 norm for vectors and blocks),
// highest kept; equal scores are broken by position (the lower row-major index is kept), so a
// pruning is deterministic. N:M and V:N:M fix their own sparsity (1 - N/M).
#pragma once

#include <cstdint>

#include "sparsemap/sparse/format/format_spec.h"

namespace sparsemap::sparse {

// How many of `units` a mask at `sparsity` keeps: units - round(sparsity * units). Throws
// InputError for a sparsity outside [0, 1].
int64_t kept_units(int64_t units, double sparsity);

// Unstructured: keeps the largest |w|. Throws InputError for s outside [0, 1].
Mask magnitude_mask(ConstMatrixView w, double sparsity);

// magnitude_mask's rule as a threshold, for callers that fuse it into their own pass: entry i
// (row-major) is kept when the bits of |w_i| (the float with its sign bit cleared, an unsigned
// integer ordered as |w|) exceed `bits`, or equal them and i is among the first `ties` such
// entries. Selection in O(rows * cols) by radix select, whatever the ties.
struct MagnitudeThreshold {
  uint32_t bits = 0;
  int64_t ties = 0;
};
MagnitudeThreshold magnitude_threshold(ConstMatrixView w, double sparsity);
// The same rule by count: keeps the `keep` largest |x_i| of x[0, n) (keep <= 0: none; keep >= n:
// all).
MagnitudeThreshold top_magnitude_threshold(const float* x, int64_t n, int64_t keep);

// Column vectors: units are the V x 1 vectors of CVSE (rows [g*V, g*V+V) of one column; the
// last group may be shorter), scored by their L2 norm. V in {1, 2, 4, 8, 16, 32}.
Mask column_vector_mask(ConstMatrixView w, int v, double sparsity);

// Blocks: units are the bh x bw blocks of BSR (edge blocks may be smaller), scored by L2 norm.
Mask block_mask(ConstMatrixView w, int bh, int bw, double sparsity);

// N:M: in every group of M entries along `axis` keeps the N largest |w| (all of a group that is
// shorter than N).
Mask nm_mask(ConstMatrixView w, int n, int m, NmAxis axis);

// V:N:M (VENOM): in every V x M block keeps the 4 columns of largest L2 norm over the block's
// rows, then in each row the N largest |w| among those 4.
Mask vnm_mask(ConstMatrixView w, int v, int n, int m);

// The mask for a format: dense and csr prune entries, bsr blocks, cvse vectors, nm and vnm
// their pattern. For nm and vnm, `sparsity` must be negative (meaning: the format's own) or
// equal to 1 - N/M; anything else throws InputError.
Mask prune_mask(ConstMatrixView w, const FormatSpec& spec, double sparsity);

// Prunes w and stores the kept entries in `spec`'s format (explicit zeros that the mask keeps
// are stored too, so the structure is exactly the mask's).
AnySparse prune(ConstMatrixView w, const FormatSpec& spec, double sparsity);

// Relative reconstruction error of a pruning: ||W - W o M||_F / ||W||_F (0 when W is 0).
double relative_error(ConstMatrixView w, const Mask& keep);

}  // namespace sparsemap::sparse
