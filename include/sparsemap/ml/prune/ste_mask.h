// The straight-through forward's masking pass for unstructured magnitude masks, with the
// threshold tracked from one step to the next.
#pragma once

#include <cstdint>
#include <vector>

namespace sparsemap::ml::prune {

// Per layer, kept between steps: the last threshold T (the bits of |score|, see
// sparse::magnitude_threshold) and a band [lo, hi] around where the next one should fall.
// Scratch vectors are reused so that a step allocates nothing.
struct SteBand {
  bool valid = false;
  uint32_t t = 0, lo = 0, hi = 0;  // lo <= t <= hi
  int64_t keep = 0;                // the kept count at t
  int64_t last_keep = -1;          // the kept count of the last call (-1: none yet)
  double density = 0;              // entries per unit of |score| near t; 0: not measured
  double delta = 0;                // the band's half-width in entries
  std::vector<int32_t> idx;        // entries in the band, in index order
  std::vector<float> keys;         // their scores
  int64_t full_selects = 0;        // steps that fell back to the full selection (tests, tuning)
};

// One step of the masked forward over n weights w (row-major), scored by s (s may be w):
// mk := kept in {0, 1} (unless mk is null) and out := kept ? w : w * beta, keeping the `keep`
// entries with the largest |s| and equal scores to the lower index: exactly the mask of
// sparse::magnitude_mask at that count.
//
// Cost: one vectorised pass that masks with the previous T and counts the entries above the
// band and lists those inside it, then a selection among the band (which holds the new T when
// the scores moved little) and a fix-up of the band entries, the only ones whose decision can
// differ between the previous T and the new one. When the new T falls outside the band, a
// full radix selection and a second pass. The band is placed from the density of scores near T
// and the last change of the kept count; its width in entries doubles after a miss and shrinks
// by 5% after a hit (to n / 2048 at least).
void ste_mask_unstructured(const float* w, const float* s, float* out, float* mk, int64_t n,
                           int64_t keep, float beta, SteBand& band);

// After the backward of a masked forward: g := g * (mk + (1 - mk) * gscale) + lambda * w *
// (1 - mk), the gradient of the pruned-scaled product (mask decay; gscale = 1 leaves g) plus
// SR-STE's decay of the pruned weights (lambda = 0: none), w being the dense weights.
void ste_gradient(float* g, const float* w, const float* mk, float lambda, float gscale, int64_t n);

// SR-STE's decay alone (beta = 0, no gradient scaling): g += lambda * (w - masked), masked being
// w * mask, which equals lambda * (1 - mask) * w exactly.
void ste_decay(float* g, const float* w, const float* masked, float lambda, int64_t n);

}  // namespace sparsemap::ml::prune
