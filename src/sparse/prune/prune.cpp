// Magnitude, column-vector, block, N:M and V:N:M pruning.
#include "sparsemap/sparse/prune/prune.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "sparsemap/error.h"

namespace sparsemap::sparse {

namespace {

[[noreturn]] void fail(const std::string& message) { throw InputError({"<prune>", 0, 0}, message); }

void check_sparsity(double s) {
  if (!(s >= 0.0 && s <= 1.0)) fail("sparsity must be in [0, 1], got " + std::to_string(s));
}

Mask empty_mask(ConstMatrixView w) {
  check_view(w, "W");
  return Mask{w.rows, w.cols, std::vector<uint8_t>(static_cast<size_t>(w.rows * w.cols), 0)};
}

// Indices of the `keep` highest scores; ties go to the lower index. Deterministic.
std::vector<int64_t> top_units(const std::vector<double>& score, int64_t keep) {
  std::vector<int64_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  auto better = [&](int64_t a, int64_t b) {
    const double sa = score[static_cast<size_t>(a)], sb = score[static_cast<size_t>(b)];
    return sa != sb ? sa > sb : a < b;
  };
  keep = std::clamp<int64_t>(keep, 0, static_cast<int64_t>(idx.size()));
  if (keep < static_cast<int64_t>(idx.size()))
    std::nth_element(idx.begin(), idx.begin() + keep, idx.end(), better);
  idx.resize(static_cast<size_t>(keep));
  return idx;
}

int64_t kept_units(int64_t units, double sparsity) {
  check_sparsity(sparsity);
  return units - std::llround(sparsity * static_cast<double>(units));
}

// Keeps the rectangular units of a grid of uh x uw cells, scored by their L2 norm.
Mask unit_mask(ConstMatrixView w, int64_t uh, int64_t uw, double sparsity) {
  Mask mask = empty_mask(w);
  const int64_t gr = (w.rows + uh - 1) / uh, gc = (w.cols + uw - 1) / uw;
  std::vector<double> score(static_cast<size_t>(gr * gc), 0.0);
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c) {
      const double x = w.data[r * w.ld + c];
      score[static_cast<size_t>((r / uh) * gc + c / uw)] += x * x;
    }
  for (int64_t u : top_units(score, kept_units(gr * gc, sparsity))) {
    const int64_t r0 = (u / gc) * uh, c0 = (u % gc) * uw;
    for (int64_t r = r0; r < std::min(w.rows, r0 + uh); ++r)
      for (int64_t c = c0; c < std::min(w.cols, c0 + uw); ++c)
        mask.keep[static_cast<size_t>(r * w.cols + c)] = 1;
  }
  return mask;
}

// Keeps the `n` largest of `score` (ties: lower position) by setting keep[pos[i]].
void keep_top_n(const std::vector<double>& score, int n, std::vector<int>& out) {
  out.resize(score.size());
  std::iota(out.begin(), out.end(), 0);
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)];
  });
  out.resize(std::min<size_t>(out.size(), static_cast<size_t>(n)));
}

}  // namespace

Mask magnitude_mask(ConstMatrixView w, double sparsity) { return unit_mask(w, 1, 1, sparsity); }

Mask column_vector_mask(ConstMatrixView w, int v, double sparsity) {
  if (!valid_cvse_v(v)) fail("V must be 1, 2, 4, 8, 16 or 32, got " + std::to_string(v));
  return unit_mask(w, v, 1, sparsity);
}

Mask block_mask(ConstMatrixView w, int bh, int bw, double sparsity) {
  if (bh < 1 || bw < 1 || bh > 4096 || bw > 4096)
    fail("block sizes must be in [1, 4096], got " + std::to_string(bh) + "x" + std::to_string(bw));
  return unit_mask(w, bh, bw, sparsity);
}

Mask nm_mask(ConstMatrixView w, int n, int m, NmAxis axis) {
  if (m < 1 || m > 255 || n < 1 || n > m)
    fail("N:M needs 1 <= N <= M <= 255, got " + std::to_string(n) + ":" + std::to_string(m));
  Mask mask = empty_mask(w);
  const int64_t lines = axis == NmAxis::Row ? w.rows : w.cols;
  const int64_t extent = axis == NmAxis::Row ? w.cols : w.rows;
  std::vector<double> score;
  std::vector<int> top;
  for (int64_t line = 0; line < lines; ++line)
    for (int64_t p0 = 0; p0 < extent; p0 += m) {
      const int64_t len = std::min<int64_t>(m, extent - p0);
      score.resize(static_cast<size_t>(len));
      for (int64_t p = 0; p < len; ++p) {
        const int64_t r = axis == NmAxis::Row ? line : p0 + p;
        const int64_t c = axis == NmAxis::Row ? p0 + p : line;
        score[static_cast<size_t>(p)] = std::fabs(w.data[r * w.ld + c]);
      }
      keep_top_n(score, n, top);
      for (int p : top) {
        const int64_t r = axis == NmAxis::Row ? line : p0 + p;
        const int64_t c = axis == NmAxis::Row ? p0 + p : line;
        mask.keep[static_cast<size_t>(r * w.cols + c)] = 1;
      }
    }
  return mask;
}

Mask vnm_mask(ConstMatrixView w, int v, int n, int m) {
  if (v < 1 || v > 4096 || m < 4 || m > 255 || n < 1 || n > 4)
    fail("V:N:M needs 1 <= V <= 4096, 4 <= M <= 255 and 1 <= N <= 4, got " + std::to_string(v) +
         ":" + std::to_string(n) + ":" + std::to_string(m));
  Mask mask = empty_mask(w);
  std::vector<double> score;
  std::vector<int> cols4, top;
  for (int64_t r0 = 0; r0 < w.rows; r0 += v) {
    const int64_t r1 = std::min<int64_t>(w.rows, r0 + v);
    for (int64_t c0 = 0; c0 < w.cols; c0 += m) {
      const int64_t len = std::min<int64_t>(m, w.cols - c0);
      score.assign(static_cast<size_t>(len), 0.0);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t p = 0; p < len; ++p) {
          const double x = w.data[r * w.ld + c0 + p];
          score[static_cast<size_t>(p)] += x * x;
        }
      keep_top_n(score, VnmMatrix::kSelected, cols4);
      std::sort(cols4.begin(), cols4.end());
      for (int64_t r = r0; r < r1; ++r) {
        score.resize(cols4.size());
        for (size_t t = 0; t < cols4.size(); ++t)
          score[t] = std::fabs(w.data[r * w.ld + c0 + cols4[t]]);
        keep_top_n(score, n, top);
        for (int t : top)
          mask.keep[static_cast<size_t>(r * w.cols + c0 + cols4[static_cast<size_t>(t)])] = 1;
      }
    }
  }
  return mask;
}

Mask prune_mask(ConstMatrixView w, const FormatSpec& spec, double sparsity) {
  if (spec.kind == FormatKind::Nm || spec.kind == FormatKind::Vnm) {
    const double own = spec.intrinsic_sparsity();
    if (sparsity >= 0.0 && std::fabs(sparsity - own) > 1e-6)
      fail(spec.str() + " fixes the sparsity at " + std::to_string(own) + ", asked for " +
           std::to_string(sparsity));
    return spec.kind == FormatKind::Nm ? nm_mask(w, spec.n, spec.m, spec.axis)
                                       : vnm_mask(w, spec.v, spec.n, spec.m);
  }
  switch (spec.kind) {
    case FormatKind::Bsr:
      return block_mask(w, spec.bh, spec.bw, sparsity);
    case FormatKind::Cvse:
      return column_vector_mask(w, spec.v, sparsity);
    default:
      return magnitude_mask(w, sparsity);
  }
}

AnySparse prune(ConstMatrixView w, const FormatSpec& spec, double sparsity) {
  const Mask mask = prune_mask(w, spec, sparsity);
  return convert(w, spec, &mask);
}

double relative_error(ConstMatrixView w, const Mask& keep) {
  check_view(w, "W");
  if (keep.rows != w.rows || keep.cols != w.cols) fail("mask and matrix sizes differ");
  double dropped = 0.0, total = 0.0;
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t c = 0; c < w.cols; ++c) {
      const double x = w.data[r * w.ld + c];
      total += x * x;
      if (!keep.at(r, c)) dropped += x * x;
    }
  return total > 0.0 ? std::sqrt(dropped / total) : 0.0;
}

}  // namespace sparsemap::sparse
